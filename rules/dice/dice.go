// Package dice derives provable digital dice rolls (schemes "ledger-dice-v3",
// and "ledger-dice-v1" and "ledger-dice-v2" for the rolls made by them).
//
// A secret 32-byte seed is committed by its SHA-256 hash before a period of
// play (a battle, or one turn when seeds rotate per turn) and revealed after
// it. Every roll is a pure function of that seed, the battle and period ids,
// the players' own seeds and a battle-wide roll counter, and, from
// ledger-dice-v2 on, of the nonce the player's device sent with the command;
// so anyone holding the revealed seed can recompute every roll offline and
// check it against the ledger, and whoever holds the seed cannot compute a
// player's roll before the player's command arrives. ledger-dice-v2 also
// mixed in the id of the command, which whoever sends the command chooses
// freely: the seed holder could try ids offline and send the one giving the
// roll it wanted. ledger-dice-v3 mixes in nothing the sender chooses. The derivation is HMAC-SHA256 over a length-prefixed message,
// turned into faces by rejection sampling (no modulo bias, no floats).
//
// The package is pure: standard library only, no randomness, no clock, no
// I/O. Generating a seed is the caller's job (crypto/rand, outside the rules
// engine). The byte-by-byte specification, test vectors, a Python reference
// implementation and the trust model are in docs/dice.md.
package dice

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Scheme names. A scheme's name is the first bytes of every HMAC message and
// belongs in every commitment record, so that one scheme can never be
// confused with another. Never change the bytes of an existing scheme: a
// different derivation gets a new name.
const (
	// SchemeV1 derives a roll from the seed, battle, period, players'
	// seeds and counter (Roll). Battles begun with it stay verifiable.
	SchemeV1 = "ledger-dice-v1"
	// SchemeV2 mixes in, after the counter, the id of the command the roll
	// settles and the nonce from the device of the player whose own
	// command it is (RollV2). The command id is chosen by the sender: a
	// roll without a player's nonce is steerable by whoever holds the seed
	// and sends the command. Rolls made by it stay verifiable; the ledger
	// makes no new ones (RollScheme).
	SchemeV2 = "ledger-dice-v2"
	// SchemeV3 mixes in, after the counter, only the nonce from the device
	// of the player whose own command it is (RollV3): no command id, nothing
	// the sender chooses.
	SchemeV3 = "ledger-dice-v3"
	// Scheme is the scheme new battles use (the default ruleset's
	// dice.scheme).
	Scheme = SchemeV3
)

// Known reports whether scheme is one this package derives.
func Known(scheme string) bool {
	return scheme == SchemeV1 || scheme == SchemeV2 || scheme == SchemeV3
}

// RollScheme is the scheme by which a new roll of a period committed under
// scheme is derived: ledger-dice-v1 for a v1 period (it mixes in nothing
// the sender chooses), ledger-dice-v3 for a v2 or v3 period (a battle begun
// under v2 rolls by v3 from the first roll this program makes in it, and
// records so on the roll), "" for a scheme this package does not know.
func RollScheme(period string) string {
	switch period {
	case SchemeV1:
		return SchemeV1
	case SchemeV2, SchemeV3:
		return SchemeV3
	}
	return ""
}

// Nonce lengths, in bytes: a nonce is none (0 bytes) or MinNonce..MaxNonce
// bytes, written as 16 to 64 hex digits.
const (
	MinNonce = 8
	MaxNonce = 32
)

// ParseNonce decodes a nonce from hex (either case): "" is no nonce, else
// 16 to 64 hex digits, an even number of them.
func ParseNonce(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) < MinNonce || len(b) > MaxNonce {
		return nil, fmt.Errorf("dice: nonce %.80q: want %d to %d hex digits", s, 2*MinNonce, 2*MaxNonce)
	}
	return b, nil
}

// MaxDice bounds the number of dice in one roll, so a bad command cannot make
// the derivation run for long. It is far above any roll in the rules.
const MaxDice = 1000

// ErrMismatch is returned (wrapped) by Verify when a revealed seed does not
// hash to its commitment: the seed or the commitment was forged.
var ErrMismatch = errors.New("dice: seed does not match commitment")

