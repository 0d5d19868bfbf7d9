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
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(buf.Bytes())
}

// assets serves the page's script and style.
func (s *Server) assets() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}
