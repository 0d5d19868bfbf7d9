package web

import (
	"net/http"
	"path"
	"strings"
)

// The headers every answer carries (docs/api.md, "Security headers"):
// nothing the server sends may be framed by another page, sniffed into
// another type, or leak the page's address to another site.
const (
	// pageCSP is the page's policy: its own script and style only, no
	// inline code, no frame around it, no other base, forms only to itself.
	pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
	// dataCSP is every other answer's: JSON, SVG, files are never a
	// document that runs or loads anything, and never framed.
	dataCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	// hsts asks browsers to use HTTPS only, for a year (sent over TLS only).
	hsts = "max-age=31536000"
)

// secure sets the headers on every answer before next writes it.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", dataCSP)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.TLS != nil || s.opts.TLS {
			h.Set("Strict-Transport-Security", hsts)
		}
		next.ServeHTTP(w, r)
	})
}

// assets serves the page's script, style and images: only those, by
// their extension; never the page's template nor a folder listing.
func (s *Server) assets() http.Handler {
	files := http.StripPrefix("/static/", http.FileServerFS(staticFS()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.ToLower(path.Ext(r.URL.Path)) {
		case ".js", ".css", ".png", ".svg", ".woff2":
			files.ServeHTTP(w, r)
		default:
			s.writeError(w, r, errNoRoute)
		}
	})
}