// Seed is the secret key of a period's dice. It must come from a
// cryptographically secure source and stay sealed until the period's reveal:
// whoever reads it earlier can predict every roll of the period.
type Seed [32]byte

// ParseSeed decodes a seed from 64 hexadecimal digits (either case).
func ParseSeed(s string) (Seed, error) {
	var seed Seed
	if len(s) != 2*len(seed) {
		return Seed{}, fmt.Errorf("dice: seed must be %d hex digits, got %d", 2*len(seed), len(s))
	}
	if _, err := hex.Decode(seed[:], []byte(s)); err != nil {
		return Seed{}, fmt.Errorf("dice: seed: %w", err)
	}
	return seed, nil
}

// Hex returns the seed as 64 lowercase hex digits: the form it is revealed in.
func (s Seed) Hex() string { return hex.EncodeToString(s[:]) }

// Commitment returns the lowercase hex SHA-256 of the 32 seed bytes (not of
// their hex text). It is published before the period's first roll; it hides
// the seed because the seed is 256 random bits, and binds the operator to it.
func (s Seed) Commitment() string {
	sum := sha256.Sum256(s[:])
	return hex.EncodeToString(sum[:])
}

// String redacts the seed so that printing an Input or a Seed with %v or %s
// does not leak it into logs before the reveal. Use Hex to reveal it.
func (s Seed) String() string { return "dice.Seed(sha256:" + s.Commitment()[:12] + "…)" }

// GoString redacts the seed for %#v, like String.
func (s Seed) GoString() string { return s.String() }

// Verify checks a revealed seed against its commitment, both in hex (either
// case). It returns an error wrapping ErrMismatch when they do not match, or
// a parse error when either is malformed.
func Verify(seedHex, commitmentHex string) error {
	seed, err := ParseSeed(seedHex)
	if err != nil {
		return err
	}
	want, err := hex.DecodeString(commitmentHex)
	if err != nil || len(want) != sha256.Size {
		return fmt.Errorf("dice: commitment must be %d hex digits: %q", 2*sha256.Size, commitmentHex)
	}
	got := sha256.Sum256(seed[:])
	if subtle.ConstantTimeCompare(got[:], want) != 1 {
		return fmt.Errorf("%w: sha256(seed) = %s, commitment = %s", ErrMismatch, seed.Commitment(), strings.ToLower(commitmentHex))
	}
	return nil
}

// Input is everything a period's rolls depend on apart from the roll counter.
// All strings must be valid UTF-8 (they travel through JSON, which would
// silently rewrite invalid bytes and break recomputation).
type Input struct {
	// Seed is the period's secret seed, revealed after the period.
	Seed Seed
	// PlayerSeeds maps a player id to the seed that player added after the
	// commitment and before the period's first roll. Map order is irrelevant:
	// entries are encoded sorted by player id. Nil or empty means none.
	PlayerSeeds map[string]string
	// Battle is the battle id; it must not be empty.
	Battle string
	// Period is the id of the period the seed covers, fixed when the seed is
	// committed: by convention "battle" for one seed per battle, or the turn
	// number in decimal ("1", "2", ...) when seeds rotate per turn. It must
	// not be empty.
	Period string
}

// Roll returns n dice of the given number of sides (2..255) for the roll with
// the given counter, by ledger-dice-v1. The counter numbers the rolls
// across the whole battle, from 1, without gaps, so a skipped or repeated
// roll is visible.
//
// Each face has probability exactly 1/sides per die given a uniform byte
// stream: bytes at or above 256 - 256 mod sides are rejected, never folded.
func Roll(in Input, counter uint64, n, sides int) ([]int, error) {
	return Derive(SchemeV1, in, Draw{Counter: counter}, n, sides)
}

