// Package config holds the ledger's typed configuration. Only cmd/ reads
// files, environment and flags (through viper); every other package receives
// a Config value.
package config

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Config is everything the ledger process needs to run.
type Config struct {
	// DataDir holds the embedded NATS store, the SQLite projections and
	// nothing else. Default "./data".
	DataDir string `mapstructure:"data_dir" yaml:"data_dir" json:"data_dir"`
	// NATS says where the event log lives.
	NATS NATS `mapstructure:"nats" yaml:"nats" json:"nats"`
	// DB is the SQLite projection file; empty means DataDir/ledger.db.
	DB string `mapstructure:"db" yaml:"db" json:"db"`
	// KeyFile holds the ledger's signing key and vault key, outside NATS
	// (package keys); empty means DataDir/ledger.key. Made at first start.
	KeyFile string `mapstructure:"key_file" yaml:"key_file" json:"key_file"`
	// HTTP is the address `ledger serve` listens on. Default loopback only.
	HTTP HTTP `mapstructure:"http" yaml:"http" json:"http"`
	// Lang is the language of messages: "en" or "ru".
	Lang string `mapstructure:"lang" yaml:"lang" json:"lang"`
	// Actor, when set, is the person of the campaign the CLI enters
	// commands for (at the table, on their behalf); the events record both
	// the CLI's caller and them. Default: nobody, the caller themselves.
	Actor string `mapstructure:"actor" yaml:"actor" json:"actor"`
	// Token, when set, is a person's token the CLI acts with, instead of
	// as the data folder's owner (the operator). Never printed.
	Token string `mapstructure:"token" yaml:"token" json:"-"`
	// Retries bounds how often a command is decided again after a
	// concurrent append won the race. Default 16.
	Retries int `mapstructure:"retries" yaml:"retries" json:"retries"`
	// Cache bounds what the ledger keeps in memory to answer quickly.
	Cache Cache `mapstructure:"cache" yaml:"cache" json:"cache"`
}

// Cache bounds the ledger's memory: every cache has a size (issue 24).
type Cache struct {
	// Streams is how many streams (battles and campaigns) the service
	// keeps folded, each its state and an index of its command ids.
	// Default 1024.
	Streams int `mapstructure:"streams" yaml:"streams" json:"streams"`
	// TimelineEvents is how many events the battles' replay timelines
	// (the timeline slider, the review, the pictures) hold in all; past it
	// the battles used longest ago are read again when next asked for.
	// Default 200000.
	TimelineEvents int `mapstructure:"timeline_events" yaml:"timeline_events" json:"timeline_events"`
}

// NATS configures the event log's server.
type NATS struct {
	// URL of an external NATS server or cluster. Empty: start an embedded
	// server with JetStream storing under DataDir/nats.
	URL string `mapstructure:"url" yaml:"url" json:"url"`
	// Creds is a NATS credentials file for URL.
	Creds string `mapstructure:"creds" yaml:"creds" json:"creds"`
	// User and Password authenticate to URL when no Creds are given.
	User     string `mapstructure:"user" yaml:"user" json:"user"`
	Password string `mapstructure:"password" yaml:"password" json:"-"`
	// CA is a PEM file of the CA that signed the server's TLS certificate.
	CA string `mapstructure:"ca" yaml:"ca" json:"ca"`
	// Listen makes the embedded server also listen on this loopback
	// address (e.g. "127.0.0.1:4222") so standard NATS tools can inspect
	// the log. Empty: no port at all.
	Listen string `mapstructure:"listen" yaml:"listen" json:"listen"`
	// Stream is the JetStream stream name. Default "LEDGER".
	Stream string `mapstructure:"stream" yaml:"stream" json:"stream"`
	// Replicas of the stream: 1 embedded, 3 on a cluster.
	Replicas int `mapstructure:"replicas" yaml:"replicas" json:"replicas"`
	// SyncAlways makes the embedded server fsync every write before it
	// acknowledges it. Default true: an acknowledged event survives power loss.
	SyncAlways bool `mapstructure:"sync_always" yaml:"sync_always" json:"sync_always"`
	// BatchesInFlight bounds this process's atomic batches (commands of
	// several events) in flight at once; more wait for a place. nats-server
	// refuses more than 50 per stream: with several ledger processes on one
	// cluster, give each a share of it. Default 40.
	BatchesInFlight int `mapstructure:"batches_in_flight" yaml:"batches_in_flight" json:"batches_in_flight"`
	// DuplicateWindow is how long the server itself remembers message ids.
	// The ledger also recognises repeated commands after it has passed.
	DuplicateWindow time.Duration `mapstructure:"duplicate_window" yaml:"duplicate_window" json:"duplicate_window"`
}

