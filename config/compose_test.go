package config_test

// docker-compose.yml read by Compose v2's own loader (compose-go, the
// library `docker compose` is built on), so that what is checked is what
// `docker compose` accepts and makes of the file: its schema, the `<<: *nats`
// merge, ${VAR:-default} interpolation, paths resolved against the project
// folder, the references between services and volumes. deploy_test.go reads
// the same file with its own struct and checks its values; this file checks
// what only Compose's reading shows. No Docker engine is needed and nothing
// is fetched: the loader only reads files.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// composePasswordVars are the variables docs/deploy.md has an operator put
// in .env before `docker compose up`.
var composePasswordVars = []string{"LEDGER_NATS_PASSWORD", "TOOLS_NATS_PASSWORD", "ADMIN_NATS_PASSWORD", "SYS_NATS_PASSWORD"}

// loadComposeProject loads the compose file at path with Compose's loader,
// the project folder being the file's folder (as `docker compose -f path`
// makes it) and env the only environment (no .env file is read).
func loadComposeProject(t testing.TB, path string, env map[string]string) (*types.Project, error) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return loader.LoadWithContext(ctx, types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: env,
	})
}

// operatorEnv is the .env docs/deploy.md tells an operator to write:
// each password pw$(openssl rand -hex 24).
func operatorEnv(t testing.TB) map[string]string {
	env := map[string]string{}
	for _, v := range composePasswordVars {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		env[v] = "pw" + hex.EncodeToString(b)
	}
	return env
}

func TestComposeFileWithComposeLoader(t *testing.T) {
	env := operatorEnv(t)
	p, err := loadComposeProject(t, composePath, env)
	if err != nil {
		t.Fatalf("Compose's loader refuses %s: %v", composePath, err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "ledger" {
		t.Errorf("project name %q, want ledger", p.Name)
	}
	if want := []string{"ledger", "nats-1", "nats-2", "nats-3"}; !slices.Equal(p.ServiceNames(), want) {
		t.Fatalf("services %v, want %v", p.ServiceNames(), want)
	}

	// Named volumes: Docker names them <project>_<key>, the names
	// docs/deploy.md uses (docker run -v ledger_nats-3-data:/data).
	for _, key := range []string{"nats-1-data", "nats-2-data", "nats-3-data", "ledger-data"} {
		v, ok := p.Volumes[key]
		if !ok {
			t.Errorf("volume %s not declared", key)
			continue
		}
		if v.Name != "ledger_"+key || bool(v.External) {
			t.Errorf("volume %s: name %q (external %v), want ledger_%s made by compose", key, v.Name, v.External, key)
		}
	}

	// Every published port, as Compose parses it, on the host's loopback.
	for _, s := range p.Services {
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" || port.Published == "" {
				t.Errorf("%s: port %+v is not published on 127.0.0.1", s.Name, port)
			}
		}
	}

	// The three nodes: what the `<<: *nats` merge gave each, the operator's
	// passwords interpolated, the configuration folder a read-only bind
	// mount of config/nats under the project folder, holding the file the
	// node is started with.
	for _, name := range []string{"nats-1", "nats-2", "nats-3"} {
		s := p.Services[name]
		for _, v := range composePasswordVars {
			if got := s.Environment[v]; got == nil || *got != env[v] {
				t.Errorf("%s: %s is %v, want the operator's value", name, v, got)
			}
		}
		h := s.HealthCheck
		if h == nil || h.Disable || len(h.Test) == 0 || h.Test[0] != "CMD" || h.Interval == nil || h.Timeout == nil {
			t.Errorf("%s: health check %+v, want one merged from x-nats", name, h)
		}
		if s.StopGracePeriod == nil || time.Duration(*s.StopGracePeriod) != 30*time.Second {
			t.Errorf("%s: stop_grace_period %v, want 30s", name, s.StopGracePeriod)
		}
		var conf, data *types.ServiceVolumeConfig
		for i, m := range s.Volumes {
			switch m.Target {
			case natsConfMount:
				conf = &s.Volumes[i]
			case "/data":
				data = &s.Volumes[i]
			}
		}
		if conf == nil || conf.Type != types.VolumeTypeBind || !conf.ReadOnly || conf.Source != filepath.Join(root, "config", "nats") {
			t.Errorf("%s: %s mounted as %+v, want a read-only bind of %s", name, natsConfMount, conf, filepath.Join(root, "config", "nats"))
		} else if _, err := os.Stat(filepath.Join(conf.Source, name+".conf")); err != nil {
			t.Errorf("%s: the mounted folder lacks its configuration: %v", name, err)
		}
		if data == nil || data.Type != types.VolumeTypeVolume || data.Source != name+"-data" {
			t.Errorf("%s: /data is %+v, want the named volume %s-data", name, data, name)
		}
	}

	// The ledger service.
	s := p.Services["ledger"]
	if s.Build == nil || s.Build.Context != root || s.Build.Dockerfile != "Dockerfile" {
		t.Errorf("ledger: build %+v, want the Dockerfile in %s", s.Build, root)
	}
	// Not root: compose sets no user, so the image's `USER ledger`
	// (TestDockerfile) stands, and grants nothing beyond a container's.
	if s.User != "" || s.Privileged || len(s.CapAdd) > 0 {
		t.Errorf("ledger: user %q, privileged %v, cap_add %v: want the image's unprivileged user", s.User, s.Privileged, s.CapAdd)
	}
	if got := s.Environment["LEDGER_NATS_PASSWORD"]; got == nil || *got != env["LEDGER_NATS_PASSWORD"] {
		t.Errorf("ledger: LEDGER_NATS_PASSWORD is %v, want the operator's value", got)
	}
	dataDir := s.Environment["LEDGER_DATA_DIR"]
	var keyVolume string
	for _, m := range s.Volumes {
		if dataDir != nil && m.Target == *dataDir && m.Type == types.VolumeTypeVolume {
			keyVolume = m.Source
		}
	}
	if keyVolume != "ledger-data" {
		t.Errorf("ledger: the data folder (ledger.key, the projection) is on %q, want the volume ledger-data", keyVolume)
	}
	for _, dep := range []string{"nats-1", "nats-2", "nats-3"} {
		if d, ok := s.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionHealthy || !d.Required {
			t.Errorf("ledger: depends_on %s is %+v, want required and service_healthy", dep, d)
		}
	}

	// The health check: `ledger health`, which asks GET /readyz, given
	// more time by compose than it gives itself, so that a slow answer is
	// "not ready" from the ledger rather than a killed check.
	h := s.HealthCheck
	if h == nil || h.Disable || h.Timeout == nil || h.Interval == nil || h.StartPeriod == nil || h.Retries == nil {
		t.Fatalf("ledger: health check %+v, want test, interval, timeout, start_period and retries", h)
	}
	test := []string(h.Test)
	i := slices.Index(test, "--timeout")
	if len(test) < 3 || !slices.Equal(test[:3], []string{"CMD", "/usr/local/bin/ledger", "health"}) || i < 0 || i+1 >= len(test) {
		t.Fatalf("ledger: health check test %q, want [CMD /usr/local/bin/ledger health --timeout D]", test)
	}
	own, err := time.ParseDuration(test[i+1])
	if err != nil || own >= time.Duration(*h.Timeout) || time.Duration(*h.Timeout) > time.Duration(*h.Interval) {
		t.Errorf("ledger: health --timeout %s, compose timeout %v, interval %v: want the command's below compose's, compose's at most the interval (%v)", test[i+1], *h.Timeout, *h.Interval, err)
	}
	if src, err := os.ReadFile(filepath.Join("..", "cmd", "ledger", "health.go")); err != nil || !strings.Contains(string(src), `"/readyz"`) {
		t.Errorf("cmd/ledger/health.go does not ask /readyz (%v)", err)
	}
}

