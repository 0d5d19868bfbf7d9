// Package client is the ledger's HTTP API as an app.API: the CLI's way in
// when `ledger serve` owns the data folder (through the local door, a Unix
// socket in that folder) or when pointed at a server's address. It decodes
// every answer into the door's own types and every error back into an
// *app.Error (a refusal still carries its *rules.Refusal, a storage fault
// still wraps events.ErrUnavailable), so the CLI prints and exits the same
// way whichever way it reached the ledger.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
)

// Client is the API of one ledger server, as one caller.
type Client struct {
	base  string
	http  *http.Client
	token string
	lang  string
}

var _ app.API = (*Client)(nil)

// Options say how a Client asks.
type Options struct {
	// Token is a person's token; empty through the local door acts as the
	// folder's owner, the operator.
	Token string
	// Lang is the language of messages ("en", "ru").
	Lang string
	// Timeout bounds each request (default 30s; a rebuild may take longer).
	Timeout time.Duration
}

// Socket returns a client of the local door: the Unix socket at path.
func Socket(path string, opts Options) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
	}
	return newClient("http://ledger", &http.Client{Transport: tr}, opts)
}

// URL returns a client of a server at base ("https://club.example:8080").
func URL(base string, opts Options) *Client {
	return newClient(strings.TrimRight(base, "/"), &http.Client{}, opts)
}

func newClient(base string, hc *http.Client, opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	hc.Timeout = opts.Timeout
	return &Client{base: base, http: hc, token: opts.Token, lang: opts.Lang}
}

// Ping asks the server whether it answers (GET /healthz).
func (c *Client) Ping(ctx context.Context) error {
	var v map[string]string
	return c.get(ctx, "/healthz", nil, &v)
}

func (c *Client) request(ctx context.Context, method, path string, q url.Values, body any) (*http.Response, error) {
	var rd io.Reader
	ct := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd, ct = bytes.NewReader(b), "application/json"
	}
	return c.send(ctx, method, path, q, rd, ct)
}

// send makes a request with body rd (nil: none) of content type ct.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, rd io.Reader, ct string) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.lang != "" {
		req.Header.Set("Accept-Language", c.lang)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &app.Error{Kind: app.KindUnavailable, Code: "unavailable", RetryAfter: 2,
			Message: fmt.Sprintf("the ledger server did not answer (%v); the outcome of a command is unknown: retry with the same id", err)}
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, readError(resp)
	}
	return resp, nil
}

