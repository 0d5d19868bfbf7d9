package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Request is one command as it reaches the service from the CLI, a scenario
// file or HTTP.
type Request struct {
	// ID identifies the command; a repeated ID with the same command from
	// the same principal appends nothing new and answers with the recorded
	// outcome; with another command or principal it is a conflict
	// (IdempotencyConflict). Required.
	ID string `json:"id"`
	// Principal is who asks: a person of the campaign or the operator.
	// Required: the service decides what they may do.
	Principal Principal `json:"principal"`
	// For, when set, is the person of the campaign the principal (an
	// umpire or the operator) enters the command for, at the table. The
	// command is authorised and decided as theirs and recorded as entered
	// by the principal on their behalf.
	For string `json:"for,omitempty"`
	// Campaign and Battle address the stream; Battle is empty for campaign
	// commands.
	Campaign string `json:"campaign"`
	Battle   string `json:"battle,omitempty"`
	// Name is the command name ("order.give").
	Name string `json:"name"`
	// Body is the command's JSON.
	Body json.RawMessage `json:"body"`
	// Dice are physical dice entered for the command; empty means digital.
	Dice DiceInput `json:"dice"`
	// Nonce is fresh randomness from the device of the person whose
	// command it is (hex), for the digital dice it rolls (docs/dice.md).
	Nonce string `json:"nonce,omitempty"`
	// DryRun decides the command without appending anything: the answer
	// is the events it would append now, or its refusal. A dry run never
	// rolls digital dice (that would show a roll before it counts): a
	// command that needs them answers ErrNeedsDice after the checks that
	// come before the roll.
	DryRun bool `json:"dry_run,omitempty"`
}

// Outcome is what an accepted command appended.
type Outcome struct {
	Key    events.Key        `json:"key"`
	Events []events.Envelope `json:"events"`
	// Duplicate is true when the command id had already been applied: the
	// events are the ones recorded then and nothing new was appended.
	Duplicate bool `json:"duplicate"`
	// DryRun is true for a dry run: the events were decided, not appended
	// (their sequences are 0).
	DryRun bool `json:"dry_run,omitempty"`
	// Attempts counts decisions made: more than one after conflicts.
	Attempts int `json:"attempts"`
	// Token is a secret issued by the command (player.add,
	// player.reissue_token): shown once to the caller, stored only as its
	// hash. Empty on a duplicate: a lost token is reissued, never shown twice.
	Token string `json:"token,omitempty"`
}

// commandID is what a command id may be: it becomes part of NATS message
// ids and event ids, so no dots, spaces, wildcards or control characters.
var commandID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// InvalidInput is a request the service cannot read: a field that breaks
// its format or limit. It names the field and the limit, never echoes raw
// input at length, and nothing is appended.
type InvalidInput struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// Why is Reason's format and values, for saying it in another
	// language (i18n: detail.input); not sent. A Reason with no Why is
	// said as its own format.
	Why rules.Words `json:"-"`
}

// InvalidFormat is how an InvalidInput is said: its field, then its
// reason (i18n: detail.bad_request).
const InvalidFormat = "invalid %s: %s"

func (e *InvalidInput) Error() string { return fmt.Sprintf(InvalidFormat, e.Field, e.Reason) }

// InvalidKey says what is wrong with a campaign's or battle's id, as
// events.Key.Validate does, or nil.
func InvalidKey(k events.Key) *InvalidInput {
	if !events.ValidID(k.Campaign) {
		return Invalid("campaign/battle", "campaign id %q: want lower-case letters, digits, '-' or '_', at most 64", k.Campaign)
	}
	if k.Battle != "" && !events.ValidID(k.Battle) {
		return Invalid("campaign/battle", "battle id %q: want lower-case letters, digits, '-' or '_', at most 64", k.Battle)
	}
	return nil
}

// Invalid is an InvalidInput of field whose reason is format printed with
// a, keeping both for saying it in another language.
func Invalid(field, format string, a ...any) *InvalidInput {
	w := rules.Words{Format: format, Args: a}
	return &InvalidInput{Field: field, Reason: w.String(), Why: w}
}

// IdempotencyConflict is the answer to a command id already used for
// another command (another body, dice or principal): the earlier command
// stands and the new one is not carried out.
type IdempotencyConflict struct {
	ID string `json:"id"`
	// Earlier describes the command recorded under the id: its first
	// event's type and version, and who entered it.
	EarlierType    string `json:"earlier_type"`
	EarlierVersion uint64 `json:"earlier_version"`
	EarlierActor   string `json:"earlier_actor"`
}

func (e *IdempotencyConflict) Error() string {
	return fmt.Sprintf("command id %q was already used by another command (%s, event %d, entered by %s); send this command with a new id",
		e.ID, e.EarlierType, e.EarlierVersion, e.EarlierActor)
}

// NeedsDice is a dry run's answer for a command whose decision rolls
// digital dice: everything before the roll was checked; the roll itself
// happens only when the command is given.
type NeedsDice struct {
	Purpose string `json:"purpose"`
}

func (e *NeedsDice) Error() string {
	return fmt.Sprintf("a dry run does not roll digital dice (%s): the command is legal up to its roll", e.Purpose)
}

// requestHash fingerprints a command as asked: its address, name, body
// (compacted), dice, who asked and for whom.
func requestHash(req Request) string {
	var body bytes.Buffer
	if err := json.Compact(&body, req.Body); err != nil || body.Len() == 0 {
		body.Reset()
		body.Write(req.Body)
	}
	b, _ := json.Marshal(struct {
		Campaign, Battle, Name string
		Body                   string
		Dice                   []int
		EnteredBy              string
		Principal              string
		Role                   string
		For                    string
	}{req.Campaign, req.Battle, req.Name, body.String(), req.Dice.Values, req.Dice.EnteredBy, req.Principal.Player, req.Principal.Role, req.For})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
