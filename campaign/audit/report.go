package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
)

// Check ids, in the order a Report lists them.
const (
	// CheckChain: versions 1..n without gaps, each prev_hash the SHA-256
	// of the previous event's stored bytes (and, for an export, each
	// line's hash and the header's head).
	CheckChain = "chain"
	// CheckSignatures: every event signed by the ledger's key (or older
	// than signing), each key after the first endorsed by a key change
	// signed by the one before.
	CheckSignatures = "signatures"
	// CheckHeads: every head hash someone kept (Options.Heads) is the hash
	// of an event of this chain.
	CheckHeads = "heads"
	// CheckDecode: every event is of a type this program knows, at a
	// schema it reads, and its payload decodes.
	CheckDecode = "decode"
	// CheckReveals: every revealed seed hashes to its period's commitment;
	// after the battle's end no period is left unrevealed.
	CheckReveals = "reveals"
	// CheckRolls: every digital roll recomputes by its scheme from the
	// revealed seed, the players' seeds, battle, period, counter and (v3)
	// nonce; a roll's scheme is v3 or its period's, never v2 after v3;
	// every roll's values are faces of its dice.
	CheckRolls = "rolls"
	// CheckCounters: roll counters are 1, 2, 3, ... in log order, physical
	// and digital rolls sharing them, with no gap and no repeat.
	CheckCounters = "counters"
	// CheckOrders: every order.resolved reads the roll it cites, and its
	// effective rating, outcome and actions are the ruleset's (C.3, C.5,
	// C.7, C.13, C.14).
	CheckOrders = "orders"
	// CheckSeedTiming: every player's seed was added to the open period
	// after its commitment and before its first digital roll.
	CheckSeedTiming = "seed_timing"
	// CheckNonces: every digital roll by ledger-dice-v2 records the
	// command it settles, one by v3 none, and a player's nonce only on that
	// player's own command; the summary counts the rolls with a player's
	// nonce, by player, and those without, by who entered them ("ump for
	// karl": docs/dice.md).
	CheckNonces = "nonces"
)

// checkOrder and checkTitles say what each check proves, for reports.
var checkOrder = []string{CheckChain, CheckSignatures, CheckHeads, CheckDecode, CheckReveals, CheckRolls, CheckCounters, CheckOrders, CheckSeedTiming, CheckNonces}

var checkTitles = map[string]string{
	CheckChain:      "hash chain: versions 1..n, each prev_hash the SHA-256 of the event before",
	CheckSignatures: "every event signed by the ledger's key; a key change signed by the key before",
	CheckHeads:      "every head hash kept (--head) is an event of this chain",
	CheckDecode:     "every event of a known type and schema, its payload readable",
	CheckReveals:    "every revealed seed matches its commitment",
	CheckRolls:      "every digital roll recomputes from the revealed seeds (ledger-dice-v1, v2, v3)",
	CheckCounters:   "roll counters 1..n, no gap, no repeat",
	CheckOrders:     "every order reads its cited roll against its rating as the ruleset says",
	CheckSeedTiming: "no player seed after its period's first digital roll",
	CheckNonces:     "v2 rolls name their command, v3 none; a player's nonce only on their own command",
}

// Status is the verdict of a check or a finding.
type Status string

// Statuses. Pending is a digital roll whose period is not revealed yet
// while the battle is in progress: not a failure, not yet a proof.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Pending Status = "pending"
)

// Report is the outcome of an audit: each check with what it found, the
// dice periods, and per-player statistics.
type Report struct {
	Campaign string `json:"campaign"`
	Battle   string `json:"battle"`
	// Lang is the language of the checks' titles and summaries and the
	// findings' messages (absent: English, as Verify writes them); ids,
	// statuses and numbers are the same in every language.
	Lang string `json:"lang,omitempty"`
	// Events counts the events audited, withheld ones included.
	Events int `json:"events"`
	// Head is the hex SHA-256 of the last event's stored bytes.
	Head string `json:"head"`
	// Ended says whether a battle.ended is in the log (EndedAt its version).
	Ended   bool   `json:"ended"`
	EndedAt uint64 `json:"ended_at,omitempty"`
	// Withheld lists events whose content is not in an export (hidden
	// from the players); the chain runs through their hashes.
	Withheld []EventRef `json:"withheld,omitempty"`
	// Signers are the keys that signed the events, in the order they first
	// sign; Unsigned counts events stored before the ledger signed.
	Signers  []Signer `json:"signers"`
	Unsigned int      `json:"unsigned"`
	// Authorship says whether the events are proven to be the ledger's
	// the auditor trusts, and on what that rests.
	Authorship Authorship `json:"authorship"`
	// KeptHeads are the head hashes given to check (Options.Heads) and
	// where the chain has each.
	KeptHeads []KeptHead `json:"kept_heads,omitempty"`
	Checks    []Check    `json:"checks"`
	Periods   []Period   `json:"periods"`
	// Players holds the statistics of each player, sorted by id; All sums
	// every player.
	Players []PlayerStats `json:"players"`
	All     PlayerStats   `json:"all"`
}

