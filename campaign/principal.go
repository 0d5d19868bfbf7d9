package campaign

import (
	"strings"

	"github.com/clubledger/ledger/events"
)

// Principal is who asks: a person of a campaign (authenticated by their
// token) or the ledger's operator. Every command and query the service
// answers carries one, and who may do what is decided here, in the
// service, on the same state the rules see: never in an edge.
type Principal struct {
	// Campaign is the campaign the person belongs to; empty for the
	// operator, who belongs to none.
	Campaign string `json:"campaign,omitempty"`
	// Player is the person's id, or the operator's name.
	Player string `json:"player"`
	Role   string `json:"role"`
	Side   string `json:"side,omitempty"`
}

// Operator returns the principal of the ledger's operator, named name
// ("operator" for the owner of the data folder, "admin" for the server's
// admin token).
func Operator(name string) Principal {
	if name == "" {
		name = "operator"
	}
	return Principal{Player: name, Role: RoleOperator}
}

// IsOperator reports whether p is the ledger's operator.
func (p Principal) IsOperator() bool { return p.Role == RoleOperator }

// Umpires reports whether p has umpire powers: a campaign's umpire, or the
// operator.
func (p Principal) Umpires() bool { return p.Role == RoleUmpire || p.Role == RoleOperator }

// CanCommand reports whether p may give commands for side ("" for commands
// that belong to no side, which only an umpire may give).
func (p Principal) CanCommand(side string) bool {
	switch {
	case p.Umpires():
		return true
	case p.Role == RolePlayer:
		return side != "" && side == p.Side
	}
	return false
}

// CanRead reports whether p may read an event of the given audience.
func (p Principal) CanRead(audience string) bool {
	switch {
	case audience == events.AudienceAll:
		return true
	case p.Umpires():
		return true
	case strings.HasPrefix(audience, events.AudienceSidePrefix):
		return p.Role == RolePlayer && audience == events.SideAudience(p.Side)
	}
	return false
}

// ViewSide is the side whose hidden information p may see ("" for an
// umpire, who sees all, and for readers, who see what is open to all), and
// whether p has umpire powers: the arguments of rules.State.ViewFor.
func ViewSide(p Principal) (side string, umpire bool) {
	if p.Role == RolePlayer {
		return p.Side, false
	}
	return "", p.Umpires()
}
