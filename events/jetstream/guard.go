package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
)

// ErrGuard is what a GuardError is: the stream or the vault is not
// configured as the ledger needs, so the ledger refuses to run on it.
var ErrGuard = errors.New("jetstream: the stream's configuration is not what the ledger needs")

// GuardError lists, in words, every way the LEDGER stream or the vault's
// stream differs from what the ledger needs.
type GuardError struct {
	Findings []string
}

func (e *GuardError) Error() string {
	return "jetstream: refusing to run: " + strings.Join(e.Findings, "; ") +
		". Someone changed it outside the ledger (or it was made by something else): find out who, restore the configuration as the administrator (docs/deploy.md, \"The stream guards itself\"), and restore from a backup any event or sealed value the change removed"
}

func (e *GuardError) Is(target error) bool { return target == ErrGuard }

// checkStream compares a stream's configuration as the server reports it
// with what the ledger needs of it, and returns every difference that
// matters, in words: anything that lets the server delete, purge, drop,
// expire or roll up messages, or keep fewer copies than asked. Other
// differences (description, duplicate window) are no findings.
func checkStream(what string, got natsjs.StreamConfig, want natsjs.StreamConfig) []string {
	var f []string
	add := func(format string, args ...any) {
		f = append(f, what+" "+got.Name+": "+fmt.Sprintf(format, args...))
	}
	if !got.DenyDelete {
		add("deny_delete is off, so messages can be deleted (the ledger needs it on)")
	}
	if !got.DenyPurge {
		add("deny_purge is off, so the stream can be purged (the ledger needs it on)")
	}
	if got.AllowRollup {
		add("allow_rollup is on, so one message can purge a subject's earlier ones (the ledger needs it off)")
	}
	if got.Retention != natsjs.LimitsPolicy {
		add("retention is %s, so messages are removed once consumed (the ledger needs limits retention, without limits)", got.Retention)
	}
	if got.MaxAge != 0 {
		add("max_age is %s, so older messages are discarded (the ledger needs no limit)", got.MaxAge)
	}
	if got.MaxMsgs > 0 {
		add("max_msgs is %d, so the oldest messages are discarded beyond it (the ledger needs no limit, -1)", got.MaxMsgs)
	}
	if got.MaxBytes > 0 {
		add("max_bytes is %d, so the oldest messages are discarded beyond it (the ledger needs no limit, -1)", got.MaxBytes)
	}
	if got.MaxMsgsPerSubject > 0 {
		add("max_msgs_per_subject is %d, so a battle's older events are discarded beyond it (the ledger needs no limit, -1)", got.MaxMsgsPerSubject)
	}
	if got.MaxMsgSize > 0 {
		add("max_msg_size is %d, so larger events are refused (the ledger needs no limit, -1)", got.MaxMsgSize)
	}
	if got.AllowMsgTTL {
		add("allow_msg_ttl is on, so a message can be published to expire (the ledger needs it off)")
	}
	if got.SubjectDeleteMarkerTTL > 0 {
		add("subject_delete_marker_ttl is %s (the ledger needs none)", got.SubjectDeleteMarkerTTL)
	}
	if got.Storage != natsjs.FileStorage {
		add("storage is %s, so everything is lost when the server stops (the ledger needs file storage)", got.Storage)
	}
	if got.Replicas < want.Replicas {
		add("it keeps %d copies of each message, the ledger is configured for %d", got.Replicas, want.Replicas)
	}
	return f
}

// openStream returns the info of the stream sc names, creating it with sc
// when it does not exist. A create is refused by the server when the stream
// exists with another configuration, so it never changes one. Requests the
// server does not answer are retried for up to wait; then the error is
// events.ErrUnavailable.
func openStream(ctx context.Context, js natsjs.JetStream, sc natsjs.StreamConfig, wait, timeout time.Duration) (*natsjs.StreamInfo, error) {
	var info *natsjs.StreamInfo
	err := retryUnavailable(ctx, wait, timeout, func(ctx context.Context) error {
		s, err := js.Stream(ctx, sc.Name)
		if errors.Is(err, natsjs.ErrStreamNotFound) {
			s, err = js.CreateStream(ctx, sc)
			if errors.Is(err, natsjs.ErrStreamNameAlreadyInUse) {
				// Created by someone else meanwhile: read what they made.
				s, err = js.Stream(ctx, sc.Name)
			}
		}
		if err != nil {
			return err
		}
		info = s.CachedInfo()
		return nil
	})
	return info, err
}

