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
	Brigade string `json:"brigade"`
	// Request is the retraction request a command.retract_agree or
	// command.retract_decline answers.
	Request json.RawMessage `json:"request"`
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
	rules.CmdObjectiveHold:   true,
	rules.CmdDisputeUphold:   true,
	rules.CmdDisputeDismiss:  true,
}

// authorize decides whether w may give the command. A player commands
// only their own side: an order by the side of its general; a unit's move,
// formation change, charge, initiative, march, fire, combat outcome and
// flank rally by the unit's side; a general's move by his side; a brigade's
// march or order change by its side; phase.end, movement.hand_over and the
// flank-march commands by their side field; army.deploy for their own side; dice.add_seed only with
// their own player id; dispute.raise and the retraction commands always
// (authorizeRetraction checks who answers a request); dispute.uphold and
// dispute.dismiss never. A general or unit the battle does not know is left
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
	case rules.CmdArmyDeploy, rules.CmdPhaseEnd, rules.CmdMovementHandOver,
		rules.CmdFlankDeclare, rules.CmdFlankChooseEntry, rules.CmdFlankEnter:
		side = body.Side
	case rules.CmdDisputeRaise, rules.CmdRetractRequest, rules.CmdRetractAgree, rules.CmdRetractDecline:
		// Any player raises a dispute or asks to take back a command (the
		// rules check it is their own); who answers a request is checked
		// against the log (authorizeRetraction).
		return nil
	case rules.CmdDiceAddSeed:
		if body.Player != w.Player {
			return forbidden("a player adds a dice seed only as themselves")
		}
		return nil
	case rules.CmdOrderGive, rules.CmdGeneralMove, rules.CmdGeneralDetach:
		side = generalSide(st, body.General)
		if side == "" {
			return nil
		}
	case rules.CmdUnitMove, rules.CmdUnitReform, rules.CmdUnitCharge, rules.CmdInitiativeTake, rules.CmdInitiativeDecline,
		rules.CmdUnitMarch, rules.CmdUnitFire, rules.CmdCombatRecord, rules.CmdFlankRally:
		u := st.Units[body.Unit]
		if u == nil {
			return nil
		}
		side = u.Side
	case rules.CmdMarchDeclare, rules.CmdBrigadeOrder:
		side = brigadeSide(st, body.Brigade)
		if side == "" {
			return nil
		}
	}
	if !w.CanCommand(side) {
		return forbidden("player " + w.Player + " commands side " + w.Side + " only")
	}
	return nil
}

// brigadeSide returns the side of a brigade, or "".
func brigadeSide(st *rules.State, id string) string {
	if st == nil || id == "" {
		return ""
	}
	for _, sd := range st.Sides {
		for _, b := range sd.Brigades {
			if b.ID == id {
				return sd.ID
			}
		}
	}
	return ""
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