// readError turns an error answer back into the door's *app.Error.
func readError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var body struct {
		Error app.Error `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.Error.Kind == "" {
		return &app.Error{Kind: app.KindInternal, Code: "internal", Message: fmt.Sprintf("the server answered %s", resp.Status)}
	}
	return body.Error.Wire()
}

func (c *Client) get(ctx context.Context, path string, q url.Values, into any) error {
	resp, err := c.request(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decode(resp, into)
}

func decode(resp *http.Response, into any) error {
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return fmt.Errorf("client: read the answer: %w", err)
	}
	return nil
}

func campaignPath(id string) string { return "/api/campaigns/" + url.PathEscape(id) }

func battlePath(k events.Key) string {
	return campaignPath(k.Campaign) + "/battles/" + url.PathEscape(k.Battle)
}

// Execute posts a command.
func (c *Client) Execute(ctx context.Context, cmd app.Command) (app.Result, error) {
	path := campaignPath(cmd.Campaign)
	if cmd.Battle != "" {
		path = battlePath(events.Key{Campaign: cmd.Campaign, Battle: cmd.Battle})
	}
	body := struct {
		ID      string          `json:"id,omitempty"`
		Dice    []int           `json:"dice,omitempty"`
		Command json.RawMessage `json:"command,omitempty"`
		For     string          `json:"for,omitempty"`
		Nonce   string          `json:"nonce,omitempty"`
		DryRun  bool            `json:"dry_run,omitempty"`
	}{cmd.ID, cmd.Dice, cmd.Body, cmd.For, cmd.Nonce, cmd.DryRun}
	resp, err := c.request(ctx, http.MethodPost, path+"/commands/"+url.PathEscape(cmd.Name), nil, body)
	if err != nil {
		return app.Result{}, err
	}
	defer resp.Body.Close()
	var res app.Result
	return res, decode(resp, &res)
}

// Campaigns lists the caller's campaigns.
func (c *Client) Campaigns(ctx context.Context) ([]app.CampaignSummary, error) {
	var v []app.CampaignSummary
	return v, c.get(ctx, "/api/campaigns", nil, &v)
}

// Campaign is one campaign.
func (c *Client) Campaign(ctx context.Context, id string) (app.CampaignInfo, error) {
	var v app.CampaignInfo
	return v, c.get(ctx, campaignPath(id), nil, &v)
}

// Standings are a campaign's standings.
func (c *Client) Standings(ctx context.Context, id string) (app.Standings, error) {
	var v app.Standings
	return v, c.get(ctx, campaignPath(id)+"/standings", nil, &v)
}

// State is a battle now.
func (c *Client) State(ctx context.Context, key events.Key) (app.Board, error) {
	var v app.Board
	return v, c.get(ctx, battlePath(key)+"/state", nil, &v)
}

// Replay is a battle just after a version.
func (c *Client) Replay(ctx context.Context, key events.Key, version uint64) (app.Board, error) {
	q := url.Values{}
	if version != app.Latest {
		q.Set("version", strconv.FormatUint(version, 10))
	}
	var v app.Board
	return v, c.get(ctx, battlePath(key)+"/replay", q, &v)
}

// Events are a stream's events.
func (c *Client) Events(ctx context.Context, key events.Key, after uint64) (app.EventsPage, error) {
	path := campaignPath(key.Campaign) + "/events"
	if key.Battle != "" {
		path = battlePath(key) + "/events"
	}
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatUint(after, 10))
	}
	var v app.EventsPage
	return v, c.get(ctx, path, q, &v)
}

// Odds are the chances of an order.
func (c *Client) Odds(ctx context.Context, key events.Key, oq app.OddsQuery) (app.Odds, error) {
	q := url.Values{}
	for k, v := range map[string]string{"general": oq.General, "action": oq.Action, "formation": oq.Formation, "target": oq.Target, "special": oq.Special} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(oq.Units) > 0 {
		q.Set("units", strings.Join(oq.Units, ","))
	}
	if len(oq.OnRoad) > 0 {
		q.Set("on_road", strings.Join(oq.OnRoad, ","))
	}
	var v app.Odds
	return v, c.get(ctx, battlePath(key)+"/odds", q, &v)
}

// Dice counts a battle's dice.
func (c *Client) Dice(ctx context.Context, key events.Key) (app.DiceChart, error) {
	var v app.DiceChart
	return v, c.get(ctx, battlePath(key)+"/dice", nil, &v)
}

// Disputes are a battle's disputes.
func (c *Client) Disputes(ctx context.Context, key events.Key) (app.DisputesView, error) {
	var v app.DisputesView
	return v, c.get(ctx, battlePath(key)+"/disputes", nil, &v)
}

// Audit audits a battle.
func (c *Client) Audit(ctx context.Context, key events.Key, opt app.AuditOptions) (*audit.Report, error) {
	q := url.Values{}
	if opt.Head != "" {
		q.Set("head", opt.Head)
	}
	var v audit.Report
	if err := c.get(ctx, battlePath(key)+"/audit", q, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Export writes a battle's export to w.
func (c *Client) Export(ctx context.Context, key events.Key, opt app.ExportOptions, w io.Writer) (app.ExportSummary, error) {
	q := url.Values{}
	if opt.Umpire {
		q.Set("umpire", "1")
	}
	resp, err := c.request(ctx, http.MethodGet, battlePath(key)+"/export", q, nil)
	if err != nil {
		return app.ExportSummary{}, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return app.ExportSummary{}, fmt.Errorf("client: export: %w", err)
	}
	n, _ := strconv.Atoi(resp.Header.Get("Ledger-Export-Events"))
	return app.ExportSummary{Events: n, Head: resp.Header.Get("Ledger-Export-Head")}, nil
}

// Picture draws a battle.
func (c *Client) Picture(ctx context.Context, key events.Key, pq app.PictureQuery) ([]byte, error) {
	q := url.Values{}
	if pq.Version != app.Latest {
		q.Set("version", strconv.FormatUint(pq.Version, 10))
	}
	if pq.Charge != 0 {
		q.Set("charge", strconv.FormatUint(pq.Charge, 10))
	}
	if pq.Scale > 0 {
		q.Set("scale", strconv.FormatFloat(pq.Scale, 'f', -1, 64))
	}
	if pq.NoLabels {
		q.Set("no_labels", "true")
	}
	resp, err := c.request(ctx, http.MethodGet, battlePath(key)+"/battlefield.svg", q, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// Review reviews an event (GET .../review?version=N).
func (c *Client) Review(ctx context.Context, key events.Key, version uint64) (app.Review, error) {
	var v app.Review
	return v, c.get(ctx, battlePath(key)+"/review", url.Values{"version": {strconv.FormatUint(version, 10)}}, &v)
}

// ReviewPicture draws an event's review (GET .../review?version=N&format=svg).
func (c *Client) ReviewPicture(ctx context.Context, key events.Key, rq app.ReviewQuery) ([]byte, error) {
	q := url.Values{"version": {strconv.FormatUint(rq.Version, 10)}, "format": {"svg"}}
	if rq.Scale > 0 {
		q.Set("scale", strconv.FormatFloat(rq.Scale, 'f', -1, 64))
	}
	resp, err := c.request(ctx, http.MethodGet, battlePath(key)+"/review", q, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// Status is the ledger's health.
func (c *Client) Status(ctx context.Context) (app.Status, error) {
	var v app.Status
	return v, c.get(ctx, "/api/admin/status", nil, &v)
}

// RebuildProjection rebuilds the server's projection: fresh=true and batch
// go as query parameters; opt's callbacks are not called (the server
// reports no progress).
func (c *Client) RebuildProjection(ctx context.Context, opt app.RebuildOptions) (app.Rebuilt, error) {
	q := url.Values{}
	if opt.Fresh {
		q.Set("fresh", "true")
	}
	if opt.Batch != 0 {
		q.Set("batch", strconv.Itoa(opt.Batch))
	}
	resp, err := c.request(ctx, http.MethodPost, "/api/admin/projections/rebuild", q, nil)
	if err != nil {
		return app.Rebuilt{}, err
	}
	defer resp.Body.Close()
	var v app.Rebuilt
	return v, decode(resp, &v)
}

// IsUnavailable reports whether err says the ledger could not answer.
func IsUnavailable(err error) bool {
	var ae *app.Error
	return errors.As(err, &ae) && ae.Kind == app.KindUnavailable
}

// VerifyProjection compares the server's projection with a fresh build,
// table by table (opt.Progress is not called).
func (c *Client) VerifyProjection(ctx context.Context, _ app.VerifyOptions) (app.Verified, error) {
	resp, err := c.request(ctx, http.MethodPost, "/api/admin/projections/verify", nil, nil)
	if err != nil {
		return app.Verified{}, err
	}
	defer resp.Body.Close()
	var v app.Verified
	return v, decode(resp, &v)
}

// Import sends an export file to the server's import: its answer, or its
// refusal as the door's *app.ImportFailed (so that ledger import exits as
// it does on its own folder).
func (c *Client) Import(ctx context.Context, r io.Reader, opt app.ImportOptions) (app.Imported, error) {
	q := url.Values{}
	for _, k := range opt.Trust {
		q.Add("key", k)
	}
	resp, err := c.send(ctx, http.MethodPost, "/api/admin/import", q, r, "application/jsonl")
	var ae *app.Error
	if errors.As(err, &ae) && (ae.Code == "import_refused" || ae.Code == "import_exists") {
		return app.Imported{}, &app.ImportFailed{Reason: ae.Message, Audit: ae.Code == "import_refused"}
	}
	if err != nil {
		return app.Imported{}, err
	}
	defer resp.Body.Close()
	var v app.Imported
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return app.Imported{}, fmt.Errorf("client: import: %w", err)
	}
	return v, nil
}

// Backup streams the server's backup to w.
func (c *Client) Backup(ctx context.Context, w io.Writer) (app.BackedUp, error) {
	resp, err := c.request(ctx, http.MethodPost, "/api/admin/backup", nil, nil)
	if err != nil {
		return app.BackedUp{}, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return app.BackedUp{}, fmt.Errorf("client: backup: %w", err)
	}
	var v app.BackedUp
	if err := json.Unmarshal([]byte(resp.Trailer.Get("Ledger-Backup")), &v); err != nil {
		return app.BackedUp{}, fmt.Errorf("client: backup: the server did not say it completed: %w", err)
	}
	return v, nil
}
