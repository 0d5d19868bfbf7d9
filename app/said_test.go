package app

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
)

// TestLogBreaksSaidInRussian: a broken chain and an event the ledger did
// not sign (EventsPage's Chain and Signatures) are said in Russian from
// their format and values (ChainSaid, SignaturesSaid), as the catalogue
// read them back from their English before (issue 29), and not at all in
// English.
func TestLogBreaksSaidInRussian(t *testing.T) {
	ru := &Session{l: &Ledger{cat: i18n.MustLoad()}, lang: "ru"}
	en := &Session{l: ru.l, lang: "en"}
	env := func(v uint64, prev string, raw string) events.Envelope {
		return events.Envelope{ID: "c/b/x/" + string(rune('0'+v)), Campaign: "c", Battle: "b", Version: v, PrevHash: prev, Raw: []byte(raw), Sequence: 10 + v}
	}
	first := env(1, "", `{"a":1}`)
	h := events.Hash(first.Raw)
	chains := map[string][]events.Envelope{
		"цепочка нарушена на версии 2 (событие c/b/x/2): версия 2, а ожидалась 1":                                                          {env(2, "", `{}`)},
		"цепочка нарушена на версии 2 (событие c/b/x/2): prev_hash 0123456789ab… не совпадает с хешем предыдущего события " + h[:12] + "…": {first, env(2, "0123456789abcdef", `{}`)},
		"цепочка нарушена на версии 1 (событие c/b/x/1): нет сохранённой формы для хеша":                                                   {env(1, "", "")},
	}
	for want, evs := range chains {
		err := events.VerifyChain(evs)
		ce, ok := err.(*events.ChainError)
		if !ok {
			t.Fatalf("%v", err)
		}
		if got := ru.said("phrase.chain", ce.Sentence(), ce.Error()); got != want {
			t.Errorf("%s:\n got %q\nwant %q", ce, got, want)
		}
		if got := en.said("phrase.chain", ce.Sentence(), ce.Error()); got != "" {
			t.Errorf("in English: %q", got)
		}
	}

	pub, _, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	key, otherKey := hex.EncodeToString(pub), hex.EncodeToString(other)
	ring := events.NewKeyring(5, events.TrustedKey{Key: key})
	e := env(3, "", `{"id":"c/b/x/3","sig":"!!"}`)
	fp, ofp := events.Fingerprint(key), events.Fingerprint(otherKey)
	signatures := map[string]events.Verified{
		"событие v3 (c/b/x/3, позиция журнала 13) не подписано журналом: у него нет подписи, а подписано каждое событие с позиции журнала 5":   {Err: events.ErrUnsigned},
		"событие v3 (c/b/x/3, позиция журнала 13) не подписано журналом: оно подписано ключом " + ofp + ", а это не ключ журнала (" + fp + ")": {Key: otherKey},
		"событие v3 (c/b/x/3, позиция журнала 13) не подписано журналом: его поле sig — не подпись Ed25519 в base64":                           events.VerifySignatures([]events.Envelope{e})[0],
	}
	for want, v := range signatures {
		_, err := ring.Admit(&e, v)
		ns, ok := err.(*events.NotSignedError)
		if !ok {
			t.Fatalf("%v", err)
		}
		if got := ru.said("phrase.signature", ns.Sentence(), ns.Error()); got != want {
			t.Errorf("%s:\n got %q\nwant %q", ns, got, want)
		}
	}
}