// TestComposeFileDefaults: without a .env the passwords are the local-trial
// defaults docs/deploy.md names, interpolated by Compose.
func TestComposeFileDefaults(t *testing.T) {
	p, err := loadComposeProject(t, composePath, map[string]string{})
	if err != nil {
		t.Fatalf("Compose's loader refuses %s with no environment: %v", composePath, err)
	}
	for _, svc := range []string{"nats-1", "nats-2", "nats-3"} {
		for _, v := range composePasswordVars {
			want := strings.ToLower(strings.TrimSuffix(v, "_NATS_PASSWORD")) + "-local-trial"
			if got := p.Services[svc].Environment[v]; got == nil || *got != want {
				t.Errorf("%s: %s is %v, want %s", svc, v, got, want)
			}
		}
	}
}

// TestComposeLoaderRefusesBrokenFiles: copies of the compose file with one
// mistake each are refused by the loader (and the unchanged copy, in the
// same place, is not), so the tests above can fail.
func TestComposeLoaderRefusesBrokenFiles(t *testing.T) {
	raw, err := os.ReadFile(composePath)
	if err != nil {
		t.Fatal(err)
	}
	orig := string(raw)
	for _, c := range []struct {
		name, old, new string
		wantErr        string // in the loader's error
	}{
		{"unchanged", "", "", ""},
		{"unknown top-level key", "\nvolumes:\n", "\nvolume:\n", "volume"},
		{"misspelt service field", "    depends_on:\n", "    depend_on:\n", "depend_on"},
		{"bad field value", "      retries: 3\n", "      retries: three\n", "retries"},
		{"undeclared volume", "      - ledger-data:/data\n", "      - ledger-dat:/data\n", "ledger-dat"},
		{"dependency on no service", "      nats-3:\n        condition: service_healthy\n", "      nats-4:\n        condition: service_healthy\n", "nats-4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken := orig
			if c.old != "" {
				if strings.Count(orig, c.old) != 1 {
					t.Fatalf("%q occurs %d times in %s, want once", c.old, strings.Count(orig, c.old), composePath)
				}
				broken = strings.Replace(orig, c.old, c.new, 1)
			}
			path := filepath.Join(t.TempDir(), "docker-compose.yml")
			if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadComposeProject(t, path, operatorEnv(t))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("the unchanged copy is refused: %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("Compose's loader accepts the file with %s", c.name)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Errorf("refused, but the error does not name %q: %v", c.wantErr, err)
			case err != nil:
				t.Logf("refused: %v", err)
			}
		})
	}
}