// retryUnavailable runs f with requests bounded by timeout, again while it
// fails because the server does not answer, for up to wait in all (or until
// ctx ends). The last error is returned mapped (unavailable).
func retryUnavailable(ctx context.Context, wait, timeout time.Duration, f func(context.Context) error) error {
	wctx, cancel := bounded(ctx, wait)
	defer cancel()
	for {
		actx, acancel := bounded(wctx, timeout)
		err := f(actx)
		acancel()
		if err == nil {
			return nil
		}
		if unavailableWhy(err) == "" || wctx.Err() != nil {
			return unavailable(err)
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-wctx.Done():
			t.Stop()
			return unavailable(err)
		case <-t.C:
		}
	}
}

// Check reads the configuration of the ledger stream and of the vault's
// stream and returns, in words, every way either differs from what the
// ledger needs (deny delete and purge, no roll-up, no limit of age, count,
// size or messages per subject, no message TTL, file storage, at least the
// configured replicas), or that one is missing, and names every lasting
// consumer on either that the ledger did not make (a durable one, or one
// kept longer than MaxConsumerIdle after its last use), with the command
// that removes it. Open and OpenVault check the configurations only: a
// consumer cannot remove an event, so none stops the ledger. No finding: nil. It is
// what Open and OpenVault check before they run, for `ledger audit` to
// report too. An error means the configurations could not be read
// (events.ErrUnavailable when the server does not answer), or, when it is
// ErrConsumersUnlisted, that they were (the findings are theirs) but a
// stream's consumers could not be listed in time.
func Check(ctx context.Context, js natsjs.JetStream, cfg Config, vcfg VaultConfig) ([]string, error) {
	findings, listed, err := checkConfigs(ctx, js, cfg, vcfg)
	if err != nil {
		return nil, err
	}
	cf, err := checkAllConsumers(ctx, js, cfg, listed)
	return append(findings, cf...), err
}

// checkConfigs is Check's reading of both configurations: its findings, and
// the streams (what, name pairs) whose consumers are to be listed.
func checkConfigs(ctx context.Context, js natsjs.JetStream, cfg Config, vcfg VaultConfig) (findings, listed []string, err error) {
	sc, err := cfg.StreamConfig()
	if err != nil {
		return nil, nil, err
	}
	vsc, err := vcfg.StreamConfig()
	if err != nil {
		return nil, nil, err
	}
	timeout := cfg.requestTimeout()
	for _, s := range []struct {
		what string
		sc   natsjs.StreamConfig
	}{{"stream", sc}, {"vault stream", vsc}} {
		var info *natsjs.StreamInfo
		err := retryUnavailable(ctx, cfg.openWait(), timeout, func(ctx context.Context) error {
			st, err := js.Stream(ctx, s.sc.Name)
			if err != nil {
				return err
			}
			info = st.CachedInfo()
			return nil
		})
		if errors.Is(err, natsjs.ErrStreamNotFound) {
			findings = append(findings, fmt.Sprintf("%s %s does not exist", s.what, s.sc.Name))
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("jetstream: check %s %s: %w", s.what, s.sc.Name, err)
		}
		findings = append(findings, checkStream(s.what, info.Config, s.sc)...)
		if want, got := s.sc.ConsumerLimits.InactiveThreshold, info.Config.ConsumerLimits.InactiveThreshold; want > 0 && (got <= 0 || got > want) {
			findings = append(findings, fmt.Sprintf("%s %s: consumer_limits.inactive_threshold is %s, so a consumer can be kept on the stream for ever (the ledger needs %s: as the administrator, bring the configuration up to date, docs/deploy.md)", s.what, s.sc.Name, got, want))
		}
		listed = append(listed, s.what, s.sc.Name)
	}
	return findings, listed, nil
}