// Signer is one key that signed events of the audited battle.
type Signer struct {
	// Key is the hex Ed25519 public key; Fingerprint its first 16 digits.
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	// Events counts the events it signed.
	Events int `json:"events"`
	// Trust says why the audit took it for the ledger's: "key file" (the
	// live ledger's keys), "export header" (the first key an export
	// names), "key change" (endorsed by the key before), "imported"
	// (another ledger's key, trusted for the battles imported from it), or
	// "first signer" (nothing else was given: compare the fingerprint with
	// the one `ledger audit` or `ledger log` shows on the ledger itself).
	Trust string `json:"trust"`
}

// Anchors of an Authorship: what the auditor's trust in the keys rests on.
const (
	// AnchorKeyFile: the live ledger's own key file.
	AnchorKeyFile = "key file"
	// AnchorTrustedKey: the fingerprint the auditor gave (--key).
	AnchorTrustedKey = "trusted key"
	// AnchorKeptHead: a head hash the auditor kept, of an event signed by
	// the key it names.
	AnchorKeptHead = "kept head"
)

// Authorship is what the audit proves of who wrote the battle's events.
// An export names its own keys: without a key the auditor trusts (the key
// file, Options.Trust, or a kept head of a signed event) anyone who can
// write the file can name any key, or none, and the events' author is not
// proven, however well the other checks pass.
type Authorship struct {
	// Proven is true when Anchor is set, no signature fails, and every
	// event is signed by a trusted key or bound by the hash chain to a
	// later event that is.
	Proven bool `json:"proven"`
	// Anchor is what the trust rests on (AnchorKeyFile, AnchorTrustedKey,
	// AnchorKeptHead); empty when the auditor gave nothing.
	Anchor string `json:"anchor,omitempty"`
	// Key is the fingerprint of the key the battle's events are signed by
	// (the first of its signers); empty when none is.
	Key string `json:"key,omitempty"`
	// Unbound counts the unsigned events no later signed event binds:
	// their author is proven by nothing in the battle.
	Unbound int `json:"unbound"`
}

// KeptHead is a head hash someone kept, and the event of the chain that
// has it (Version 0: none).
type KeptHead struct {
	Hash    string `json:"hash"`
	Version uint64 `json:"version,omitempty"`
	Found   bool   `json:"found"`
}

// Check is one check of the audit and what it found.
type Check struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Status is Fail if any finding fails, else Pending if any is pending.
	Status Status `json:"status"`
	// Checked counts the items the check examined (events, rolls, orders).
	Checked int `json:"checked"`
	// Summary says in a few words what was checked; SummaryWords are the
	// format and values it is printed from (summarize), for the reader's
	// language (i18n says them by their format, app says them at the door).
	Summary      string      `json:"summary"`
	SummaryWords rules.Words `json:"-"`
	Findings     []Finding   `json:"findings,omitempty"`
}

// summarize sets c's Summary, printed from format and args, and keeps them.
func (c *Check) summarize(format string, args ...any) {
	c.Summary = fmt.Sprintf(format, args...)
	c.SummaryWords = rules.Words{Format: format, Args: sayArgs(args)}
}

// EventRef names one event of the audited stream.
type EventRef struct {
	Version uint64 `json:"version"`
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
}

// String renders the reference as "v8 (c/b/cmd/0, order.resolved)".
func (r EventRef) String() string {
	var parts []string
	if r.ID != "" {
		parts = append(parts, r.ID)
	}
	if r.Type != "" {
		parts = append(parts, r.Type)
	}
	if len(parts) == 0 {
		return "v" + strconv.FormatUint(r.Version, 10)
	}
	return fmt.Sprintf("v%d (%s)", r.Version, strings.Join(parts, ", "))
}

