package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

var pageTemplate = template.Must(template.ParseFS(static, "static/index.html"))

// pageData fills index.html: the language and its texts, which the script
// reads from the page.
type pageData struct {
	Lang  string
	Title string
	Texts template.JS
	Langs []string
}

// handlePage serves the page shell; the script draws the home, campaign or
// battle view from the path and fetches the API with the stored token.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	lang := s.lang(r)
	texts, err := json.Marshal(s.cat.Page(lang))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pageData{Lang: lang, Title: s.cat.Text(lang, "app.title"), Texts: template.JS(texts), Langs: []string{"en", "ru"}}); err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", pageCSP)
	_, _ = w.Write(buf.Bytes())
}

// staticFS is the page's files.
func staticFS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	return sub
}
