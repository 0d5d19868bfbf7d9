package dice

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"sort"
	"testing"
)

// vector is one published test vector of ledger-dice-v1 (docs/dice.md). The
// expected values were computed by the Python reference implementation in
// docs/dice.md, not by this package.
type vector struct {
	name    string
	seed    string
	commit  string
	battle  string
	period  string
	players map[string]string
	counter uint64
	n       int
	sides   int
	want    []int
	prefix  string // hex of the message before counter || j
	block0  string // hex of HMAC block 0: the first 32 bytes of the stream
}

const (
	seed1 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	seed2 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	comm1 = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
	comm2 = "954d5a49fd70d9b8bcdb35d252267829957f7ef7fa6c74f88419bdc5e82209f4"

	prefixAusterlitz = "6c65646765722d646963652d7631000000000f6175737465726c69747a2d3138303500000006626174746c6500000000"
	prefixBorodino   = "6c65646765722d646963652d7631000000000d626f726f64696e6f2d3138313200000006626174746c650000000200000009702d6b7574757a6f760000001174756c612073616d6f76617220313831320000000a702d6e61706f6c656f6e0000000a6169676c652d37663363"
)

var borodinoPlayers = map[string]string{"p-napoleon": "aigle-7f3c", "p-kutuzov": "tula samovar 1812"}

var vectors = []vector{
	{
		name: "no player seeds", seed: seed1, commit: comm1,
		battle: "austerlitz-1805", period: "battle", counter: 1, n: 2, sides: 6,
		want:   []int{1, 2},
		prefix: prefixAusterlitz,
		block0: "90bbd0a98b8aa76349b9fc2dfcbc08523851cee1f9443dd81d09aa64e2ee0021",
	},
	{
		name: "two player seeds", seed: seed2, commit: comm2,
		battle: "borodino-1812", period: "battle", players: borodinoPlayers, counter: 1, n: 3, sides: 6,
		want:   []int{3, 3, 3},
		prefix: prefixBorodino,
		block0: "b07a6e916ef1ebb9974a459ac4d0fa080adc80ada6ec18e718d46ca83d8d023a",
	},
	{
		name: "per-turn period", seed: seed2, commit: comm2,
		battle: "borodino-1812", period: "3", players: borodinoPlayers, counter: 42, n: 6, sides: 6,
		want:   []int{2, 2, 3, 3, 6, 5},
		prefix: "6c65646765722d646963652d7631000000000d626f726f64696e6f2d3138313200000001330000000200000009702d6b7574757a6f760000001174756c612073616d6f76617220313831320000000a702d6e61706f6c656f6e0000000a6169676c652d37663363",
		block0: "fd1937868cef46d11b6eb85c06c149247be3b1022f21908a593aa62b8ad6d677",
	},
	{
		// Stream 69 41 f8 ff 02 65 a6 ...: 0xf8 = 248 < 252 is accepted (face
		// 3), 0xff = 255 >= 252 is rejected and the next byte, 0x02, gives 3.
		name: "rejection", seed: seed2, commit: comm2,
		battle: "borodino-1812", period: "battle", players: borodinoPlayers, counter: 31, n: 6, sides: 6,
		want:   []int{4, 6, 3, 3, 6, 5},
		prefix: prefixBorodino,
		block0: "6941f8ff0265a68186717f2d9dfd1bc39b35830ba3c0eba280920726d8cc2926",
	},
	{
		// Ids sort by UTF-8 bytes: "p-Zed" < "p-zoë" < "p-élodie".
		name: "d20, non-ASCII ids", seed: seed1, commit: comm1,
		battle: "wagram-1809", period: "battle",
		players: map[string]string{"p-zoë": "⚔ six", "p-élodie": "ça ira", "p-Zed": "Z"},
		counter: 7, n: 4, sides: 20,
		want:   []int{13, 19, 13, 20},
		prefix: "6c65646765722d646963652d7631000000000b77616772616d2d3138303900000006626174746c650000000300000005702d5a6564000000015a00000006702d7a6fc3ab00000007e29a942073697800000009702dc3a96c6f64696500000007c3a76120697261",
		block0: "70fd76e8b3bdd680b9c6c351c9db5dea347ad3290632024463c3a71879bfceda",
	},
	{
		name: "coin, no rejection possible", seed: seed1, commit: comm1,
		battle: "austerlitz-1805", period: "battle", counter: 2, n: 8, sides: 2,
		want:   []int{1, 1, 1, 2, 2, 1, 2, 1},
		prefix: prefixAusterlitz,
		block0: "a6da32fded407360b274d8fb4dae1bd593b3a16c30109762972d8fe7772ee0fb",
	},
	{
		// Bound 129: about half the bytes are rejected; 40 dice use 97 bytes.
		name: "129 sides, four blocks", seed: seed2, commit: comm2,
		battle: "borodino-1812", period: "battle", players: borodinoPlayers, counter: 5, n: 40, sides: 129,
		want: []int{122, 95, 34, 65, 58, 108, 10, 117, 109, 16, 97, 60, 85, 15, 93, 56, 118, 34, 5, 121,
			117, 46, 51, 93, 87, 99, 43, 22, 51, 86, 88, 24, 111, 97, 56, 23, 61, 117, 1, 47},
		prefix: prefixBorodino,
		block0: "bcad79f5aa5e9521ffc7ea40b1fb396b0974c9d56cb60fe9db603b96be540e5c",
	},
}