// Finding is one thing a check found wrong (Fail) or could not yet prove
// (Pending), naming the event where it shows.
type Finding struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	EventRef
	// Counter is the roll concerned, if any.
	Counter uint64 `json:"counter,omitempty"`
	Message string `json:"message"`
	// Words are the format and values Message is printed from (add), for
	// the reader's language: i18n says them by their format, never by
	// reading Message back.
	Words rules.Words `json:"-"`
	// Expected and Recorded are dice values: what recomputation or the
	// cited roll gives, and what the event records.
	Expected []int `json:"expected,omitempty"`
	Recorded []int `json:"recorded,omitempty"`
}

// String renders the finding on one line, naming its check and event.
func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s", f.Check, f.EventRef, f.Message)
	if f.Expected != nil || f.Recorded != nil {
		s += fmt.Sprintf(" (expected %s, recorded %s)", Ints(f.Expected), Ints(f.Recorded))
	}
	return s
}

// Said is String's format and values, the message said from its own
// (phrase.audit.failed, its message a part of phrase.audit.finding).
func (f Finding) Said() rules.Words {
	var msg any = f.Message
	if f.Words.Format != "" {
		msg = f.Words
	}
	if f.Expected != nil || f.Recorded != nil {
		return rules.Words{Format: "%s: %s: %s (expected %s, recorded %s)", Args: []any{f.Check, f.EventRef.String(), msg, Ints(f.Expected), Ints(f.Recorded)}}
	}
	return rules.Words{Format: "%s: %s: %s", Args: []any{f.Check, f.EventRef.String(), msg}}
}

// Ints formats dice values as "3+4" ("-" for none).
func Ints(v []int) string {
	if len(v) == 0 {
		return "-"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, "+")
}

// Period is one dice seed period as the log records it.
type Period struct {
	Period      string `json:"period"`
	Scheme      string `json:"scheme"`
	Commitment  string `json:"commitment"`
	CommittedAt uint64 `json:"committed_at"`
	// Seeds are the players' seeds of the period, in log order.
	Seeds []PlayerSeed `json:"player_seeds"`
	// DigitalRolls counts the period's digital rolls; Recomputed those
	// whose values the audit recomputed and found equal.
	DigitalRolls int `json:"digital_rolls"`
	Recomputed   int `json:"recomputed"`
	// RevealedAt is the version of its dice.revealed (0: not revealed),
	// Seed the revealed seed, Verified whether it matches the commitment.
	RevealedAt uint64 `json:"revealed_at,omitempty"`
	Seed       string `json:"seed,omitempty"`
	Verified   bool   `json:"verified"`
}

// PlayerSeed is one dice.seed_added: the player it names, the seed, who
// entered it (the command's actor) and its version.
type PlayerSeed struct {
	Player    string `json:"player"`
	Seed      string `json:"seed"`
	EnteredBy string `json:"entered_by"`
	Version   uint64 `json:"version"`
}

// Failed reports whether any check failed. Pending findings are not failures.
func (r *Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Failures returns every failing finding, check by check, in log order
// within a check.
func (r *Report) Failures() []Finding {
	var out []Finding
	for _, c := range r.Checks {
		for _, f := range c.Findings {
			if f.Status == Fail {
				out = append(out, f)
			}
		}
	}
	return out
}

// Check returns the check with the given id.
func (r *Report) Check(id string) (Check, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// Err returns nil when no check failed, else an *Error naming the failures.
func (r *Report) Err() error {
	f := r.Failures()
	if len(f) == 0 {
		return nil
	}
	return &Error{Campaign: r.Campaign, Battle: r.Battle, Failures: f}
}

// Error is a failed audit: every failing finding, the first named in the
// message.
type Error struct {
	Campaign, Battle string
	Failures         []Finding
}

func (e *Error) Error() string { return e.Said().String() }

// Said is the message's format and values (phrase.audit.failed), the
// first failure said from its own (Finding.Said).
func (e *Error) Said() rules.Words {
	if n := len(e.Failures) - 1; n > 0 {
		return rules.Words{Format: "audit of %s/%s failed: %s (and %d more)", Args: []any{e.Campaign, e.Battle, e.Failures[0].Said(), n}}
	}
	return rules.Words{Format: "audit of %s/%s failed: %s", Args: []any{e.Campaign, e.Battle, e.Failures[0].Said()}}
}
