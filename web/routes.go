package web

import "net/http"

// routes lists every route; docs/api.md describes them.
func (s *Server) routes() {
	m := http.NewServeMux()
	const c, b = "/api/campaigns/{campaign}", "/api/campaigns/{campaign}/battles/{battle}"

	m.HandleFunc("GET /healthz", s.handleHealth)
	m.HandleFunc("GET /readyz", s.handleReady)
	m.HandleFunc("GET /metrics", s.handleMetrics)
	m.HandleFunc("GET /api/admin/status", s.handleStatus)
	m.HandleFunc("POST /api/admin/projections/rebuild", s.handleRebuild)
	m.HandleFunc("POST /api/admin/projections/verify", s.handleVerify)
	m.HandleFunc("POST /api/admin/backup", s.handleBackup)

	m.HandleFunc("GET /api/campaigns", s.handleCampaigns)
	m.HandleFunc("GET "+c, s.handleCampaign)
	m.HandleFunc("GET "+c+"/events", s.handleCampaignEvents)
	m.HandleFunc("GET "+c+"/standings", s.handleStandings)
	m.HandleFunc("POST "+c+"/commands/{command}", s.handleCommand)

	m.HandleFunc("GET "+b+"/state", s.handleState)
	m.HandleFunc("GET "+b+"/events", s.handleBattleEvents)
	m.HandleFunc("GET "+b+"/events/stream", s.handleStream)
	m.HandleFunc("GET "+b+"/replay", s.handleReplay)
	m.HandleFunc("GET "+b+"/battlefield.svg", s.handleBattlefield)
	m.HandleFunc("GET "+b+"/odds", s.handleOdds)
	m.HandleFunc("GET "+b+"/dice", s.handleDice)
	m.HandleFunc("GET "+b+"/disputes", s.handleDisputes)
	m.HandleFunc("GET "+b+"/audit", s.handleAudit)
	m.HandleFunc("GET "+b+"/export", s.handleExport)
	m.HandleFunc("POST "+b+"/commands/{command}", s.handleCommand)

	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		// Never echo the request's path: it is the caller's raw text.
		s.writeError(w, r, errNoRoute)
	})

	m.HandleFunc("GET /{$}", s.handlePage)
	m.HandleFunc("GET /c/{campaign}", s.handlePage)
	m.HandleFunc("GET /c/{campaign}/b/{battle}", s.handlePage)
	m.Handle("GET /static/", s.assets())
	s.mux = s.secure(m)
}