func (v vector) input(tb testing.TB) Input {
	tb.Helper()
	seed, err := ParseSeed(v.seed)
	if err != nil {
		tb.Fatal(err)
	}
	return Input{Seed: seed, PlayerSeeds: v.players, Battle: v.battle, Period: v.period}
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			in := v.input(t)
			got, err := Roll(in, v.counter, v.n, v.sides)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, v.want) {
				t.Errorf("Roll = %v, want %v", got, v.want)
			}
			if c := in.Seed.Commitment(); c != v.commit {
				t.Errorf("Commitment = %s, want %s", c, v.commit)
			}
			if err := Verify(v.seed, v.commit); err != nil {
				t.Errorf("Verify: %v", err)
			}
			prefix, err := in.prefix()
			if err != nil {
				t.Fatal(err)
			}
			if h := hex.EncodeToString(prefix); h != v.prefix {
				t.Errorf("prefix = %s, want %s", h, v.prefix)
			}
			if h := hex.EncodeToString(streamBytes(t, in, v.counter, 32)); h != v.block0 {
				t.Errorf("block 0 = %s, want %s", h, v.block0)
			}
			if ref := refRoll(in, v.counter, v.n, v.sides); !slices.Equal(ref, v.want) {
				t.Errorf("reference Roll = %v, want %v", ref, v.want)
			}
		})
	}
}

// streamBytes returns the first k bytes of a roll's stream.
func streamBytes(tb testing.TB, in Input, counter uint64, k int) []byte {
	tb.Helper()
	prefix, err := in.prefix()
	if err != nil {
		tb.Fatal(err)
	}
	s := newStream(in.Seed, prefix, counter)
	out := make([]byte, k)
	for i := range out {
		if out[i], err = s.next(); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// refRoll is a second, deliberately plain implementation of ledger-dice-v1,
// sharing no code with the package: it builds each message from scratch with
// binary.Write, keys a fresh HMAC per block and scans the whole block.
func refRoll(in Input, counter uint64, n, sides int) []int {
	writeStr := func(buf *bytes.Buffer, s string) {
		binary.Write(buf, binary.BigEndian, uint32(len(s)))
		buf.WriteString(s)
	}
	ids := []string{}
	for id := range in.PlayerSeeds {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	limit := 256 - 256%sides
	var out []int
	for j := uint32(0); ; j++ {
		var msg bytes.Buffer
		msg.WriteString("ledger-dice-v1")
		msg.WriteByte(0)
		writeStr(&msg, in.Battle)
		writeStr(&msg, in.Period)
		binary.Write(&msg, binary.BigEndian, uint32(len(ids)))
		for _, id := range ids {
			writeStr(&msg, id)
			writeStr(&msg, in.PlayerSeeds[id])
		}
		binary.Write(&msg, binary.BigEndian, counter)
		binary.Write(&msg, binary.BigEndian, j)
		mac := hmac.New(sha256.New, in.Seed[:])
		mac.Write(msg.Bytes())
		for _, b := range mac.Sum(nil) {
			if int(b) < limit {
				out = append(out, int(b)%sides+1)
			}
			if len(out) == n {
				return out
			}
		}
	}
}

// TestAgainstReference compares Roll with refRoll over many inputs derived
// from a hash chain (no math/rand), every die size and varied dice counts.
func TestAgainstReference(t *testing.T) {
	h := sha256.Sum256([]byte("ledger-dice-v1 reference test"))
	next := func() [32]byte { h = sha256.Sum256(h[:]); return h }
	for i := range 600 {
		r := next()
		in := Input{
			Seed:        Seed(next()),
			Battle:      "battle-" + hex.EncodeToString(r[:int(r[0]%6)+1]),
			Period:      hex.EncodeToString(r[8 : 8+int(r[1]%4)+1]),
			PlayerSeeds: map[string]string{},
		}
		for range int(r[2] % 5) {
			q := next()
			in.PlayerSeeds["p"+hex.EncodeToString(q[:int(q[0]%3)+1])] = hex.EncodeToString(q[4 : 4+int(q[1]%8)+1])
		}
		sides := 2 + i%254
		n := 1 + int(r[3])%70
		counter := binary.BigEndian.Uint64(r[16:24])%1_000_000 + 1
		got, err := Roll(in, counter, n, sides)
		if err != nil {
			t.Fatal(err)
		}
		if want := refRoll(in, counter, n, sides); !slices.Equal(got, want) {
			t.Fatalf("input %+v counter %d n %d sides %d: Roll = %v, reference = %v", in, counter, n, sides, got, want)
		}
	}
}
