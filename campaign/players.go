package campaign

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Roles a person may have in a campaign.
const (
	// RoleUmpire organises the campaign, sees everything and rules disputes.
	RoleUmpire = "umpire"
	// RolePlayer commands one side's units and sees what that side may see.
	RolePlayer = "player"
	// RoleReader may replay finished battles and read standings.
	RoleReader = "reader"
	// RoleOperator is the ledger's operator: the owner of its data folder
	// (the CLI on that machine, the local door) or the holder of the
	// server's admin token. Umpire powers on every campaign; alone may
	// open campaigns. Not a person of any campaign.
	RoleOperator = "operator"
)

// Commands and events of a campaign's people.
const (
	CmdPlayerAdd     = "player.add"
	CmdTokenReissue  = "player.reissue_token"
	EvPlayerAdded    = "campaign.player_added"
	EvTokenReissued  = "campaign.token_reissued"
	tokenPrefix      = "lt_"
	tokenRandomBytes = 20
)

// AddPlayer (player.add) gives a person a role in the campaign and a
// token. A player is bound to a side; an umpire or a reader to none.
type AddPlayer struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Role   string `json:"role"`
	Side   string `json:"side,omitempty"`
}

// ReissueToken (player.reissue_token) replaces a person's token: the old
// one stops working.
type ReissueToken struct {
	Player string `json:"player"`
}

// PlayerAdded records a person's role and the SHA-256 of their token. The
// token itself is shown once, to whoever added them, and never stored.
type PlayerAdded struct {
	Player    string `json:"player"`
	Name      string `json:"name,omitempty"`
	Role      string `json:"role"`
	Side      string `json:"side,omitempty"`
	TokenHash string `json:"token_hash"`
}

// TokenReissued records a person's new token hash.
type TokenReissued struct {
	Player    string `json:"player"`
	TokenHash string `json:"token_hash"`
}

// Player is one person of a campaign.
type Player struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Role      string `json:"role"`
	Side      string `json:"side,omitempty"`
	TokenHash string `json:"-"`
}

// NewToken returns a fresh random token and its hash.
func NewToken() (token, hash string, err error) {
	var b [tokenRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("campaign: token: %w", err)
	}
	token = tokenPrefix + hex.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken is how a token is kept: its SHA-256, hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Authenticate returns the principal whose token this is.
func (s *State) Authenticate(token string) (Principal, bool) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return Principal{}, false
	}
	h := HashToken(token)
	for _, p := range s.Players {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p.TokenHash)) == 1 {
			return p.principal(s.ID), true
		}
	}
	return Principal{}, false
}

func (p Player) principal(campaign string) Principal {
	return Principal{Campaign: campaign, Player: p.ID, Role: p.Role, Side: p.Side}
}

// Player returns a person of the campaign.
func (s *State) Player(id string) (Player, bool) {
	for _, p := range s.Players {
		if p.ID == id {
			return p, true
		}
	}
	return Player{}, false
}

func (s *State) hasSide(id string) bool {
	for _, sd := range s.Sides {
		if sd.ID == id {
			return true
		}
	}
	return false
}

func decideAddPlayer(s *State, c AddPlayer, tokenHash string) (PlayerAdded, error) {
	if !s.Exists() {
		return PlayerAdded{}, rules.Refuse("campaign", "campaign.unknown", "the campaign does not exist")
	}
	if !events.ValidID(c.Player) {
		return PlayerAdded{}, rules.Refuse("campaign", "player.bad_id", "player id %q: want lower-case letters, digits, '-' or '_'", c.Player)
	}
	if _, ok := s.Player(c.Player); ok {
		return PlayerAdded{}, rules.Refuse("campaign", "player.exists", "player %q is already in the campaign", c.Player)
	}
	switch c.Role {
	case RolePlayer:
		if !s.hasSide(c.Side) {
			return PlayerAdded{}, rules.Refuse("campaign", "player.side", "a player is bound to one of the campaign's sides; %q is not one", c.Side)
		}
	case RoleUmpire, RoleReader:
		if c.Side != "" {
			return PlayerAdded{}, rules.Refuse("campaign", "player.side", "an %s is bound to no side", c.Role)
		}
	default:
		return PlayerAdded{}, rules.Refuse("campaign", "player.role", "role %q: want umpire, player or reader", c.Role)
	}
	return PlayerAdded{Player: c.Player, Name: c.Name, Role: c.Role, Side: c.Side, TokenHash: tokenHash}, nil
}

func decideReissue(s *State, c ReissueToken, tokenHash string) (TokenReissued, error) {
	if _, ok := s.Player(c.Player); !ok {
		return TokenReissued{}, rules.Refuse("campaign", "player.unknown", "no player %q in the campaign", c.Player)
	}
	return TokenReissued{Player: c.Player, TokenHash: tokenHash}, nil
}

func applyPlayers(s *State, e events.Envelope, payload json.RawMessage) error {
	switch e.Type {
	case EvPlayerAdded:
		var p PlayerAdded
		if err := json.Unmarshal(payload, &p); err != nil {
			return fmt.Errorf("campaign: %s: %w", e.ID, err)
		}
		s.Players = append(s.Players, Player{ID: p.Player, Name: p.Name, Role: p.Role, Side: p.Side, TokenHash: p.TokenHash})
	case EvTokenReissued:
		var r TokenReissued
		if err := json.Unmarshal(payload, &r); err != nil {
			return fmt.Errorf("campaign: %s: %w", e.ID, err)
		}
		for i := range s.Players {
			if s.Players[i].ID == r.Player {
				s.Players[i].TokenHash = r.TokenHash
			}
		}
	}
	return nil
}
