package dice

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func mustInput(tb testing.TB) Input {
	tb.Helper()
	return vectors[1].input(tb)
}

// TestFacesExactlyUniform enumerates every byte for every die size: each face
// is hit by exactly bound/sides accepted bytes and 256 mod sides bytes are
// rejected, so a uniform byte gives each face probability exactly 1/sides.
func TestFacesExactlyUniform(t *testing.T) {
	for sides := 2; sides <= 255; sides++ {
		counts := make([]int, sides+1)
		rejected := 0
		for b := range 256 {
			v, ok := face(byte(b), sides)
			if !ok {
				rejected++
				continue
			}
			if v < 1 || v > sides {
				t.Fatalf("sides %d: byte %d gives face %d", sides, b, v)
			}
			counts[v]++
		}
		if rejected != 256%sides || bound(sides)%sides != 0 {
			t.Errorf("sides %d: %d bytes rejected, bound %d", sides, rejected, bound(sides))
		}
		for v := 1; v <= sides; v++ {
			if counts[v] != bound(sides)/sides {
				t.Errorf("sides %d: face %d hit by %d bytes, want %d", sides, v, counts[v], bound(sides)/sides)
			}
		}
	}
	if bound(6) != 252 || 252/6 != 42 {
		t.Errorf("d6 bound = %d", bound(6))
	}
}

// TestChiSquareD6 checks 60,000 single-die rolls (counters 1..60000) and
// 12,000 six-die rolls against the 99.9% chi-square bound for 5 degrees of
// freedom. The inputs are fixed, so the outcome is too: this is a regression
// check on the derivation, not a random experiment.
func TestChiSquareD6(t *testing.T) {
	in := mustInput(t)
	check := func(name string, rolls, n int) {
		counts := make([]int, 6)
		for c := uint64(1); c <= uint64(rolls); c++ {
			vs, err := Roll(in, c, n, 6)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				counts[v-1]++
			}
		}
		stat, crit := ChiSquare(counts), ChiSquareCritical999(5)
		t.Logf("%s: counts %v, chi-square %.3f (99.9%% bound %.3f)", name, counts, stat, crit)
		if stat > crit {
			t.Errorf("%s: chi-square %.3f > %.3f, counts %v", name, stat, crit, counts)
		}
	}
	check("60000 x 1d6", 60000, 1)
	check("12000 x 6d6", 12000, 6)
}

// TestChiSquareOtherDice covers dice with heavy (129) and light (255)
// rejection and no rejection (8), where the df > 20 branch is used too.
func TestChiSquareOtherDice(t *testing.T) {
	in := mustInput(t)
	for _, sides := range []int{8, 10, 20, 129, 255} {
		counts := make([]int, sides)
		vs, err := Roll(in, 1, MaxDice, sides)
		if err != nil {
			t.Fatal(err)
		}
		for c := uint64(2); len(vs) < 200*sides; c++ {
			more, err := Roll(in, c, MaxDice, sides)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, more...)
		}
		for _, v := range vs {
			counts[v-1]++
		}
		stat, crit := ChiSquare(counts), ChiSquareCritical999(sides-1)
		if stat > crit {
			t.Errorf("d%d: chi-square %.3f > %.3f", sides, stat, crit)
		}
	}
}

func TestDeterministic(t *testing.T) {
	in := mustInput(t)
	a, err := Roll(in, 9, 50, 6)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		b, _ := Roll(in, 9, 50, 6)
		if !slices.Equal(a, b) {
			t.Fatalf("Roll not deterministic: %v then %v", a, b)
		}
	}
	// A longer roll starts with the shorter one: n only says where to stop.
	c, _ := Roll(in, 9, 80, 6)
	if !slices.Equal(a, c[:50]) {
		t.Errorf("roll of 80 does not extend roll of 50")
	}
}

