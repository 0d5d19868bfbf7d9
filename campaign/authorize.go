package campaign

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Forbidden is the service's answer to a principal asking for what they
// may not do. It names who asked and why, and nothing is appended.
type Forbidden struct {
	// Who is the principal refused ("marie", or "operator").
	Who string `json:"who"`
	// Reason says what they may not do, in words.
	Reason string `json:"reason"`
	// Why is Reason's format and values, for saying it in another
	// language (i18n: detail.forbidden); not sent.
	Why rules.Words `json:"-"`
}

func (e *Forbidden) Error() string { return fmt.Sprintf("forbidden: %s: %s", e.Who, e.Reason) }

func forbid(p Principal, format string, a ...any) error {
	w := rules.Words{Format: format, Args: a}
	return &Forbidden{Who: p.Player, Reason: w.String(), Why: w}
}

// Unauthenticated is the answer to a token the campaign does not know.
type Unauthenticated struct{ Campaign string }

func (e *Unauthenticated) Error() string {
	return fmt.Sprintf("unauthenticated: the token is not one of campaign %q's", e.Campaign)
}

// UnknownCampaign is the answer for a campaign that does not exist.
type UnknownCampaign struct{ Campaign string }

func (e *UnknownCampaign) Error() string { return e.Why().String() }

// Why is the error's words: format and values (i18n: detail.not_found).
func (e *UnknownCampaign) Why() rules.Words {
	return rules.Words{Format: "no campaign %q", Args: []any{e.Campaign}}
}

// Authenticate returns the person of campaign id whose token this is.
func (s *Service) Authenticate(ctx context.Context, id, token string) (Principal, error) {
	c, err := s.Campaign(ctx, id)
	if err != nil {
		return Principal{}, err
	}
	if !c.Exists() {
		// The same answer as a token the campaign does not know: a
		// token, any token, must not tell which campaigns exist.
		return Principal{}, &Unauthenticated{Campaign: id}
	}
	p, ok := c.Authenticate(token)
	if !ok {
		return Principal{}, &Unauthenticated{Campaign: id}
	}
	return p, nil
}

// umpireOnly are the commands only an umpire gives: they set up or close a
// campaign or a battle, give people roles, or rule disputes.
var umpireOnly = map[string]bool{
	rules.CmdBattleCreate:   true,
	rules.CmdBattleStart:    true,
	rules.CmdBattleEnd:      true,
	CmdPlayerAdd:            true,
	CmdTokenReissue:         true,
	rules.CmdObjectiveHold:  true,
	rules.CmdDisputeUphold:  true,
	rules.CmdDisputeDismiss: true,
}

// actsFor is the field of a command's body that says whom it acts for,
// by command: its side, or the unit, general or brigade whose side it is.
// authorize reads it from the decoded command (ref);
// TestAuthorizedFieldsExist holds every command here to have the field.
var actsFor = map[string]string{
	rules.CmdArmyDeploy: "side", rules.CmdPhaseEnd: "side", rules.CmdMovementHandOver: "side",
	rules.CmdFlankDeclare: "side", rules.CmdFlankChooseEntry: "side", rules.CmdFlankEnter: "side",
	rules.CmdOrderGive: "general", rules.CmdGeneralMove: "general", rules.CmdGeneralDetach: "general",
	rules.CmdUnitMove: "unit", rules.CmdUnitReform: "unit", rules.CmdUnitCharge: "unit",
	rules.CmdInitiativeTake: "unit", rules.CmdInitiativeDecline: "unit", rules.CmdUnitMarch: "unit",
	rules.CmdUnitFire: "unit", rules.CmdCombatRecord: "unit", rules.CmdFlankRally: "unit",
	rules.CmdMarchDeclare: "brigade", rules.CmdBrigadeOrder: "brigade",
	rules.CmdDiceAddSeed: "player",
}

// ref is the text field of a decoded command (a pointer to its struct)
// that its body gives under key: the field whose JSON name is key, as the
// strict decoding read it (names matched regardless of case, embedded
// structs' fields promoted); "" when the command has none or cmd is nil.
func ref(cmd any, key string) string { return refIn(reflect.ValueOf(cmd), key) }

// refIn is ref on a reflected value. An embedded struct is searched as a
// value, never made an interface: an unexported embedded struct's fields
// are promoted as encoding/json promotes them, and its Interface panics.
func refIn(v reflect.Value, key string) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			if s := refIn(v.Field(i), key); s != "" {
				return s
			}
		case !f.IsExported():
		case strings.EqualFold(cmp.Or(name, f.Name), key) && f.Type.Kind() == reflect.String:
			return v.Field(i).String()
		}
	}
	return ""
}

// commandFor returns the principal a request acts as: the principal who
// entered it, or, when it is entered for a person of the campaign
// (Request.For), that person. Only an umpire or the operator enters a
// command for someone, and only for a person of the campaign.
func (s *Service) commandFor(ctx context.Context, req Request) (Principal, error) {
	p := req.Principal
	if p.Player == "" || p.Role == "" {
		return Principal{}, fmt.Errorf("campaign: %s: a command needs a principal (who asks)", req.Name)
	}
	if !p.IsOperator() && p.Campaign != req.Campaign {
		return Principal{}, forbid(p, "a person of campaign %q gives no commands in campaign %q", p.Campaign, req.Campaign)
	}
	if req.For == "" || req.For == p.Player {
		return p, nil
	}
	if !p.Umpires() {
		return Principal{}, forbid(p, "only an umpire or the operator enters a command for someone else (%s asked for %s)", p.Player, req.For)
	}
	c, err := s.Campaign(ctx, req.Campaign)
	if err != nil {
		return Principal{}, err
	}
	who, ok := c.Player(req.For)
	if !ok {
		return Principal{}, rules.Refuse("campaign", "player.unknown",
			"no person %q in campaign %q to enter the command for; add them with player.add", req.For, req.Campaign)
	}
	return who.principal(req.Campaign), nil
}

