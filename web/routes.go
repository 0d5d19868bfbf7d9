package web

import (
	"net/http"
	"strings"

	"github.com/clubledger/ledger/app"
)

// Route is one route of the HTTP API: its method and path pattern, as
// docs/openapi.yaml names it.
type Route struct {
	Method, Path string
}

type route struct {
	Route
	handle http.HandlerFunc
}

// apiRoutes are the API's routes; docs/api.md describes them and
// docs/openapi.yaml publishes them (a test checks they agree).
func (s *Server) apiRoutes() []route {
	const c, b = "/api/campaigns/{campaign}", "/api/campaigns/{campaign}/battles/{battle}"
	r := func(method, path string, h http.HandlerFunc) route { return route{Route{method, path}, h} }
	return []route{
		r("GET", "/healthz", s.handleHealth),
		r("GET", "/readyz", s.handleReady),
		r("GET", "/metrics", s.handleMetrics),
		r("GET", "/api/openapi.yaml", s.handleOpenAPI),
		r("GET", "/api/admin/status", s.handleStatus),
		r("POST", "/api/admin/projections/rebuild", s.handleRebuild),
		r("POST", "/api/admin/projections/verify", s.handleVerify),
		r("POST", "/api/admin/backup", s.handleBackup),
		r("POST", "/api/admin/import", s.handleImport),

		r("GET", "/api/campaigns", s.handleCampaigns),
		r("GET", c, s.handleCampaign),
		r("GET", c+"/events", s.handleCampaignEvents),
		r("GET", c+"/standings", s.handleStandings),
		r("GET", c+"/report", s.handleReport),
		r("POST", c+"/commands/{command}", s.handleCommand),

		r("GET", b+"/state", s.handleState),
		r("GET", b+"/events", s.handleBattleEvents),
		r("GET", b+"/events/stream", s.handleStream),
		r("GET", b+"/replay", s.handleReplay),
		r("GET", b+"/battlefield.svg", s.handleBattlefield),
		r("GET", b+"/odds", s.handleOdds),
		r("GET", b+"/dice", s.handleDice),
		r("GET", b+"/disputes", s.handleDisputes),
		r("GET", b+"/review", s.handleReview),
		r("GET", b+"/audit", s.handleAudit),
		r("GET", b+"/export", s.handleExport),
		r("GET", b+"/report", s.handleReport),
		r("POST", b+"/commands/{command}", s.handleCommand),
	}
}

// Routes lists the API's routes.
func Routes() []Route {
	var out []Route
	for _, r := range (&Server{}).apiRoutes() {
		out = append(out, r.Route)
	}
	return out
}

// routes registers every route: the API's, its fallback, the page's.
func (s *Server) routes() {
	m := http.NewServeMux()
	for _, r := range s.apiRoutes() {
		pattern, h := r.Method+" "+r.Path, s.guarded(r.handle)
		if !unbudgeted[pattern] {
			h = s.budgeted(h)
		}
		m.HandleFunc(pattern, h)
	}
	// What no route takes: 405 with Allow when the path is a route's
	// with another method, else 404; in the API's words either way.
	for _, p := range []string{"/api/", "/healthz", "/readyz", "/metrics"} {
		m.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { s.noRoute(m, w, r) })
	}
	m.HandleFunc("GET /{$}", s.handlePage)
	m.HandleFunc("GET /c/{campaign}", s.handlePage)
	m.HandleFunc("GET /c/{campaign}/b/{battle}", s.handlePage)
	m.Handle("GET /static/", s.assets())
	m.HandleFunc("GET /sw.js", s.handleServiceWorker)
	m.HandleFunc("GET /manifest.webmanifest", s.handleManifest)
	s.mux = s.secure(m)
}

// methods are those a route may be registered with; GET takes HEAD too.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}

// errMethod is a known route asked with a method it does not take.
var errMethod = app.Errorf(app.KindInvalid, "method_not_allowed", "")

// noRoute answers a request no route takes: 405 with the methods the
// path's route takes in Allow (issue 27), or 404 when no route has the
// path. Never echo the request's path: it is the caller's raw text.
func (s *Server) noRoute(m *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, method := range methods {
		if method == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := m.Handler(probe); pattern != "" && strings.HasPrefix(pattern, method+" ") ||
			method == "HEAD" && strings.HasPrefix(pattern, "GET ") {
			allow = append(allow, method)
		}
	}
	if len(allow) == 0 {
		s.writeError(w, r, errNoRoute)
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	s.writeError(w, r, errMethod)
}