// RollV2 returns n dice of the given number of sides for the roll with the
// given counter that settles the command with id command, by
// ledger-dice-v2. nonce is the fresh randomness the device of the player
// whose own command it is sent with it (docs/dice.md), or nil when the
// command carried no player's nonce (the umpire's or the operator's own
// commands, and commands entered for a player): such a roll is as
// predictable as a ledger-dice-v1 roll to whoever holds the seed.
func RollV2(in Input, counter uint64, command string, nonce []byte, n, sides int) ([]int, error) {
	return Derive(SchemeV2, in, Draw{Counter: counter, Command: command, Nonce: nonce}, n, sides)
}

// RollV3 returns n dice of the given number of sides for the roll with the
// given counter, by ledger-dice-v3. nonce is the fresh randomness the
// device of the player whose own command it is sent with it, or nil when
// the command carried no player's nonce: such a roll is as predictable as a
// ledger-dice-v1 roll to whoever holds the seed, but whoever sends the
// command can choose nothing in it (no command id is mixed in).
func RollV3(in Input, counter uint64, nonce []byte, n, sides int) ([]int, error) {
	return Derive(SchemeV3, in, Draw{Counter: counter, Nonce: nonce}, n, sides)
}

// Draw is what sets one roll of a period apart from the others.
type Draw struct {
	// Counter is the roll's place among all the battle's rolls, from 1.
	Counter uint64
	// Command is the id of the command the roll settles (ledger-dice-v2
	// only; empty for v1 and v3).
	Command string
	// Nonce is the nonce of the player whose own command it is, 0 or
	// MinNonce..MaxNonce bytes (ledger-dice-v2 and v3; none for v1).
	Nonce []byte
}

// Derive returns n dice of the given number of sides for one roll by the
// named scheme: Roll for ledger-dice-v1, RollV2 for ledger-dice-v2, RollV3
// for ledger-dice-v3. A verifier calls it with the scheme the roll records,
// or else its period's commitment.
func Derive(scheme string, in Input, d Draw, n, sides int) ([]int, error) {
	if sides < 2 || sides > 255 {
		return nil, fmt.Errorf("dice: sides %d out of range 2..255", sides)
	}
	if n < 1 || n > MaxDice {
		return nil, fmt.Errorf("dice: number of dice %d out of range 1..%d", n, MaxDice)
	}
	msg, err := in.message(scheme, d)
	if err != nil {
		return nil, err
	}
	s := newStream(in.Seed, msg)
	out := make([]int, 0, n)
	for len(out) < n {
		b, err := s.next()
		if err != nil {
			return nil, err
		}
		if v, ok := face(b, sides); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// bound returns the rejection bound for a die: the largest multiple of sides
// not above 256. Bytes below it split into equal classes modulo sides.
func bound(sides int) int { return 256 - 256%sides }

// face maps one stream byte to a face in 1..sides, or reports a rejection.
func face(b byte, sides int) (int, bool) {
	if int(b) >= bound(sides) {
		return 0, false
	}
	return int(b)%sides + 1, true
}

// message returns the HMAC message of one roll without its block number:
// the period's prefix, u64(counter), for ledger-dice-v2 str(command) and
// the nonce as u32(length) followed by its bytes, for ledger-dice-v3 the
// nonce alone the same way.
func (in Input) message(scheme string, d Draw) ([]byte, error) {
	if d.Counter == 0 {
		return nil, errors.New("dice: roll counter starts at 1, got 0")
	}
	switch scheme {
	case SchemeV1:
		if d.Command != "" || len(d.Nonce) > 0 {
			return nil, errors.New("dice: ledger-dice-v1 mixes no command id and no nonce")
		}
	case SchemeV2:
		switch {
		case d.Command == "":
			return nil, errors.New("dice: ledger-dice-v2 needs the id of the command the roll settles")
		case !utf8.ValidString(d.Command):
			return nil, fmt.Errorf("dice: command id is not valid UTF-8: %q", d.Command)
		case uint64(len(d.Command)) > math.MaxUint32:
			return nil, errors.New("dice: command id is longer than 2^32-1 bytes")
		case len(d.Nonce) != 0 && (len(d.Nonce) < MinNonce || len(d.Nonce) > MaxNonce):
			return nil, fmt.Errorf("dice: a nonce is %d to %d bytes, got %d", MinNonce, MaxNonce, len(d.Nonce))
		}
	case SchemeV3:
		switch {
		case d.Command != "":
			return nil, errors.New("dice: ledger-dice-v3 mixes in no command id")
		case len(d.Nonce) != 0 && (len(d.Nonce) < MinNonce || len(d.Nonce) > MaxNonce):
			return nil, fmt.Errorf("dice: a nonce is %d to %d bytes, got %d", MinNonce, MaxNonce, len(d.Nonce))
		}
	default:
		return nil, fmt.Errorf("dice: scheme %q is not one this program knows (%s, %s, %s)", scheme, SchemeV1, SchemeV2, SchemeV3)
	}
	buf, err := in.prefix(scheme)
	if err != nil {
		return nil, err
	}
	buf = binary.BigEndian.AppendUint64(buf, d.Counter)
	if scheme == SchemeV2 {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(d.Command)))
		buf = append(buf, d.Command...)
	}
	if scheme != SchemeV1 {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(d.Nonce)))
		buf = append(buf, d.Nonce...)
	}
	return buf, nil
}