// enteredByOthers checks who a command says entered it: the entered_by of
// its body (unit.fire's and combat.record's, from the decoded command cmd)
// and of its physical dice. p is the principal who asks (not the one the
// command is entered for): a player names only themselves there; only an
// umpire or the operator names someone else, as only they enter a command
// for someone (commandFor). Empty names nobody: the dice then record the
// person the command acts as, and a result no one.
func enteredByOthers(p Principal, cmd any, d DiceInput) error {
	if p.Umpires() {
		return nil
	}
	body := ""
	switch c := cmd.(type) {
	case *rules.FireUnit:
		body = c.EnteredBy
	case *rules.RecordCombat:
		body = c.EnteredBy
	}
	for _, f := range []struct{ field, who string }{{"entered_by", body}, {"dice.entered_by", d.EnteredBy}} {
		if f.who != "" && f.who != p.Player {
			return forbid(p, "%s names only themselves in %s, not %q: only an umpire or the operator enters for someone else", p.Player, f.field, f.who)
		}
	}
	return nil
}

// authorize decides whether p (the principal the command acts as) may give
// the command cmd (its body as decodeBody decoded it, nil if it could not)
// on st, the battle's state the rules decide it on (nil for a campaign's
// own commands). A player commands only their own side: an
// order by the side of its general; a unit's move, formation change,
// charge, initiative, march, fire, combat outcome and flank rally by the
// unit's side; a general's move by his side; a brigade's march or order
// change by its side; phase.end, movement.hand_over and the flank-march
// commands by their side field; army.deploy for their own side;
// dice.add_seed only with their own player id; dispute.raise and the
// retraction commands always (the rules check a request is their own, and
// authorizeRetraction who answers one); the umpire's commands never. A
// general or unit the battle does not know is left to the rules, which
// refuse it (nothing is appended either way).
func authorize(p Principal, name string, cmd any, st *rules.State) error {
	if name == CmdCreate {
		if !p.IsOperator() {
			return forbid(p, "campaign.create is the operator's (the ledger's owner or its admin token)")
		}
		return nil
	}
	if name == rules.CmdDiceAddSeed {
		if player := ref(cmd, actsFor[name]); player != p.Player {
			// A dice seed is a person's own: added by them (or for them
			// at the table), never as someone else's.
			return forbid(p, "%s adds a dice seed only as themselves, not as %q", p.Player, player)
		}
	}
	if p.Umpires() {
		return nil
	}
	if p.Role != RolePlayer {
		return forbid(p, "a %s gives no commands", p.Role)
	}
	if umpireOnly[name] {
		return forbid(p, "%s is the umpire's", name)
	}
	side := ""
	switch name {
	case rules.CmdDisputeRaise, rules.CmdRetractRequest, rules.CmdRetractAgree, rules.CmdRetractDecline, rules.CmdDiceAddSeed:
		return nil
	}
	switch field := actsFor[name]; field {
	case "side":
		side = ref(cmd, field)
	case "general":
		if side = generalSide(st, ref(cmd, field)); side == "" {
			return nil
		}
	case "unit":
		u := st.Units[ref(cmd, field)]
		if u == nil {
			return nil
		}
		side = u.Side
	case "brigade":
		if side = brigadeSide(st, ref(cmd, field)); side == "" {
			return nil
		}
	}
	if !p.CanCommand(side) {
		return forbid(p, "player %s commands side %s only; %s is for side %q", p.Player, p.Side, name, side)
	}
	return nil
}

// authorizeRetraction checks who answers a retraction request: the
// opponent agrees (a player of another side than the requester's); the
// opponent declines, or the requester withdraws. An umpire may do either.
// evs are the battle's events up to the state the command is decided on. A
// request the log does not hold is left to the rules, which refuse it.
func (s *Service) authorizeRetraction(ctx context.Context, p Principal, name string, n int, evs []events.Envelope, camp string) error {
	if p.Umpires() {
		return nil
	}
	requester := ""
	for _, e := range evs {
		if e.Type != rules.EvRetractRequested {
			continue
		}
		if ev, err := decodeBattle(e); err == nil && ev.(*rules.RetractRequested).Request == n {
			requester = e.Author()
		}
	}
	if requester == "" {
		return nil
	}
	c, err := s.Campaign(ctx, camp)
	if err != nil {
		return err
	}
	side := ""
	if who, ok := c.Player(requester); ok {
		side = who.Side
	}
	own := p.Player == requester || (side != "" && p.Side == side)
	switch {
	case name == rules.CmdRetractAgree && own:
		return forbid(p, "the opponent agrees to a retraction: %s of side %s asked for request %d", requester, side, n)
	case name == rules.CmdRetractDecline && own && p.Player != requester:
		return forbid(p, "only the opponent declines, or %s withdraws, request %d", requester, n)
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