// HTTP configures `ledger serve`.
type HTTP struct {
	Addr string `mapstructure:"addr" yaml:"addr" json:"addr"`
	// TLSCert and TLSKey, when both set, make the server speak HTTPS.
	TLSCert string `mapstructure:"tls_cert" yaml:"tls_cert" json:"tls_cert"`
	TLSKey  string `mapstructure:"tls_key" yaml:"tls_key" json:"tls_key"`
	// AdminToken is a server-level credential that may create campaigns
	// over HTTP and acts as umpire everywhere. Empty: campaigns are
	// created with the CLI only. Set it from LEDGER_HTTP_ADMIN_TOKEN
	// rather than a file.
	AdminToken string `mapstructure:"admin_token" yaml:"admin_token" json:"-"`
	// ReadHeaderTimeout and ReadTimeout bound how long a client may take to
	// send a request's headers, and the whole request: a body sent a byte
	// at a time is cut off. Default 10s and 30s.
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout" yaml:"read_header_timeout" json:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout" yaml:"read_timeout" json:"read_timeout"`
	// StreamsPerCaller bounds the live streams one token may hold open
	// (over it: 429); Streams those of the whole server (over it: 503).
	// Default 8 and 1000.
	StreamsPerCaller int `mapstructure:"streams_per_caller" yaml:"streams_per_caller" json:"streams_per_caller"`
	Streams          int `mapstructure:"streams" yaml:"streams" json:"streams"`
	// RequestBudget is the longest one API request may take (all but a
	// live stream and the operator's rebuild, verify and backup): past it
	// the work stops and the answer is 503 in words. Default 15s.
	RequestBudget time.Duration `mapstructure:"request_budget" yaml:"request_budget" json:"request_budget"`
	// TokenFailuresPerMinute bounds the failed token checks one client
	// address may make: as many in a row, then as many a minute; past it
	// no new token from the address is checked (429 with Retry-After),
	// while a token that opened a campaign from it before still works.
	// Default 20.
	TokenFailuresPerMinute int `mapstructure:"token_failures_per_minute" yaml:"token_failures_per_minute" json:"token_failures_per_minute"`
	// ReadyMaxLag is how many events the projection may lag the log
	// while GET /readyz still answers ready. Default 1000.
	ReadyMaxLag int `mapstructure:"ready_max_lag" yaml:"ready_max_lag" json:"ready_max_lag"`
}

// Default returns a configuration that needs nothing set: embedded NATS and
// SQLite under ./data, HTTP on loopback.
func Default() Config {
	return Config{
		DataDir: "./data",
		NATS: NATS{
			Stream:          "LEDGER",
			Replicas:        1,
			SyncAlways:      true,
			BatchesInFlight: 40,
			DuplicateWindow: 2 * time.Minute,
		},
		HTTP: HTTP{Addr: "127.0.0.1:8080", ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
			StreamsPerCaller: 8, Streams: 1000, ReadyMaxLag: 1000, RequestBudget: 15 * time.Second,
			TokenFailuresPerMinute: 20},
		Lang:    "en",
		Retries: 16,
		Cache:   Cache{Streams: 1024, TimelineEvents: 200000},
	}
}

// DBPath returns the SQLite file in use.
func (c Config) DBPath() string {
	if c.DB != "" {
		return c.DB
	}
	return filepath.Join(c.DataDir, "ledger.db")
}

// KeyPath returns the key file in use.
func (c Config) KeyPath() string {
	if c.KeyFile != "" {
		return c.KeyFile
	}
	return filepath.Join(c.DataDir, "ledger.key")
}

// Embedded reports whether the ledger runs its own NATS server.
func (c Config) Embedded() bool { return c.NATS.URL == "" }

// Problem is one problem of a configuration, as its format and values:
// the CLI says it in the user's language (i18n's detail.usage), and its
// Error is the English.
type Problem struct {
	Format string
	Args   []any
}

func (p *Problem) Error() string { return fmt.Sprintf(p.Format, p.Args...) }

func problem(format string, args ...any) *Problem { return &Problem{Format: format, Args: args} }

// Validate reports every problem of the configuration at once, each a
// *Problem (errors.Join's).
func (c Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.DataDir) == "" {
		errs = append(errs, problem("data_dir is empty"))
	}
	if c.NATS.Replicas < 1 || c.NATS.Replicas > 5 {
		errs = append(errs, problem("nats.replicas %d: want 1 to 5", c.NATS.Replicas))
	}
	if c.Embedded() && c.NATS.Replicas != 1 {
		errs = append(errs, problem("nats.replicas %d: the embedded server is one node; set nats.url to use a cluster", c.NATS.Replicas))
	}
	if c.NATS.Stream == "" || strings.ContainsAny(c.NATS.Stream, ". *>") {
		errs = append(errs, problem("nats.stream %q: want a name without dots, spaces or wildcards", c.NATS.Stream))
	}
	if c.NATS.BatchesInFlight < 1 || c.NATS.BatchesInFlight > 50 {
		errs = append(errs, problem("nats.batches_in_flight %d: want 1 to 50 (nats-server stages at most 50 per stream)", c.NATS.BatchesInFlight))
	}
	if c.NATS.DuplicateWindow < time.Second {
		errs = append(errs, problem("nats.duplicate_window %s: want at least 1s", c.NATS.DuplicateWindow.String()))
	}
	if c.NATS.Listen != "" {
		if p := loopback(c.NATS.Listen); p != nil {
			errs = append(errs, p)
		}
	}
	if c.NATS.Creds != "" && c.NATS.User != "" {
		errs = append(errs, problem("nats: set creds or user/password, not both"))
	}
	if c.HTTP.AdminToken != "" && len(c.HTTP.AdminToken) < 16 {
		errs = append(errs, problem("http.admin_token: at least 16 characters"))
	}
	if (c.HTTP.TLSCert == "") != (c.HTTP.TLSKey == "") {
		errs = append(errs, problem("http: tls_cert and tls_key go together"))
	}
	if c.HTTP.ReadHeaderTimeout <= 0 || c.HTTP.ReadTimeout <= 0 {
		errs = append(errs, problem("http.read_header_timeout %s, http.read_timeout %s: both must be positive", c.HTTP.ReadHeaderTimeout.String(), c.HTTP.ReadTimeout.String()))
	}
	if c.HTTP.RequestBudget <= 0 {
		errs = append(errs, problem("http.request_budget %s: must be positive", c.HTTP.RequestBudget.String()))
	}
	if c.HTTP.StreamsPerCaller < 1 || c.HTTP.Streams < c.HTTP.StreamsPerCaller {
		errs = append(errs, problem("http.streams_per_caller %d, http.streams %d: want at least 1, and streams at least streams_per_caller", c.HTTP.StreamsPerCaller, c.HTTP.Streams))
	}
	if c.HTTP.TokenFailuresPerMinute < 1 || c.HTTP.TokenFailuresPerMinute > 60000 {
		errs = append(errs, problem("http.token_failures_per_minute %d: want 1 to 60000", c.HTTP.TokenFailuresPerMinute))
	}
	if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		errs = append(errs, problem("http.addr %q: want host:port (%s)", c.HTTP.Addr, err.Error()))
	}
	if c.Lang != "en" && c.Lang != "ru" {
		errs = append(errs, problem("lang %q: want en or ru", c.Lang))
	}
	if c.Cache.Streams < 1 || c.Cache.TimelineEvents < 1 {
		errs = append(errs, problem("cache.streams %d, cache.timeline_events %d: both must be at least 1", c.Cache.Streams, c.Cache.TimelineEvents))
	}
	if c.Retries < 0 || c.Retries > 100 {
		errs = append(errs, problem("retries %d: want 0 to 100", c.Retries))
	}
	return errors.Join(errs...)
}

// loopback is why addr (nats.listen) is not a loopback address, or nil.
func loopback(addr string) *Problem {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return problem("nats.listen %q: want host:port (%s)", addr, err.Error())
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return problem("nats.listen: %q is not a loopback address: the embedded server only listens locally", addr)
	}
	return nil
}

// Keys lists every configuration key, dotted ("nats.url"), as ledger.yaml
// and LEDGER_* variables name them.
func Keys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("mapstructure"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)) {
				walk(f.Type, prefix+name+".")
				continue
			}
			out = append(out, prefix+name)
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	sort.Strings(out)
	return out
}

// Nearest returns the known key closest to key (by edit distance), for a
// message about a typo: "dat_dir" -> "data_dir".
func Nearest(key string) string {
	best, bestD := "", -1
	for _, k := range Keys() {
		if d := editDistance(key, k); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Printable returns c as ledger config prints it: keys as in ledger.yaml,
// durations as durations ("2m0s"), secrets left out.
func (c Config) Printable() map[string]any {
	return printable(reflect.ValueOf(c)).(map[string]any)
}

func printable(v reflect.Value) any {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return time.Duration(v.Int()).String()
	}
	if v.Kind() != reflect.Struct {
		return v.Interface()
	}
	out := map[string]any{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		if tag == "-" || tag == "" {
			continue
		}
		out[tag] = printable(v.Field(i))
	}
	return out
}

// Distance is the edit distance between two names (insertions, deletions
// and substitutions of one byte), for suggesting the name a typo meant.
func Distance(a, b string) int { return editDistance(a, b) }
