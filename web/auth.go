package web

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Admin is the player id the server-level admin token acts as.
const Admin = "admin"

// who is an authenticated caller on one campaign.
type who struct {
	campaign.Principal
	// admin: the server's admin token, not a person of the campaign. It
	// acts as umpire and alone may create campaigns.
	admin bool
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// authenticate resolves the request's token on campaign id: 401 without a
// token or with one the campaign does not know, 404 for a campaign that
// does not exist (unless the caller is the admin, who may create it).
func (s *Server) authenticate(r *http.Request, id string) (who, error) {
	token := bearer(r)
	if token == "" {
		return who{}, errUnauthorized
	}
	if !events.ValidID(id) {
		return who{}, notFound("")
	}
	if s.opts.AdminToken != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.AdminToken)) == 1 {
		return who{Principal: campaign.Principal{Campaign: id, Player: Admin, Role: campaign.RoleUmpire}, admin: true}, nil
	}
	c, err := s.opts.Service.Campaign(r.Context(), id)
	if err != nil {
		return who{}, err
	}
	if !c.Exists() {
		return who{}, notFound("no campaign " + id)
	}
	p, ok := c.Authenticate(token)
	if !ok {
		return who{}, errUnauthorized
	}
	return who{Principal: p}, nil
}

// refs are the fields of a command body that say whom it acts for; the
// rules decode the body strictly afterwards.
type refs struct {
	Unit    string `json:"unit"`
	General string `json:"general"`
	Side    string `json:"side"`
	Player  string `json:"player"`
	Target  string `json:"target"`
}

// words are a command's references, for translated refusals.
func (r refs) words() map[string]string {
	return map[string]string{"unit": r.Unit, "general": r.General, "side": r.Side, "player": r.Player, "target": r.Target}
}

// umpireOnly are the commands only an umpire gives: they set up or close a
// campaign or a battle, or give people roles.
var umpireOnly = map[string]bool{
	rules.CmdBattleCreate:    true,
	rules.CmdBattleStart:     true,
	rules.CmdBattleEnd:       true,
	campaign.CmdPlayerAdd:    true,
	campaign.CmdTokenReissue: true,
}

// authorize decides whether w may give the command. A player commands
// only their own side: an order by the side of its general; a unit's move,
// formation change, charge and initiative by the unit's side; phase.end by
// its side field; army.deploy for their own side; dice.add_seed only with
// their own player id. A general or unit the battle does not know is left
// to the rules, which refuse it (nothing is appended either way). st is the
// battle's current state (nil for campaign commands).
func authorize(w who, name string, body refs, st *rules.State) error {
	if name == campaign.CmdCreate {
		if !w.admin {
			return forbidden("campaign.create needs the server's admin token")
		}
		return nil
	}
	if w.Role == campaign.RoleUmpire {
		return nil
	}
	if w.Role != campaign.RolePlayer {
		return forbidden("a " + w.Role + " gives no commands")
	}
	if umpireOnly[name] {
		return forbidden(name + " is the umpire's")
	}
	side := ""
	switch name {
	case rules.CmdArmyDeploy, rules.CmdPhaseEnd:
		side = body.Side
	case rules.CmdDiceAddSeed:
		if body.Player != w.Player {
			return forbidden("a player adds a dice seed only as themselves")
		}
		return nil
	case rules.CmdOrderGive:
		side = generalSide(st, body.General)
		if side == "" {
			return nil
		}
	case rules.CmdUnitMove, rules.CmdUnitReform, rules.CmdUnitCharge, rules.CmdInitiativeTake, rules.CmdInitiativeDecline:
		u := st.Units[body.Unit]
		if u == nil {
			return nil
		}
		side = u.Side
	}
	if !w.CanCommand(side) {
		return forbidden("player " + w.Player + " commands side " + w.Side + " only")
	}
	return nil
}

// generalSide returns the side of a general or C-in-C, or "".
func generalSide(st *rules.State, id string) string {
	if st == nil || id == "" {
		return ""
	}
	for _, sd := range st.Sides {
		if sd.CInC != nil && sd.CInC.ID == id {
			return sd.ID
		}
		for _, b := range sd.Brigades {
			if b.General.ID == id {
				return sd.ID
			}
		}
	}
	return ""
}

// parseRefs reads the referencing fields of a command body; the body must
// be a JSON object (or empty).
func parseRefs(body json.RawMessage) (refs, error) {
	var r refs
	if len(body) == 0 || string(body) == "null" {
		return r, nil
	}
	// Loose on purpose: unknown fields are the rules' to refuse, strictly.
	if err := json.Unmarshal(body, &r); err != nil {
		return r, badRequest("the command must be a JSON object: " + err.Error())
	}
	return r, nil
}

// battleState is the battle's current state from the log.
func (s *Server) battleState(ctx context.Context, key events.Key) (*rules.State, error) {
	st, _, err := s.opts.Service.State(ctx, key)
	return st, err
}
