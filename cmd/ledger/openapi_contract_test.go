package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/clubledger/ledger/docs"
)

// TestOpenAPIContract asks the real server (seed: a campaign, its people
// and a battle under way) for a route of each kind and validates each
// request and each answer, status and body, against docs/openapi.yaml with
// kin-openapi's openapi3filter: what the server sends is what the spec
// says, typed schemas included (Odds, Status, Error). A request the spec
// refuses (?head=zz) is refused by the server too.
func TestOpenAPIContract(t *testing.T) {
	ts := seed(t)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = openapi3.Servers{{URL: ts.url}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	b := "/api/campaigns/demo/battles/b1"
	cases := []struct {
		path, token string
		status      []int
	}{
		{"/healthz", "", []int{200}},
		{"/readyz", "", []int{200}},
		{"/api/admin/status", testAdminToken, []int{200}},
		{"/api/campaigns", ts.tokens["rita"], []int{200}},
		{"/api/campaigns/demo", ts.tokens["rita"], []int{200}},
		{"/api/campaigns/demo/standings", ts.tokens["rita"], []int{200}},
		{b + "/state", ts.tokens["marie"], []int{200}},
		{b + "/events", ts.tokens["uma"], []int{200}},
		{b + "/replay?version=3", ts.tokens["rita"], []int{200}},
		{b + "/dice", ts.tokens["rita"], []int{200}},
		{b + "/audit", ts.tokens["rita"], []int{200}},
		{b + "/odds?general=friant&units=33-ligne&action=move", ts.tokens["marie"], []int{200, 422}},
		{b + "/odds?general=vukassovich&units=ir-4&action=move", ts.tokens["karl"], []int{200, 422}},
		{"/api/campaigns/demo/battles/nowhere/state", ts.tokens["rita"], []int{404}},
		{b + "/state", "", []int{401}},
	}
	for _, c := range cases {
		req, err := http.NewRequest("GET", ts.url+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Errorf("GET %s: not in the spec: %v", c.path, err)
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("GET %s: the request does not follow the spec: %v", c.path, err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		ok := false
		for _, s := range c.status {
			ok = ok || res.StatusCode == s
		}
		if !ok {
			t.Errorf("GET %s: %d, want %v: %s", c.path, res.StatusCode, c.status, body)
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
			Body: io.NopCloser(bytes.NewReader(body)), Options: opts}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("GET %s: the answer (%d) does not follow the spec: %v\n%.600s", c.path, res.StatusCode, err, body)
		} else {
			t.Logf("GET %s: %d, follows the spec", c.path, res.StatusCode)
		}
	}

	// The operator's rebuild and verify (POST), with the rebuild's query.
	for _, path := range []string{"/api/admin/projections/rebuild?fresh=true&batch=50", "/api/admin/projections/verify"} {
		req, _ := http.NewRequest("POST", ts.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Errorf("POST %s: not in the spec: %v", path, err)
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("POST %s: the request does not follow the spec: %v", path, err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("POST %s: %d: %s", path, res.StatusCode, body)
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
			Body: io.NopCloser(bytes.NewReader(body)), Options: opts}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("POST %s: the answer (%d) does not follow the spec: %v\n%.600s", path, res.StatusCode, err, body)
		}
	}

	// The typed fields the spec holds strictly are there to be checked (issue
	// 29): the projector's state, who signed each event.
	st := ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200)
	if ps, _ := st.body["projector_state"].(map[string]any); ps["state"] != "running" || st.body["projector"] != "running" {
		t.Errorf("/api/admin/status: projector_state %v, projector %v", st.body["projector_state"], st.body["projector"])
	}
	evs, _ := ts.must(ts.do("GET", b+"/events", ts.tokens["uma"], nil), 200).body["events"].([]any)
	for _, e := range evs {
		if sig, _ := e.(map[string]any)["signature"].(map[string]any); sig["state"] != "signed" || sig["fingerprint"] == nil {
			t.Errorf("%s/events: an event's signature %v", b, sig)
			break
		}
	}
	if len(evs) == 0 {
		t.Errorf("%s/events: no events", b)
	}

	// The spec's pattern for ?head= is enforced: the validator refuses
	// the request, and so does the server.
	req, _ := http.NewRequest("GET", ts.url+b+"/audit?head=zz", nil)
	route, params, _ := router.FindRoute(req)
	if err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}); err == nil || !strings.Contains(err.Error(), "head") {
		t.Errorf("?head=zz passes the spec's validation: %v", err)
	}
	ts.must(ts.do("GET", b+"/audit?head=zz", ts.tokens["rita"], nil), 400)
}
