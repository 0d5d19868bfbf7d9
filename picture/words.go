package picture

import (
	"strings"
	"sync"

	"github.com/clubledger/ledger/i18n"
)

// The picture's words (labels and the titles a browser shows on hover) come
// from the message catalogues (i18n, the "picture." keys and the ledger's
// terms), in Options.Lang; ids and numbers are drawn as they are.

var catalogue = sync.OnceValue(i18n.MustLoad)

// words says the picture's texts in one language.
type words struct {
	cat  *i18n.Catalogue
	lang string
}

func newWords(lang string) words {
	if !i18n.Supported(lang) {
		lang = "en"
	}
	return words{cat: catalogue(), lang: lang}
}

// t says the catalogue's "picture." text for key with values name, value...
func (w words) t(key string, kv ...any) string {
	values := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		name, _ := kv[i].(string)
		values[name] = kv[i+1]
	}
	return w.cat.Render(w.lang, "picture."+key, "", values)
}

// term is the ledger's word for a value of a kind (an id in English).
func (w words) term(kind, value string) string {
	if value == "" {
		return ""
	}
	return w.cat.Term(w.lang, kind, value)
}

// terrain says a terrain's kinds ("difficult,road").
func (w words) terrain(kind string) string {
	if w.lang == "en" {
		return kind
	}
	parts := strings.Split(kind, ",")
	for i, p := range parts {
		parts[i] = w.term("terrain", p)
	}
	return strings.Join(parts, ", ")
}