// TestEveryInputMatters changes one input at a time, including changes that
// a careless separator-based encoding would not see, and requires the first
// 32 stream bytes to change.
func TestEveryInputMatters(t *testing.T) {
	base := mustInput(t)
	ref := streamBytes(t, base, 1, 32)
	with := func(f func(*Input)) Input {
		in := base
		in.PlayerSeeds = map[string]string{}
		for k, v := range base.PlayerSeeds {
			in.PlayerSeeds[k] = v
		}
		f(&in)
		return in
	}
	cases := map[string]Input{
		"seed":        with(func(in *Input) { in.Seed[31] ^= 1 }),
		"battle":      with(func(in *Input) { in.Battle = "borodino-1813" }),
		"period":      with(func(in *Input) { in.Period = "1" }),
		"player seed": with(func(in *Input) { in.PlayerSeeds["p-kutuzov"] = "tula samovar 1813" }),
		"player id": with(func(in *Input) {
			delete(in.PlayerSeeds, "p-kutuzov")
			in.PlayerSeeds["p-kutusov"] = "tula samovar 1812"
		}),
		"extra player":    with(func(in *Input) { in.PlayerSeeds["p-ney"] = "x" }),
		"no player seeds": with(func(in *Input) { in.PlayerSeeds = nil }),
		"battle/period boundary": with(func(in *Input) {
			in.Battle, in.Period = base.Battle+base.Period[:1], base.Period[1:]
		}),
		"id/seed boundary": with(func(in *Input) {
			delete(in.PlayerSeeds, "p-napoleon")
			in.PlayerSeeds["p-napoleona"] = "igle-7f3c"
		}),
		"seeds swapped": with(func(in *Input) {
			in.PlayerSeeds["p-kutuzov"], in.PlayerSeeds["p-napoleon"] = base.PlayerSeeds["p-napoleon"], base.PlayerSeeds["p-kutuzov"]
		}),
	}
	seen := map[string]string{string(ref): "base"}
	for name, in := range cases {
		got := string(streamBytes(t, in, 1, 32))
		if other, dup := seen[got]; dup {
			t.Errorf("%s gives the same stream as %s", name, other)
		}
		seen[got] = name
	}
	if bytes.Equal(streamBytes(t, base, 2, 32), ref) {
		t.Errorf("counter 2 gives the same stream as counter 1")
	}
	// Strings that a "player_id=seed" join would confuse.
	a := with(func(in *Input) { in.PlayerSeeds = map[string]string{"a": "b=c"} })
	b := with(func(in *Input) { in.PlayerSeeds = map[string]string{"a=b": "c"} })
	if bytes.Equal(streamBytes(t, a, 1, 32), streamBytes(t, b, 1, 32)) {
		t.Errorf(`{"a": "b=c"} and {"a=b": "c"} give the same stream`)
	}
}

// TestPlayerSeedOrder builds the same player seeds in different insertion
// orders (and relies on Go's randomised map iteration) and requires one
// encoding: entries sorted by player id bytes.
func TestPlayerSeedOrder(t *testing.T) {
	in := mustInput(t)
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = fmt.Sprintf("p-%02d", (i*7)%20)
	}
	var want []int
	for rep := range 30 {
		m := map[string]string{}
		order := slices.Clone(ids)
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, id := range order {
			m[id] = "seed of " + id
		}
		in.PlayerSeeds = m
		got, err := Roll(in, 3, 10, 6)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Fatalf("rep %d: %v, want %v", rep, got, want)
		}
	}
	prefix, err := in.prefix(SchemeV1)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Index(string(prefix), "p-00")
	last := strings.Index(string(prefix), "p-19")
	if first < 0 || last < first {
		t.Errorf("player ids not in ascending order in %q", prefix)
	}
}

func TestRollRefusesBadInput(t *testing.T) {
	good := mustInput(t)
	bad := func(f func(*Input)) Input {
		in := good
		in.PlayerSeeds = map[string]string{"p-a": "x"}
		f(&in)
		return in
	}
	cases := []struct {
		name    string
		in      Input
		counter uint64
		n       int
		sides   int
		wantSub string
	}{
		{"one side", good, 1, 1, 1, "sides 1"},
		{"256 sides", good, 1, 1, 256, "sides 256"},
		{"no dice", good, 1, 0, 6, "number of dice 0"},
		{"too many dice", good, 1, MaxDice + 1, 6, "number of dice 1001"},
		{"counter 0", good, 0, 1, 6, "counter starts at 1"},
		{"empty battle", bad(func(in *Input) { in.Battle = "" }), 1, 1, 6, "battle id is empty"},
		{"empty period", bad(func(in *Input) { in.Period = "" }), 1, 1, 6, "period id is empty"},
		{"empty player id", bad(func(in *Input) { in.PlayerSeeds[""] = "x" }), 1, 1, 6, "empty player id"},
		{"empty player seed", bad(func(in *Input) { in.PlayerSeeds["p-a"] = "" }), 1, 1, 6, `"p-a" has an empty seed`},
		{"invalid UTF-8", bad(func(in *Input) { in.Period = "\xff" }), 1, 1, 6, "period id is not valid UTF-8"},
		{"invalid UTF-8 seed", bad(func(in *Input) { in.PlayerSeeds["p-a"] = "a\xc3" }), 1, 1, 6, "seed of player p-a is not valid UTF-8"},
	}
	for _, c := range cases {
		got, err := Roll(c.in, c.counter, c.n, c.sides)
		if err == nil || !strings.Contains(err.Error(), c.wantSub) || !strings.HasPrefix(err.Error(), "dice: ") {
			t.Errorf("%s: Roll = %v, %v; want error containing %q", c.name, got, err, c.wantSub)
		}
	}
	if _, err := Roll(good, 1<<63, MaxDice, 255); err != nil {
		t.Errorf("largest roll: %v", err)
	}
}