// checkAllConsumers is Check's listing of the consumers of the streams
// checkConfigs read, once both configurations are read: a cluster with a
// server down lists them slowly (nats-server waits up to 4 s for the
// consumers that server held), and what it finds removes no event.
func checkAllConsumers(ctx context.Context, js natsjs.JetStream, cfg Config, listed []string) ([]string, error) {
	var findings []string
	var unlisted []error
	for i := 0; i+1 < len(listed); i += 2 {
		what, name := listed[i], listed[i+1]
		var cf []string
		err := retryUnavailable(ctx, cfg.openWait(), cfg.requestTimeout(), func(ctx context.Context) error {
			var err error
			cf, err = checkConsumers(ctx, js, what, name)
			return err
		})
		if errors.Is(err, events.ErrUnavailable) {
			unlisted = append(unlisted, fmt.Errorf("%w: the consumers of %s %s: %w", ErrConsumersUnlisted, what, name, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jetstream: check the consumers of %s %s (the user needs $JS.API.CONSUMER.LIST.%s, config/nats/accounts.conf): %w", what, name, name, err)
		}
		findings = append(findings, cf...)
	}
	return findings, errors.Join(unlisted...)
}

// Guard is Check for a readiness probe, which must answer within its own
// bound whatever the cluster does: each Check reads both configurations,
// but gives the findings of the last listing of the consumers, made in the
// background at most every ConsumersEvery with its own bound
// (ConsumersWithin). With a server of the cluster down, a listing takes up
// to 4 s (nats-server waits for the consumers that server held): a probe
// that listed them itself took its whole 2 s (docs/deploy.md). A consumer
// removes no event, so a listing a few seconds old is as good an answer.
// The first Check, with no listing yet, lists them itself, as Check does.
type Guard struct {
	js   natsjs.JetStream
	cfg  Config
	vcfg VaultConfig

	mu       sync.Mutex
	listed   bool      // a listing has ended
	findings []string  // its findings
	err      error     // and its error (ErrConsumersUnlisted, or another)
	started  time.Time // when the last listing started
	running  bool
	every    time.Duration // ConsumersEvery (tests make it shorter)
}

// ConsumersEvery is how often a Guard lists the consumers again, and
// ConsumersWithin how long a listing may take.
const (
	ConsumersEvery  = 15 * time.Second
	ConsumersWithin = 10 * time.Second
)

// NewGuard returns a Guard of the ledger stream and the vault's.
func NewGuard(js natsjs.JetStream, cfg Config, vcfg VaultConfig) *Guard {
	return &Guard{js: js, cfg: cfg, vcfg: vcfg, every: ConsumersEvery}
}

// Check is Check (the package's) with the consumers of the last listing.
func (g *Guard) Check(ctx context.Context) ([]string, error) {
	findings, listed, err := checkConfigs(ctx, g.js, g.cfg, g.vcfg)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	first := !g.listed && !g.running
	if first {
		g.running, g.started = true, time.Now()
	}
	g.mu.Unlock()
	if first {
		cf, err := checkAllConsumers(ctx, g.js, g.cfg, listed)
		g.done(cf, err)
		return append(findings, cf...), err
	}
	g.mu.Lock()
	if !g.running && time.Since(g.started) >= g.every {
		g.running, g.started = true, time.Now()
		go func() {
			lctx, cancel := context.WithTimeout(context.Background(), ConsumersWithin)
			defer cancel()
			g.done(checkAllConsumers(lctx, g.js, g.cfg, listed))
		}()
	}
	cf, cerr, ok := g.findings, g.err, g.listed
	g.mu.Unlock()
	if !ok {
		// The first listing has not ended yet (another Check runs it).
		return findings, fmt.Errorf("%w: a listing is under way", ErrConsumersUnlisted)
	}
	return append(findings, cf...), cerr
}

func (g *Guard) done(findings []string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.listed, g.running, g.findings, g.err = true, false, findings, err
}

// ErrConsumersUnlisted is Check's error when both configurations were read
// (its findings are those of the configurations) but the server did not
// list a stream's consumers in time, as when a server of the cluster is
// down. A consumer removes no event: it does not stop the ledger.
var ErrConsumersUnlisted = errors.New("jetstream: the consumers could not be listed in time (a server of the cluster down?)")

// ConsumerIdle is the ledger stream's consumer limit: the server drops
// every consumer on it, durable or not, this long after its last use, and
// refuses one asking to be kept longer. The ledger's own consumers are
// ordered ones, which ask for 5 minutes (nats.go's default); `nats stream
// view` asks for an hour.
const ConsumerIdle = time.Hour

// checkConsumers names, in words, every consumer on the stream that
// lasts, which the ledger never makes: a durable one kept for ever (no
// inactive threshold) or one kept longer than ConsumerIdle after its last
// use. The stream's consumer limit makes the server refuse both; one made
// before the limit was set, or while it was lifted, stays. It cannot remove
// an event (the stream keeps every message whatever its consumers do), but
// only the administrator can remove it: each finding says how.
func checkConsumers(ctx context.Context, js natsjs.JetStream, what, stream string) ([]string, error) {
	lasting, err := lastingConsumers(ctx, js, stream)
	if err != nil {
		return nil, err
	}
	var f []string
	for _, c := range lasting {
		f = append(f, fmt.Sprintf("%s %s: consumer %s %s; the ledger makes none such (its own are ordered consumers, dropped minutes after their last use): someone else made it, and it stays on the stream. It removes no event, but find out who made it and remove it as the administrator: nats --user %s --inbox-prefix %s consumer rm %s %s -f (the embedded server's next start removes it)",
			what, stream, c.name, c.why, UserAdmin, AdminInboxPrefix, stream, c.name))
	}
	return f, nil
}

// lasting is a consumer that lasts (checkConsumers), and why.
type lasting struct{ name, why string }

// lastingConsumers lists the stream's consumers that last: durable without
// an inactive threshold, or kept longer than ConsumerIdle after their last
// use.
func lastingConsumers(ctx context.Context, js natsjs.JetStream, stream string) ([]lasting, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	var out []lasting
	l := st.ListConsumers(ctx)
	for ci := range l.Info() {
		switch c := ci.Config; {
		case c.InactiveThreshold <= 0:
			out = append(out, lasting{ci.Name, "is durable and kept for ever"})
		case c.InactiveThreshold > ConsumerIdle:
			out = append(out, lasting{ci.Name, fmt.Sprintf("is kept %s after its last use (the limit is %s)", c.InactiveThreshold, ConsumerIdle)})
		}
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Provision creates the ledger stream and the vault's stream, or brings
// their configuration up to date, through js, which must belong to a user
// allowed to update them (UserAdmin): the embedded server does it
// in-process at every start, an operator once on a cluster when a new
// ledger version needs it. It returns what it changed, in words.
//
// It never repairs a configuration the guard refuses (a limit, a lifted
// deny): that is a change someone made, to be looked into, not hidden; it
// returns the GuardError instead. The one exception is a vault made by a
// ledger from before the guard (a key-value bucket that allowed purges and
// kept one message per name): it is made append-only, as that cannot be
// anyone's doing but an older ledger's.
//
// It removes the consumers on the ledger stream that last (a durable one
// kept for ever, or one kept longer than ConsumerIdle after its last use),
// which the ledger never makes: on the embedded server nobody else could
// (the administrator connects in-process only), and nats-server refuses
// the stream's consumer limit while one is kept longer. A consumer holds no
// event. Each removal is one of the changes returned.
func Provision(ctx context.Context, js natsjs.JetStream, cfg Config, vcfg VaultConfig) ([]string, error) {
	sc, err := cfg.StreamConfig()
	if err != nil {
		return nil, err
	}
	vsc, err := vcfg.StreamConfig()
	if err != nil {
		return nil, err
	}
	wait, timeout := cfg.openWait(), cfg.requestTimeout()
	var changes []string
	var findings []string
	for _, want := range []natsjs.StreamConfig{sc, vsc} {
		what := "stream"
		if want.Name == vsc.Name {
			what = "vault stream"
		}
		created := false
		var info *natsjs.StreamInfo
		err := retryUnavailable(ctx, wait, timeout, func(ctx context.Context) error {
			s, err := js.Stream(ctx, want.Name)
			if errors.Is(err, natsjs.ErrStreamNotFound) {
				s, err = js.CreateStream(ctx, want)
				created = err == nil
			}
			if err != nil {
				return err
			}
			info = s.CachedInfo()
			return nil
		})
		if err != nil {
			return changes, fmt.Errorf("jetstream: provision %s %s: %w", what, want.Name, err)
		}
		if created {
			changes = append(changes, fmt.Sprintf("created %s %s", what, want.Name))
			continue
		}
		got := info.Config
		preGuardVault := want.Name == vsc.Name && !got.DenyPurge && got.MaxMsgsPerSubject == 1
		if f := checkStream(what, got, want); len(f) > 0 && !preGuardVault {
			findings = append(findings, f...)
			continue
		}
		if want.ConsumerLimits.InactiveThreshold > 0 {
			// Consumers that last, which the ledger never makes (made
			// before the stream had its consumer limit, or while someone
			// lifted it): removed, as nothing else could remove them on the
			// embedded server, and they would stop the limit being set.
			// They hold no event.
			var found []lasting
			err := retryUnavailable(ctx, wait, timeout, func(ctx context.Context) error {
				var err error
				found, err = lastingConsumers(ctx, js, want.Name)
				return err
			})
			if err != nil {
				return changes, fmt.Errorf("jetstream: provision: list the consumers of %s %s: %w", what, want.Name, err)
			}
			for _, c := range found {
				err := retryUnavailable(ctx, wait, timeout, func(ctx context.Context) error {
					err := js.DeleteConsumer(ctx, want.Name, c.name)
					if errors.Is(err, natsjs.ErrConsumerNotFound) {
						return nil
					}
					return err
				})
				if err != nil {
					return changes, fmt.Errorf("jetstream: provision: remove consumer %s of %s %s, which %s: %w", c.name, what, want.Name, strings.TrimPrefix(c.why, "is "), err)
				}
				changes = append(changes, fmt.Sprintf("removed consumer %s of %s %s: it %s, and the ledger makes none such (someone else made it; no event goes with it)", c.name, what, want.Name, c.why))
			}
		}
		if !needsUpdate(got, want) {
			continue
		}
		err = retryUnavailable(ctx, wait, timeout, func(ctx context.Context) error {
			_, err := js.UpdateStream(ctx, want)
			return err
		})
		if err != nil {
			if strings.Contains(err.Error(), "violates consumers") {
				// A consumer kept longer than the new consumer limit.
				return changes, fmt.Errorf("jetstream: provision: update %s %s: %w; these consumers are kept longer than %s after their last use, which the stream no longer allows: remove them as the administrator (nats --user %s --inbox-prefix %s consumer rm %s <name> -f; no event goes with them) and start again", what, want.Name, err, want.ConsumerLimits.InactiveThreshold, UserAdmin, AdminInboxPrefix, want.Name)
			}
			return changes, fmt.Errorf("jetstream: provision: update %s %s: %w", what, want.Name, err)
		}
		if preGuardVault {
			changes = append(changes, fmt.Sprintf("made %s %s append-only (deny purge, no roll-up, every message kept)", what, want.Name))
		} else {
			changes = append(changes, fmt.Sprintf("updated the configuration of %s %s", what, want.Name))
		}
	}
	if len(findings) > 0 {
		return changes, &GuardError{Findings: findings}
	}
	return changes, nil
}

// needsUpdate reports whether the stream's configuration lacks something the
// ledger sets.
func needsUpdate(got, want natsjs.StreamConfig) bool {
	return got.Description != want.Description || got.Duplicates != want.Duplicates ||
		got.Replicas != want.Replicas || got.AllowDirect != want.AllowDirect ||
		got.AllowAtomicPublish != want.AllowAtomicPublish || got.DenyDelete != want.DenyDelete ||
		got.DenyPurge != want.DenyPurge || got.AllowRollup != want.AllowRollup ||
		got.MaxMsgsPerSubject != want.MaxMsgsPerSubject || got.MaxMsgSize != want.MaxMsgSize ||
		got.Discard != want.Discard || got.ConsumerLimits != want.ConsumerLimits
}
