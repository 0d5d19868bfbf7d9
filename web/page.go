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

// handleServiceWorker serves static/sw.js at the site's root, so that it
// may cover every page (a worker covers only the folder it is served
// from). Its policy is the page's: the worker fetches from this server.
func (s *Server) handleServiceWorker(w http.ResponseWriter, r *http.Request) {
	js, err := fs.ReadFile(static, "static/sw.js")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", pageCSP)
	_, _ = w.Write(js)
}

// manifest is the web app manifest: what a phone needs to install the
// page as an app (its name in the page's language, its icons, where it
// starts).
type manifest struct {
	Name            string         `json:"name"`
	ShortName       string         `json:"short_name"`
	Description     string         `json:"description"`
	Lang            string         `json:"lang"`
	StartURL        string         `json:"start_url"`
	Scope           string         `json:"scope"`
	Display         string         `json:"display"`
	BackgroundColor string         `json:"background_color"`
	ThemeColor      string         `json:"theme_color"`
	Icons           []manifestIcon `json:"icons"`
}

type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose"`
}

// handleManifest serves the manifest in the asker's language.
func (s *Server) handleManifest(w http.ResponseWriter, r *http.Request) {
	lang := s.lang(r)
	m := manifest{
		Name: s.cat.Text(lang, "app.title"), ShortName: s.cat.Text(lang, "app.short_name"), Description: s.cat.Text(lang, "app.description"),
		Lang: lang, StartURL: "/?lang=" + lang, Scope: "/", Display: "standalone",
		BackgroundColor: "#f6f7f9", ThemeColor: "#0b4f8a",
		Icons: []manifestIcon{
			{Src: "/static/icon-192.png", Sizes: "192x192", Type: "image/png", Purpose: "any"},
			{Src: "/static/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "any"},
			{Src: "/static/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
			{Src: "/static/icon.svg", Sizes: "any", Type: "image/svg+xml", Purpose: "any"},
		},
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/manifest+json; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// staticFS is the page's files.
func staticFS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	return sub
}