// prefix encodes the part of the HMAC message shared by every roll of the
// period: the scheme's name, 0x00, str(battle), str(period), u32(count),
// then for each player seed sorted by player id: str(id), str(seed). str(x)
// is u32(len(x)) followed by the UTF-8 bytes of x; integers are big-endian.
func (in Input) prefix(scheme string) ([]byte, error) {
	if in.Battle == "" {
		return nil, errors.New("dice: battle id is empty")
	}
	if in.Period == "" {
		return nil, errors.New("dice: period id is empty")
	}
	ids := make([]string, 0, len(in.PlayerSeeds))
	for id := range in.PlayerSeeds {
		ids = append(ids, id)
	}
	slices.Sort(ids) // Go compares strings bytewise: the documented order
	if uint64(len(ids)) > math.MaxUint32 {
		return nil, errors.New("dice: too many player seeds")
	}

	buf := append([]byte(scheme), 0x00)
	var err error
	str := func(what, s string) {
		switch {
		case err != nil:
		case !utf8.ValidString(s):
			err = fmt.Errorf("dice: %s is not valid UTF-8: %q", what, s)
		case uint64(len(s)) > math.MaxUint32:
			err = fmt.Errorf("dice: %s is longer than 2^32-1 bytes", what)
		default:
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
			buf = append(buf, s...)
		}
	}
	str("battle id", in.Battle)
	str("period id", in.Period)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(ids)))
	for _, id := range ids {
		if id == "" {
			return nil, errors.New("dice: player seed with an empty player id")
		}
		if in.PlayerSeeds[id] == "" {
			return nil, fmt.Errorf("dice: player %q has an empty seed", id)
		}
		str("player id", id)
		str("seed of player "+id, in.PlayerSeeds[id])
	}
	return buf, err
}

// stream is the byte stream of one roll: HMAC-SHA256(seed, message ||
// u32(j)) for blocks j = 0, 1, 2, ... concatenated, where message is the
// roll's message without its block number (Input.message).
type stream struct {
	mac   hash.Hash
	msg   []byte // message || j; the last 4 bytes are rewritten per block
	j     uint64 // next block number; uint64 so running out of uint32 is detectable
	block []byte
	pos   int
}

func newStream(seed Seed, message []byte) *stream {
	msg := append(slices.Clip(message), 0, 0, 0, 0)
	return &stream{mac: hmac.New(sha256.New, seed[:]), msg: msg}
}

// next returns the next byte of the stream.
func (s *stream) next() (byte, error) {
	if s.pos == len(s.block) {
		if s.j > math.MaxUint32 {
			// Unreachable in practice: 2^32 blocks of 32 bytes.
			return 0, errors.New("dice: byte stream exhausted")
		}
		binary.BigEndian.PutUint32(s.msg[len(s.msg)-4:], uint32(s.j))
		s.mac.Reset()
		s.mac.Write(s.msg)
		s.block = s.mac.Sum(s.block[:0])
		s.pos = 0
		s.j++
	}
	b := s.block[s.pos]
	s.pos++
	return b, nil
}
