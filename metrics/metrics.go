// Package metrics keeps the ledger's figures in the Prometheus format
// (github.com/prometheus/client_golang): the commands the door answered by
// name and outcome, refusals by rule, how long commands and appends take,
// how far the projection lags the log, and the live streams open.
// `ledger serve` serves them at /metrics (docs/api.md, "Health, readiness
// and metrics").
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/clubledger/ledger/events"
)

// Metrics is one server's figures. It implements app.Observer.
type Metrics struct {
	reg           *prometheus.Registry
	commands      *prometheus.CounterVec
	refusals      *prometheus.CounterVec
	commandTime   *prometheus.HistogramVec
	appendTime    *prometheus.HistogramVec
	appendOutcome *prometheus.CounterVec
}

// buckets are command and append latencies, in seconds: 0.5 ms to 10 s.
var buckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10}

// New returns a server's metrics, with the Go runtime's and the process's.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_commands_total",
			Help: "Commands the door answered, by command name and outcome (accepted, duplicate, dry_run, or the error's kind: refused, forbidden, invalid, unavailable...).",
		}, []string{"command", "outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_refusals_total",
			Help: "Commands refused by the rules, by the rule cited.",
		}, []string{"rule"}),
		commandTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ledger_command_seconds",
			Help:    "How long a command took through the door: authorise, decide, append, and wait for the projection.",
			Buckets: buckets,
		}, []string{"command"}),
		appendTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ledger_append_seconds",
			Help:    "How long an append to the log took until acknowledged, by the number of events (1, or several: an atomic batch).",
			Buckets: buckets,
		}, []string{"events"}),
		appendOutcome: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_appends_total",
			Help: "Appends to the log by outcome: ok, conflict (another writer was first), duplicate, unavailable, error.",
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.commands, m.refusals, m.commandTime, m.appendTime, m.appendOutcome,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Command counts one command the door answered (app.Observer).
func (m *Metrics) Command(name, outcome, rule string, d time.Duration) {
	m.commands.WithLabelValues(name, outcome).Inc()
	if rule != "" {
		m.refusals.WithLabelValues(rule).Inc()
	}
	m.commandTime.WithLabelValues(name).Observe(d.Seconds())
}

// Gauge adds a figure read when scraped, such as the projection's lag.
func (m *Metrics) Gauge(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// Handler serves the figures in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Log returns log with its appends timed and counted.
func (m *Metrics) Log(log events.Log) events.Log { return timedLog{Log: log, m: m} }

type timedLog struct {
	events.Log
	m *Metrics
}

func (l timedLog) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	start := time.Now()
	err := l.Log.Append(ctx, key, expected, batch)
	n := "1"
	if len(batch) > 1 {
		n = "several"
	}
	outcome := "ok"
	switch {
	case err == nil:
		l.m.appendTime.WithLabelValues(n).Observe(time.Since(start).Seconds())
	case errorIs(err, events.ErrConflict):
		outcome = "conflict"
	case errorIs(err, events.ErrDuplicate):
		outcome = "duplicate"
	case errorIs(err, events.ErrUnavailable):
		outcome = "unavailable"
	default:
		outcome = "error"
	}
	l.m.appendOutcome.WithLabelValues(outcome).Inc()
	return err
}