func TestSeedAndCommitment(t *testing.T) {
	seed, err := ParseSeed(strings.ToUpper(seed2))
	if err != nil {
		t.Fatal(err)
	}
	if seed.Hex() != seed2 {
		t.Errorf("Hex = %s", seed.Hex())
	}
	if err := Verify(strings.ToUpper(seed2), strings.ToUpper(comm2)); err != nil {
		t.Errorf("Verify upper case: %v", err)
	}
	err = Verify(seed1, comm2)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), comm1) {
		t.Errorf("Verify(seed1, comm2) = %v, want ErrMismatch naming %s", err, comm1)
	}
	// The commitment hashes the 32 bytes, not the 64 hex characters.
	if err := Verify(seed1, "6c86c6aac5fb24bcf5d9939cb7d7d5645ce39418f449e03b262dd4fa14b4b92b"); !errors.Is(err, ErrMismatch) {
		t.Errorf("Verify against sha256 of the hex text = %v", err)
	}
	for _, s := range []string{"", seed1[:62], seed1 + "00", "zz" + seed1[2:]} {
		if _, err := ParseSeed(s); err == nil {
			t.Errorf("ParseSeed(%q) accepted", s)
		}
		if err := Verify(s, comm1); err == nil || errors.Is(err, ErrMismatch) {
			t.Errorf("Verify(%q) = %v, want a parse error", s, err)
		}
	}
	for _, c := range []string{"", comm1[:62], comm1 + "00", "zz" + comm1[2:]} {
		if err := Verify(seed1, c); err == nil || errors.Is(err, ErrMismatch) {
			t.Errorf("Verify(commitment %q) = %v, want a parse error", c, err)
		}
	}
}

// TestSeedRedacted guards against the sealed seed leaking into logs.
func TestSeedRedacted(t *testing.T) {
	in := mustInput(t)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, arg := range []any{in, in.Seed, &in} {
			out := fmt.Sprintf(verb, arg)
			if strings.Contains(out, seed2) || strings.Contains(out, seed2[:16]) || strings.Contains(out, "159 134 208") {
				t.Errorf("%s of %T leaks the seed: %s", verb, arg, out)
			}
		}
	}
}

// TestPure keeps the package free of randomness, clock and I/O: its non-test
// files may import only these standard packages (tailscale's deptest idea).
func TestPure(t *testing.T) {
	allowed := map[string]bool{
		"crypto/hmac": true, "crypto/sha256": true, "crypto/subtle": true,
		"encoding/binary": true, "encoding/hex": true, "errors": true, "fmt": true,
		"hash": true, "math": true, "slices": true, "strings": true, "unicode/utf8": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %q; package dice must stay pure (no randomness, clock or I/O)", name, path)
			}
		}
	}
}

func BenchmarkRoll3d6(b *testing.B) {
	in := mustInput(b)
	for i := range b.N {
		if _, err := Roll(in, uint64(i)+1, 3, 6); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEveryInputMattersV2: by ledger-dice-v2 the command id and the nonce
// change the stream too, and so does a boundary between them that a
// careless encoding would not see; no v2 stream equals the v1 stream of the
// same inputs.
func TestEveryInputMattersV2(t *testing.T) {
	in := mustInput(t)
	nonce, _ := ParseNonce("00112233445566778899aabbccddeeff")
	base := Draw{Counter: 1, Command: "page-1", Nonce: nonce}
	with := func(f func(*Draw)) Draw {
		d := base
		d.Nonce = slices.Clone(base.Nonce)
		f(&d)
		return d
	}
	cases := map[string]Draw{
		"base":            base,
		"counter":         with(func(d *Draw) { d.Counter = 2 }),
		"command":         with(func(d *Draw) { d.Command = "page-2" }),
		"one nonce bit":   with(func(d *Draw) { d.Nonce[15] ^= 1 }),
		"no nonce":        with(func(d *Draw) { d.Nonce = nil }),
		"shorter nonce":   with(func(d *Draw) { d.Nonce = d.Nonce[:8] }),
		"command | nonce": with(func(d *Draw) { d.Command, d.Nonce = "page-1\x00\x00\x00\x10", d.Nonce[:8] }),
	}
	seen := map[string]string{string(streamBytes(t, in, 1, 32)): "ledger-dice-v1"}
	for name, d := range cases {
		got := string(drawBytes(t, SchemeV2, in, d, 32))
		if other, dup := seen[got]; dup {
			t.Errorf("%s gives the same stream as %s", name, other)
		}
		seen[got] = name
	}
	// The seed still matters: a player who knows the nonce but not the
	// seed knows nothing.
	other := in
	other.Seed[0] ^= 1
	if bytes.Equal(drawBytes(t, SchemeV2, in, base, 32), drawBytes(t, SchemeV2, other, base, 32)) {
		t.Errorf("the seed does not change a v2 stream")
	}
}

func TestDeriveRefusesBadInput(t *testing.T) {
	in := mustInput(t)
	nonce := bytes.Repeat([]byte{7}, 16)
	cases := []struct {
		name    string
		scheme  string
		d       Draw
		wantSub string
	}{
		{"unknown scheme", "ledger-dice-v4", Draw{Counter: 1}, `scheme "ledger-dice-v4"`},
		{"v1 with a command", SchemeV1, Draw{Counter: 1, Command: "c"}, "v1 mixes no command id and no nonce"},
		{"v1 with a nonce", SchemeV1, Draw{Counter: 1, Nonce: nonce}, "v1 mixes no command id and no nonce"},
		{"v2 without a command", SchemeV2, Draw{Counter: 1, Nonce: nonce}, "needs the id of the command"},
		{"v2 counter 0", SchemeV2, Draw{Counter: 0, Command: "c"}, "counter starts at 1"},
		{"v2 short nonce", SchemeV2, Draw{Counter: 1, Command: "c", Nonce: nonce[:7]}, "a nonce is 8 to 32 bytes, got 7"},
		{"v2 long nonce", SchemeV2, Draw{Counter: 1, Command: "c", Nonce: bytes.Repeat([]byte{1}, 33)}, "got 33"},
		{"v2 command not UTF-8", SchemeV2, Draw{Counter: 1, Command: "c\xff"}, "command id is not valid UTF-8"},
		{"v3 with a command", SchemeV3, Draw{Counter: 1, Command: "c", Nonce: nonce}, "v3 mixes in no command id"},
		{"v3 counter 0", SchemeV3, Draw{Counter: 0}, "counter starts at 1"},
		{"v3 short nonce", SchemeV3, Draw{Counter: 1, Nonce: nonce[:7]}, "a nonce is 8 to 32 bytes, got 7"},
	}
	for _, c := range cases {
		got, err := Derive(c.scheme, in, c.d, 2, 6)
		if err == nil || !strings.Contains(err.Error(), c.wantSub) {
			t.Errorf("%s: Derive = %v, %v; want an error containing %q", c.name, got, err, c.wantSub)
		}
	}
	for _, s := range []string{"0011", "zz112233445566778899", strings.Repeat("ab", 33), "0011223344556677f"} {
		if _, err := ParseNonce(s); err == nil {
			t.Errorf("ParseNonce(%q) accepted", s)
		}
	}
	for _, s := range []string{"", "0011223344556677", strings.ToUpper(strings.Repeat("ab", 32))} {
		if _, err := ParseNonce(s); err != nil {
			t.Errorf("ParseNonce(%q): %v", s, err)
		}
	}
	if !Known(SchemeV1) || !Known(SchemeV2) || !Known(SchemeV3) || Known("ledger-dice-v4") || Scheme != SchemeV3 {
		t.Errorf("Known or Scheme wrong")
	}
	for period, want := range map[string]string{SchemeV1: SchemeV1, SchemeV2: SchemeV3, SchemeV3: SchemeV3, "ledger-dice-v4": ""} {
		if got := RollScheme(period); got != want {
			t.Errorf("RollScheme(%s) = %q, want %q", period, got, want)
		}
	}
}

// TestEveryInputMattersV3: by ledger-dice-v3 the counter and the nonce
// change the stream, a nonce's length too; no v3 stream equals the v1 or
// the v2 stream of the same inputs (the scheme's name leads the message).
func TestEveryInputMattersV3(t *testing.T) {
	in := mustInput(t)
	nonce, _ := ParseNonce("00112233445566778899aabbccddeeff")
	base := Draw{Counter: 1, Nonce: nonce}
	with := func(f func(*Draw)) Draw {
		d := base
		d.Nonce = slices.Clone(base.Nonce)
		f(&d)
		return d
	}
	seen := map[string]string{
		string(streamBytes(t, in, 1, 32)): "ledger-dice-v1",
		string(drawBytes(t, SchemeV2, in, Draw{Counter: 1, Command: "page-1", Nonce: nonce}, 32)): "ledger-dice-v2",
	}
	for name, d := range map[string]Draw{
		"base":          base,
		"counter":       with(func(d *Draw) { d.Counter = 2 }),
		"one nonce bit": with(func(d *Draw) { d.Nonce[15] ^= 1 }),
		"no nonce":      with(func(d *Draw) { d.Nonce = nil }),
		"shorter nonce": with(func(d *Draw) { d.Nonce = d.Nonce[:8] }),
	} {
		got := string(drawBytes(t, SchemeV3, in, d, 32))
		if other, dup := seen[got]; dup {
			t.Errorf("%s gives the same stream as %s", name, other)
		}
		seen[got] = name
	}
}
