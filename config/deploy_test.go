package config_test

// Tests of the deployment files: docker-compose.yml, Dockerfile and the
// three nats-server configurations under config/nats/ (docs/deploy.md).
// No Docker engine runs here, so the compose file itself is parsed and
// cross-checked, and the NATS configurations are proved by running them:
// three in-process servers started from those very files form the cluster,
// and the ledger's own event-log code and the read-only user are put through
// what the permissions allow and refuse.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

const (
	composePath    = "../docker-compose.yml"
	dockerfilePath = "../Dockerfile"
	natsConfDir    = "nats"
	// natsConfMount is where docker-compose.yml mounts config/nats/.
	natsConfMount = "/etc/nats/ledger"
	// toolsInbox is the inbox prefix the read-only user must use.
	toolsInbox = "_INBOX_tools"
)

// The compose file, as far as the tests read it. Decoding with known fields
// only makes a misspelt key (depend_on, enviroment) an error.
type composeFile struct {
	Name     string                    `yaml:"name"`
	XNats    any                       `yaml:"x-nats"`
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       *composeBuild     `yaml:"build"`
	Hostname    string            `yaml:"hostname"`
	Restart     string            `yaml:"restart"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
	StopGracePeriod string `yaml:"stop_grace_period"`
}

type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

func loadCompose(t testing.TB) composeFile {
	t.Helper()
	raw, err := os.ReadFile(composePath)
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&cf); err != nil {
		t.Fatalf("parse %s: %v", composePath, err)
	}
	return cf
}

// natsServices returns the names of the services running nats-server, sorted.
func (cf composeFile) natsServices() []string {
	var names []string
	for name, s := range cf.Services {
		if strings.HasPrefix(s.Image, "nats:") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// ledgerService returns the name of the service built from this repository.
func (cf composeFile) ledgerService(t testing.TB) (string, composeService) {
	t.Helper()
	var found []string
	for name, s := range cf.Services {
		if s.Build != nil {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		t.Fatalf("services built from this repository: %v, want exactly one (the ledger)", found)
	}
	return found[0], cf.Services[found[0]]
}

// interpolation is what compose substitutes: ${VAR}, ${VAR:-default},
// ${VAR-default}.
var interpolation = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}`)

// interpolate resolves s the way compose would with env as the environment
// (nil: nothing set, so the defaults apply). Any other use of '$' fails.
func interpolate(t testing.TB, s string, env map[string]string) string {
	t.Helper()
	out := interpolation.ReplaceAllStringFunc(s, func(m string) string {
		p := interpolation.FindStringSubmatch(m)
		v, ok := env[p[1]]
		switch {
		case p[2] == ":-" && v == "":
			return p[3]
		case p[2] == "-" && !ok:
			return p[3]
		}
		return v
	})
	if strings.Contains(out, "$") {
		t.Fatalf("%q: unsupported '$' left after interpolation: %q", s, out)
	}
	return out
}

// natsVarRef finds environment variables a nats config refers to as values.
var natsVarRef = regexp.MustCompile(`[:=]\s*\$([A-Za-z_][A-Za-z0-9_]*)`)

// natsConfEnv returns the variables config/nats/*.conf read from the
// environment, with the values docker-compose.yml gives them by default.
func natsConfEnv(t testing.TB, cf composeFile) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(natsConfDir, "*.conf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no config/nats/*.conf: %v", err)
	}
	names := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			for _, m := range natsVarRef.FindAllStringSubmatch(line, -1) {
				names[m[1]] = true
			}
		}
	}
	env := map[string]string{}
	for _, svc := range cf.natsServices() {
		for name := range names {
			expr, ok := cf.Services[svc].Environment[name]
			if !ok {
				t.Fatalf("service %s does not set %s, which config/nats/ reads", svc, name)
			}
			v := interpolate(t, expr, nil)
			if prev, ok := env[name]; ok && prev != v {
				t.Fatalf("%s differs between the nats services: %q and %q", name, prev, v)
			}
			env[name] = v
		}
	}
	return env
}

// setEnv sets env for the rest of the test.
func setEnv(t *testing.T, env map[string]string) {
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// natsServerVersion is the version of the nats-server embedded in this
// test (go.mod), whose parser and server the configuration is tested with.
func natsServerVersion() string { return server.VERSION }

// hostIPOf splits a compose port mapping "127.0.0.1:4222:4222".
func hostIPOf(t testing.TB, mapping string) (ip, hostPort, containerPort string) {
	t.Helper()
	parts := strings.Split(mapping, ":")
	if len(parts) != 3 {
		t.Fatalf("port mapping %q: want HOST_IP:HOST_PORT:CONTAINER_PORT", mapping)
	}
	return parts[0], parts[1], parts[2]
}

func TestComposeNATSServices(t *testing.T) {
	cf := loadCompose(t)
	svcs := cf.natsServices()
	if want := []string{"nats-1", "nats-2", "nats-3"}; !slices.Equal(svcs, want) {
		t.Fatalf("nats services %v, want %v", svcs, want)
	}
	version := natsServerVersion()
	hostnames, dataVolumes, hostPorts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range svcs {
		s := cf.Services[name]
		// The image runs the server version the configuration is tested with.
		tag := strings.TrimPrefix(s.Image, "nats:")
		if tag != version && !strings.HasPrefix(tag, version+"-") {
			t.Errorf("%s: image %s, want nats:%s[-variant]: the version this test validates the configuration with (go.mod)", name, s.Image, version)
		}
		if s.Hostname != name || hostnames[s.Hostname] {
			t.Errorf("%s: hostname %q, want %q and distinct", name, s.Hostname, name)
		}
		hostnames[s.Hostname] = true
		conf := natsConfMount + "/" + name + ".conf"
		if !slices.Equal(s.Command, []string{"--config", conf, "--store_dir", "/data/jetstream"}) {
			t.Errorf("%s: command %q, want [--config %s --store_dir /data/jetstream]", name, s.Command, conf)
		}
		if _, err := os.Stat(filepath.Join(natsConfDir, name+".conf")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !slices.Contains(s.Volumes, "./config/nats:"+natsConfMount+":ro") {
			t.Errorf("%s: volumes %q lack ./config/nats mounted read-only on %s", name, s.Volumes, natsConfMount)
		}
		var data string
		for _, v := range s.Volumes {
			if src, ok := strings.CutSuffix(v, ":/data"); ok {
				data = src
			}
		}
		if _, declared := cf.Volumes[data]; data == "" || !declared || dataVolumes[data] {
			t.Errorf("%s: /data is %q, want a named volume of its own declared under volumes", name, data)
		}
		dataVolumes[data] = true
		for _, p := range s.Ports {
			ip, hp, cp := hostIPOf(t, p)
			if ip != "127.0.0.1" {
				t.Errorf("%s: port %q is published beyond loopback", name, p)
			}
			if cp != "4222" {
				t.Errorf("%s: port %q: only the client port may be published", name, p)
			}
			if hostPorts[hp] {
				t.Errorf("%s: host port %s used twice", name, hp)
			}
			hostPorts[hp] = true
		}
		if h := s.Healthcheck; h == nil || !strings.Contains(strings.Join(h.Test, " "), "127.0.0.1:8222/healthz") {
			t.Errorf("%s: want a health check on the monitoring port's /healthz", name)
		}
	}
	// Every variable the nats configs read is set, identically, on all three.
	env := natsConfEnv(t, cf)
	for _, v := range []string{"LEDGER_NATS_PASSWORD", "TOOLS_NATS_PASSWORD", "ADMIN_NATS_PASSWORD", "SYS_NATS_PASSWORD"} {
		if env[v] == "" {
			t.Errorf("config/nats/ does not read %s, or it has no default", v)
		}
	}
}

func TestComposeLedgerService(t *testing.T) {
	cf := loadCompose(t)
	name, s := cf.ledgerService(t)
	if s.Build.Context != "." {
		t.Errorf("%s: build context %q, want the repository root", name, s.Build.Context)
	}
	if _, err := os.Stat(filepath.Join("..", s.Build.Dockerfile)); s.Build.Dockerfile == "" || err != nil {
		t.Errorf("%s: dockerfile %q: %v", name, s.Build.Dockerfile, err)
	}
	if !slices.Equal(s.Command, []string{"serve"}) {
		t.Errorf("%s: command %q, want [serve]", name, s.Command)
	}

	// Every LEDGER_* variable names a configuration key, the way cmd/ledger
	// maps them (prefix LEDGER, '.' becomes '_').
	keys := map[string]bool{}
	configKeys(reflect.TypeOf(config.Config{}), "", keys)
	for k := range s.Environment {
		if !keys[k] {
			t.Errorf("%s: %s is not a configuration variable (known: %v)", name, k, sortedKeys(keys))
		}
	}

	// The ledger is pointed at all three nodes, on their client port.
	env := map[string]string{}
	for k, v := range s.Environment {
		env[k] = interpolate(t, v, nil)
	}
	var hosts []string
	for _, u := range strings.Split(env["LEDGER_NATS_URL"], ",") {
		pu, err := url.Parse(strings.TrimSpace(u))
		if err != nil || pu.Scheme != "nats" || pu.Port() != "4222" || pu.User != nil {
			t.Errorf("LEDGER_NATS_URL entry %q: want nats://<service>:4222 without credentials (%v)", u, err)
			continue
		}
		hosts = append(hosts, pu.Hostname())
	}
	sort.Strings(hosts)
	if !slices.Equal(hosts, cf.natsServices()) {
		t.Errorf("LEDGER_NATS_URL hosts %v, want every nats service %v", hosts, cf.natsServices())
	}
	if env["LEDGER_NATS_REPLICAS"] != "3" {
		t.Errorf("LEDGER_NATS_REPLICAS %q, want 3", env["LEDGER_NATS_REPLICAS"])
	}
	if env["LEDGER_NATS_USER"] != "ledger" {
		t.Errorf("LEDGER_NATS_USER %q, want ledger", env["LEDGER_NATS_USER"])
	}
	// The service's password is the very variable the servers read.
	if got, want := s.Environment["LEDGER_NATS_PASSWORD"], cf.Services["nats-1"].Environment["LEDGER_NATS_PASSWORD"]; got == "" || got != want {
		t.Errorf("LEDGER_NATS_PASSWORD %q, want the servers' %q", got, want)
	}

	// Data on a named volume at the data folder; HTTP on loopback only.
	dataDir := env["LEDGER_DATA_DIR"]
	var vol string
	for _, v := range s.Volumes {
		if src, ok := strings.CutSuffix(v, ":"+dataDir); ok && dataDir != "" {
			vol = src
		}
	}
	if _, declared := cf.Volumes[vol]; vol == "" || !declared {
		t.Errorf("%s: data folder %q is not on a declared named volume (volumes %q)", name, dataDir, s.Volumes)
	}
	_, httpPort, err := net.SplitHostPort(env["LEDGER_HTTP_ADDR"])
	if err != nil {
		t.Fatalf("LEDGER_HTTP_ADDR: %v", err)
	}
	if len(s.Ports) == 0 {
		t.Errorf("%s: HTTP port not published", name)
	}
	for _, p := range s.Ports {
		ip, _, cp := hostIPOf(t, p)
		if ip != "127.0.0.1" || cp != httpPort {
			t.Errorf("%s: port %q, want 127.0.0.1:<port>:%s", name, p, httpPort)
		}
	}
	for _, n := range cf.natsServices() {
		if s.DependsOn[n].Condition != "service_healthy" {
			t.Errorf("%s: want depends_on %s with condition service_healthy", name, n)
		}
	}

	// The container is healthy when the ledger is ready: `ledger health`
	// (the image has no curl nor wget) asks /readyz.
	if s.Healthcheck == nil || !slices.Equal(s.Healthcheck.Test[:min(3, len(s.Healthcheck.Test))], []string{"CMD", "/usr/local/bin/ledger", "health"}) {
		t.Errorf("%s: want a healthcheck running [CMD /usr/local/bin/ledger health]", name)
	}

	// The resulting configuration is one the ledger accepts.
	c := config.Default()
	c.DataDir = dataDir
	c.NATS.URL = env["LEDGER_NATS_URL"]
	c.NATS.User = env["LEDGER_NATS_USER"]
	c.NATS.Password = env["LEDGER_NATS_PASSWORD"]
	c.NATS.Replicas, err = strconv.Atoi(env["LEDGER_NATS_REPLICAS"])
	if err != nil {
		t.Fatalf("LEDGER_NATS_REPLICAS: %v", err)
	}
	c.HTTP.Addr = env["LEDGER_HTTP_ADDR"]
	if err := c.Validate(); err != nil {
		t.Errorf("the compose environment gives an invalid configuration: %v", err)
	}
}

// configKeys collects the environment variable of every configuration key.
func configKeys(typ reflect.Type, prefix string, out map[string]bool) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("mapstructure")
		if tag == "" || tag == "-" {
			continue
		}
		key := prefix + tag
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
			configKeys(f.Type, key+".", out)
			continue
		}
		out["LEDGER_"+strings.ToUpper(strings.ReplaceAll(key, ".", "_"))] = true
	}
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestDockerfile(t *testing.T) {
	raw, err := os.ReadFile(dockerfilePath)
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	for _, want := range []string{
		"FROM golang:1.26", // the Go of go.mod
		"CGO_ENABLED=1",    // go-sqlite3
		"./cmd/ledger",     // the binary
		"FROM debian:",     // slim runtime
		"USER ledger",      // not root
		`ENTRYPOINT ["/usr/local/bin/ledger"]`,
		`CMD ["serve"]`,
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// Builder and runtime from the same Debian release, so that the glibc
	// the binary links against is the one it runs with.
	rel := regexp.MustCompile(`(?m)^FROM golang:[0-9.]+-(\w+) AS build\n(?s:.*)^FROM debian:(\w+)-slim$`).FindStringSubmatch(df)
	if rel == nil || rel[1] != rel[2] {
		t.Errorf("builder and runtime Debian releases differ or are not named: %q", rel)
	}
}

// TestComposeConfigWithDockerCompose asks docker compose itself, when it is
// installed, to load and check the file. It needs no Docker engine.
func TestComposeConfigWithDockerCompose(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("docker client not installed; the compose file is checked by the YAML tests only")
	}
	if err := exec.Command(docker, "compose", "version").Run(); err != nil {
		t.Skip("docker compose plugin not installed; the compose file is checked by the YAML tests only")
	}
	out, err := exec.Command(docker, "compose", "-f", composePath, "config", "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out)
	}
}

// The intended permissions, as subjects each user may or may not use.
// Checked statically against the parsed configuration (with the server's
// own subject matching) and, for the important ones, live below.
var permissionMatrix = []struct {
	user, op, subject string
	allowed           bool
}{
	// The service appends events, manages its stream and bucket, reads.
	{"ledger", "pub", "ledger.campaign.c1", true},
	{"ledger", "pub", "ledger.battle.c1.b1", true},
	{"ledger", "pub", "$JS.API.INFO", true},
	{"ledger", "pub", "$JS.API.STREAM.CREATE.LEDGER", true},
	{"ledger", "pub", "$JS.API.STREAM.UPDATE.LEDGER", false},
	{"ledger", "pub", "$JS.API.STREAM.UPDATE.KV_LEDGER_SEALED", false},
	{"ledger", "pub", "$JS.API.STREAM.INFO.LEDGER", true},
	{"ledger", "pub", "$JS.API.DIRECT.GET.LEDGER", true},
	{"ledger", "pub", "$JS.API.DIRECT.GET.LEDGER.ledger.battle.c1.b1", true},
	{"ledger", "pub", "$JS.API.STREAM.MSG.GET.LEDGER", true},
	{"ledger", "pub", "$JS.API.CONSUMER.CREATE.LEDGER.c.ledger.>", true},
	{"ledger", "pub", "$JS.API.CONSUMER.MSG.NEXT.LEDGER.c", true},
	{"ledger", "pub", "$JS.API.CONSUMER.DELETE.LEDGER.c", true},
	{"ledger", "pub", "$JS.API.CONSUMER.LIST.LEDGER", true},
	{"ledger", "pub", "$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.c", false},
	{"ledger", "pub", "$JS.API.STREAM.CREATE.KV_LEDGER_SEALED", true},
	{"ledger", "pub", "$JS.API.DIRECT.GET.KV_LEDGER_SEALED.$KV.LEDGER_SEALED.seed", true},
	{"ledger", "pub", "$JS.API.STREAM.MSG.GET.KV_LEDGER_SEALED", true},
	{"ledger", "pub", "$KV.LEDGER_SEALED.seed", true},
	{"ledger", "sub", "_INBOX.abc", true},
	// ... but removes nothing and touches nothing else.
	{"ledger", "pub", "$JS.API.STREAM.DELETE.LEDGER", false},
	{"ledger", "pub", "$JS.API.STREAM.PURGE.LEDGER", false},
	{"ledger", "pub", "$JS.API.STREAM.MSG.DELETE.LEDGER", false},
	{"ledger", "pub", "$JS.API.STREAM.DELETE.KV_LEDGER_SEALED", false},
	{"ledger", "pub", "$JS.API.STREAM.PURGE.KV_LEDGER_SEALED", false},
	{"ledger", "pub", "$JS.API.STREAM.CREATE.OTHER", false},
	{"ledger", "pub", "other.subject", false},
	{"ledger", "pub", "$KV.OTHER.key", false},
	{"ledger", "sub", "_INBOX_tools.abc", false},
	{"ledger", "sub", "ledger.battle.c1.b1", false},

	// The tools user reads the LEDGER stream ...
	{"tools", "pub", "$JS.API.INFO", true},
	{"tools", "pub", "$JS.API.STREAM.INFO.LEDGER", true},
	{"tools", "pub", "$JS.API.DIRECT.GET.LEDGER", true},
	{"tools", "pub", "$JS.API.DIRECT.GET.LEDGER.ledger.battle.c1.b1", true},
	{"tools", "pub", "$JS.API.STREAM.MSG.GET.LEDGER", true},
	{"tools", "pub", "$JS.API.CONSUMER.CREATE.LEDGER", true},
	{"tools", "pub", "$JS.API.CONSUMER.CREATE.LEDGER.c.ledger.>", true},
	{"tools", "pub", "$JS.API.CONSUMER.MSG.NEXT.LEDGER.c", true},
	{"tools", "pub", "$JS.API.CONSUMER.INFO.LEDGER.c", true},
	{"tools", "pub", "$JS.API.CONSUMER.NAMES.LEDGER", true},
	{"tools", "pub", "$JS.ACK.LEDGER.c.1.1.1.0.0", true},
	{"tools", "sub", "_INBOX_tools.abc", true},
	// ... and can write, remove or see nothing else.
	{"tools", "pub", "ledger.battle.x.y", false},
	{"tools", "pub", "ledger.campaign.c1", false},
	{"tools", "pub", "$KV.LEDGER_SEALED.seed", false},
	{"tools", "pub", "$JS.API.STREAM.INFO.KV_LEDGER_SEALED", false},
	{"tools", "pub", "$JS.API.DIRECT.GET.KV_LEDGER_SEALED", false},
	{"tools", "pub", "$JS.API.DIRECT.GET.KV_LEDGER_SEALED.$KV.LEDGER_SEALED.seed", false},
	{"tools", "pub", "$JS.API.STREAM.MSG.GET.KV_LEDGER_SEALED", false},
	{"tools", "pub", "$JS.API.CONSUMER.CREATE.KV_LEDGER_SEALED.c", false},
	{"tools", "pub", "$JS.API.CONSUMER.MSG.NEXT.KV_LEDGER_SEALED.c", false},
	{"tools", "pub", "$JS.ACK.KV_LEDGER_SEALED.c.1.1.1.0.0", false},
	{"tools", "pub", "$JS.API.STREAM.CREATE.LEDGER", false},
	{"tools", "pub", "$JS.API.STREAM.UPDATE.LEDGER", false},
	{"tools", "pub", "$JS.API.STREAM.DELETE.LEDGER", false},
	{"tools", "pub", "$JS.API.STREAM.PURGE.LEDGER", false},
	{"tools", "pub", "$JS.API.STREAM.MSG.DELETE.LEDGER", false},
	{"tools", "pub", "$JS.API.CONSUMER.DELETE.LEDGER.c", false},
	// The legacy durable create (issue 25, item 6: no consumer that stays;
	// a named create is the stream's consumer limit's to bound).
	{"tools", "pub", "$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.c", false},
	{"tools", "pub", "$JS.API.STREAM.NAMES", false},
	{"tools", "pub", "$JS.API.STREAM.LIST", false},
	{"tools", "pub", "$JS.API.CONSUMER.NAMES.KV_LEDGER_SEALED", false},
	{"tools", "sub", "_INBOX.abc", false},
	{"tools", "sub", "$KV.LEDGER_SEALED.seed", false},
	{"tools", "sub", "ledger.battle.c1.b1", false},

	// The administrator manages the two configurations and nothing else.
	{"admin", "pub", "$JS.API.INFO", true},
	{"admin", "pub", "$JS.API.STREAM.CREATE.LEDGER", true},
	{"admin", "pub", "$JS.API.STREAM.UPDATE.LEDGER", true},
	{"admin", "pub", "$JS.API.STREAM.INFO.LEDGER", true},
	{"admin", "pub", "$JS.API.STREAM.CREATE.KV_LEDGER_SEALED", true},
	{"admin", "pub", "$JS.API.STREAM.UPDATE.KV_LEDGER_SEALED", true},
	{"admin", "sub", "_INBOX_admin.abc", true},
	// ... and removes the consumers the guard names (none deletes an event).
	{"admin", "pub", "$JS.API.CONSUMER.LIST.LEDGER", true},
	{"admin", "pub", "$JS.API.CONSUMER.INFO.LEDGER.c", true},
	{"admin", "pub", "$JS.API.CONSUMER.DELETE.LEDGER.c", true},
	{"admin", "pub", "$JS.API.CONSUMER.CREATE.LEDGER", false},
	{"admin", "pub", "$JS.API.CONSUMER.CREATE.LEDGER.c", false},
	{"admin", "pub", "$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.c", false},
	{"admin", "pub", "ledger.battle.c1.b1", false},
	{"admin", "pub", "$KV.LEDGER_SEALED.seed", false},
	{"admin", "pub", "$JS.API.DIRECT.GET.LEDGER", false},
	{"admin", "pub", "$JS.API.DIRECT.GET.KV_LEDGER_SEALED", false},
	{"admin", "pub", "$JS.API.STREAM.MSG.GET.KV_LEDGER_SEALED", false},
	{"admin", "pub", "$JS.API.STREAM.DELETE.LEDGER", false},
	{"admin", "pub", "$JS.API.STREAM.PURGE.LEDGER", false},
	{"admin", "pub", "$JS.API.STREAM.MSG.DELETE.LEDGER", false},
	{"admin", "pub", "$JS.API.STREAM.PURGE.KV_LEDGER_SEALED", false},
	{"admin", "pub", "$JS.API.CONSUMER.CREATE.KV_LEDGER_SEALED", false},
	{"admin", "sub", "_INBOX.abc", false},
	{"admin", "sub", "$KV.LEDGER_SEALED.seed", false},
}

// allowedBy reports whether p lets a client use subject (literal): an empty
// allow list allows everything, a deny entry wins.
func allowedBy(p *server.SubjectPermission, subject string) bool {
	if p == nil {
		return true
	}
	ok := len(p.Allow) == 0
	for _, a := range p.Allow {
		if server.SubjectMatchesFilter(subject, a) {
			ok = true
		}
	}
	for _, d := range p.Deny {
		if server.SubjectMatchesFilter(subject, d) {
			ok = false
		}
	}
	return ok
}

// nodeSummary is what must be the same on every node.
type nodeSummary struct {
	Host, HTTPHost        string
	Port, HTTPPort        int
	JetStream, SyncAlways bool
	StoreDir              string
	ClusterName           string
	ClusterHost           string
	ClusterPort           int
	NoAdvertise           bool
	SystemAccount         string
	NoAuthUser            string
	Users                 []string
}

func summarize(t testing.TB, o *server.Options) nodeSummary {
	t.Helper()
	s := nodeSummary{
		Host: o.Host, Port: o.Port, HTTPHost: o.HTTPHost, HTTPPort: o.HTTPPort,
		JetStream: o.JetStream, SyncAlways: o.SyncAlways, StoreDir: o.StoreDir,
		ClusterName: o.Cluster.Name, ClusterHost: o.Cluster.Host, ClusterPort: o.Cluster.Port,
		NoAdvertise: o.Cluster.NoAdvertise, SystemAccount: o.SystemAccount, NoAuthUser: o.NoAuthUser,
	}
	for _, u := range o.Users {
		perms, err := json.Marshal(u.Permissions)
		if err != nil {
			t.Fatal(err)
		}
		acc := ""
		if u.Account != nil {
			acc = u.Account.Name
		}
		s.Users = append(s.Users, fmt.Sprintf("%s@%s %s", u.Username, acc, perms))
	}
	sort.Strings(s.Users)
	return s
}

func TestNATSConfigs(t *testing.T) {
	cf := loadCompose(t)
	env := natsConfEnv(t, cf)
	setEnv(t, env)
	svcs := cf.natsServices()
	var first *nodeSummary
	for _, name := range svcs {
		t.Run(name, func(t *testing.T) {
			o, err := server.ProcessConfigFile(filepath.Join(natsConfDir, name+".conf"))
			if err != nil {
				t.Fatalf("the embedded nats-server refuses %s.conf: %v", name, err)
			}
			if o.ServerName != name {
				t.Errorf("server_name %q, want the service name %q", o.ServerName, name)
			}
			// The store folder comes from the command line (compose:
			// --store_dir /data/jetstream): nats-server refuses it twice.
			if !o.JetStream || !o.SyncAlways || o.StoreDir != "" {
				t.Errorf("jetstream %v, sync always %v, store %q; want on, always, and the store left to the command line", o.JetStream, o.SyncAlways, o.StoreDir)
			}
			if o.Port != 4222 || o.HTTPPort != 8222 {
				t.Errorf("client port %d, monitoring port %d; want 4222 (LEDGER_NATS_URL, ports) and 8222 (health check)", o.Port, o.HTTPPort)
			}
			if o.Cluster.Name != "ledger" || o.Cluster.Port != 6222 {
				t.Errorf("cluster %q on port %d, want ledger on 6222", o.Cluster.Name, o.Cluster.Port)
			}
			// Routes: the two other services, on their cluster port.
			var routes []string
			for _, r := range o.Routes {
				if r.Port() != strconv.Itoa(o.Cluster.Port) {
					t.Errorf("route %s: port is not the cluster port %d", r, o.Cluster.Port)
				}
				routes = append(routes, r.Hostname())
			}
			sort.Strings(routes)
			others := slices.DeleteFunc(slices.Clone(svcs), func(s string) bool { return s == name })
			if !slices.Equal(routes, others) {
				t.Errorf("routes to %v, want the other nodes %v", routes, others)
			}

			// Users: the service, the tools user, the administrator and the
			// system user; no one
			// anonymous.
			if o.NoAuthUser != "" || o.SystemAccount != "SYS" {
				t.Errorf("no_auth_user %q, system account %q; want none and SYS", o.NoAuthUser, o.SystemAccount)
			}
			users := map[string]*server.User{}
			for _, u := range o.Users {
				users[u.Username] = u
			}
			for user, want := range map[string]struct{ account, password string }{
				"ledger": {"LEDGER", env["LEDGER_NATS_PASSWORD"]},
				"tools":  {"LEDGER", env["TOOLS_NATS_PASSWORD"]},
				"admin":  {"LEDGER", env["ADMIN_NATS_PASSWORD"]},
				"sys":    {"SYS", env["SYS_NATS_PASSWORD"]},
			} {
				u := users[user]
				if u == nil {
					t.Errorf("no user %s", user)
					continue
				}
				if u.Account == nil || u.Account.Name != want.account {
					t.Errorf("user %s: account %v, want %s", user, u.Account, want.account)
				}
				if u.Password != want.password {
					t.Errorf("user %s: password is not $%s's value", user, strings.ToUpper(user)+"_NATS_PASSWORD")
				}
			}
			if len(users) != 4 {
				t.Errorf("users %v, want ledger, tools, admin and sys only", sortedUsers(users))
			}
			for _, c := range permissionMatrix {
				u := users[c.user]
				if u == nil || u.Permissions == nil {
					t.Fatalf("user %s has no permissions: it could do anything", c.user)
				}
				p := u.Permissions.Publish
				if c.op == "sub" {
					p = u.Permissions.Subscribe
				}
				if got := allowedBy(p, c.subject); got != c.allowed {
					t.Errorf("%s %s %s: allowed %v, want %v", c.user, c.op, c.subject, got, c.allowed)
				}
			}
			s := summarize(t, o)
			if first == nil {
				first = &s
			} else if !reflect.DeepEqual(s, *first) {
				t.Errorf("%s differs from %s beyond server_name and routes:\n%+v\n%+v", name, svcs[0], s, *first)
			}
		})
	}
}

func sortedUsers(m map[string]*server.User) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestNATSPasswordShapes holds docs/deploy.md to its word: the recipe makes
// passwords the server accepts, and a number is not one.
func TestNATSPasswordShapes(t *testing.T) {
	cf := loadCompose(t)
	env := natsConfEnv(t, cf)
	conf := filepath.Join(natsConfDir, "nats-1.conf")
	for pw, ok := range map[string]bool{
		"pw" + strings.Repeat("0123456789abcdef", 3): true, // pw$(openssl rand -hex 24)
		"ledger-local-trial":                         true,
		"12345":                                      false,
		"true":                                       false,
		"with space":                                 false,
	} {
		setEnv(t, env)
		t.Setenv("LEDGER_NATS_PASSWORD", pw)
		o, err := server.ProcessConfigFile(conf)
		if ok {
			if err != nil {
				t.Errorf("password %q refused: %v", pw, err)
				continue
			}
			found := false
			for _, u := range o.Users {
				found = found || (u.Username == "ledger" && u.Password == pw)
			}
			if !found {
				t.Errorf("password %q not given to user ledger", pw)
			}
		} else if err == nil {
			t.Errorf("password %q accepted; docs/deploy.md says it is not", pw)
		}
	}
}

// asyncErrors collects a connection's asynchronous errors (permission
// violations arrive that way).
type asyncErrors struct {
	mu   sync.Mutex
	errs []error
	// abort, while set, is called with the first permission violation, so
	// that an operation that should have been allowed fails at once
	// instead of waiting for its deadline.
	abort context.CancelCauseFunc
	// tolerated are subject prefixes whose refusal does not abort.
	tolerated []string
}

func (a *asyncErrors) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	a.mu.Lock()
	a.errs = append(a.errs, err)
	if a.abort != nil && errors.Is(err, nats.ErrPermissionViolation) &&
		!slices.ContainsFunc(a.tolerated, func(p string) bool { return strings.Contains(err.Error(), "to \""+p) }) {
		a.abort(fmt.Errorf("refused by the server: %w", err))
	}
	a.mu.Unlock()
}

// allowedOnly returns a context for operations that must all be allowed: it
// ends with the violation as its cause as soon as the server refuses one.
// Refusals of subjects starting with one of tolerated do not count. Call
// the returned function when the allowed operations are done.
func (a *asyncErrors) allowedOnly(ctx context.Context, tolerated ...string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	a.mu.Lock()
	a.abort, a.tolerated = cancel, tolerated
	a.mu.Unlock()
	return ctx, func() {
		a.mu.Lock()
		a.abort, a.tolerated = nil, nil
		a.mu.Unlock()
		cancel(nil)
	}
}

// wantViolation waits for the server to refuse op ("Publish" or
// "Subscription") on subject.
func (a *asyncErrors) wantViolation(t testing.TB, op, subject string) {
	t.Helper()
	want := fmt.Sprintf("Permissions Violation for %s to %q", op, subject)
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.mu.Lock()
		for _, err := range a.errs {
			if strings.Contains(err.Error(), want) {
				a.mu.Unlock()
				return
			}
		}
		errs := fmt.Sprint(a.errs)
		a.mu.Unlock()
		if time.Now().After(deadline) {
			t.Errorf("server did not refuse: want %q, got errors %s", want, errs)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// deployCluster starts the three nodes from config/nats/ in this process.
// Only what cannot work here is changed: listen addresses become loopback
// ports, routes point at those ports, the monitoring port is off, and each
// node stores in a temporary folder. Accounts, users, permissions, cluster
// name, JetStream and sync settings are the files' own.
func deployCluster(t *testing.T, cf composeFile) (urls []string) {
	t.Helper()
	svcs := cf.natsServices()
	ports := map[string]int{}
	for _, name := range svcs {
		ports[name] = freePort(t)
	}
	for _, name := range svcs {
		o, err := server.ProcessConfigFile(filepath.Join(natsConfDir, name+".conf"))
		if err != nil {
			t.Fatal(err)
		}
		o.Host, o.Port = "127.0.0.1", server.RANDOM_PORT
		o.HTTPPort = 0
		o.Cluster.Host, o.Cluster.Port = "127.0.0.1", ports[name]
		var routes []string
		for _, r := range o.Routes {
			p, ok := ports[r.Hostname()]
			if !ok {
				t.Fatalf("%s: route %s to an unknown node", name, r)
			}
			routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
		}
		o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		o.StoreDir = t.TempDir()
		o.NoSigs, o.NoLog = true, true
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		go s.Start()
		t.Cleanup(func() {
			s.Shutdown()
			s.WaitForShutdown()
		})
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("%s: not ready", name)
		}
		urls = append(urls, s.ClientURL())
	}
	return urls
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func connectAs(t testing.TB, urls []string, user, password string, opts ...nats.Option) (*nats.Conn, *asyncErrors) {
	t.Helper()
	ae := &asyncErrors{}
	opts = append([]nats.Option{nats.UserInfo(user, password), nats.ErrorHandler(ae.handler), nats.Name(user)}, opts...)
	nc, err := nats.Connect(strings.Join(urls, ","), opts...)
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	return nc, ae
}

// TestDeployClusterPermissions runs the cluster of docker-compose.yml in
// this process and proves the permissions with real clients: the ledger's
// own log and vault code as user ledger, a read-only client as tools.
func TestDeployClusterPermissions(t *testing.T) {
	cf := loadCompose(t)
	env := natsConfEnv(t, cf)
	setEnv(t, env)
	urls := deployCluster(t, cf)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	// No anonymous clients.
	if nc, err := nats.Connect(strings.Join(urls, ",")); err == nil {
		nc.Close()
		t.Error("an anonymous client was let in")
	}

	// --- The ledger service, through its own code. ---
	lnc, lerrs := connectAs(t, urls, "ledger", env["LEDGER_NATS_PASSWORD"])
	ljs, err := natsjs.New(lnc)
	if err != nil {
		t.Fatal(err)
	}
	// Everything up to the removals below must be allowed.
	actx, allowed := lerrs.allowedOnly(ctx)
	log, err := ledgerjs.Open(actx, ljs, ledgerjs.Config{Replicas: 3})
	if err != nil {
		t.Fatalf("ledger cannot open its stream with 3 replicas: %v (%v)", err, context.Cause(actx))
	}
	info, err := ljs.Stream(actx, ledgerjs.DefaultStream)
	if err != nil {
		t.Fatalf("ledger: stream info: %v (%v)", err, context.Cause(actx))
	}
	if r := info.CachedInfo().Config.Replicas; r != 3 {
		t.Fatalf("stream replicas %d, want 3", r)
	}
	if c := info.CachedInfo().Cluster; c == nil || c.Name != "ledger" || c.Leader == "" || len(c.Replicas) != 2 {
		t.Fatalf("stream cluster %+v, want a leader and two replicas in cluster ledger", c)
	}

	battle := events.Key{Campaign: "c1", Battle: "b1"}
	batch := []events.Envelope{
		deployEvent(battle, "cmd-1/0", "battle.started"),
		deployEvent(battle, "cmd-1/1", "dice.committed"),
	}
	if err := events.Chain(nil, batch); err != nil {
		t.Fatal(err)
	}
	// Two events: an atomic batch.
	if err := log.Append(actx, battle, 0, batch); err != nil {
		t.Fatalf("ledger append (atomic batch): %v (%v)", err, context.Cause(actx))
	}
	// One event: a single publish with an expected sequence.
	campaign := events.Key{Campaign: "c1"}
	single := []events.Envelope{deployEvent(campaign, "cmd-2/0", "campaign.created")}
	if err := events.Chain(nil, single); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(actx, campaign, 0, single); err != nil {
		t.Fatalf("ledger append (single): %v (%v)", err, context.Cause(actx))
	}
	stored := append(slices.Clone(batch), single...)
	got, err := log.Read(actx, battle, 0)
	if err != nil || len(got) != 2 || !bytes.Equal(got[1].Raw, batch[1].Raw) {
		t.Fatalf("ledger read: %d events, %v (%v)", len(got), err, context.Cause(actx))
	}
	// Following the log: the projections' ordered consumer.
	var followed []events.Envelope
	fctx, fcancel := context.WithCancel(actx)
	err = log.Follow(fctx, 0, func(e events.Envelope) error {
		followed = append(followed, e)
		return nil
	}, fcancel)
	fcancel()
	if !errors.Is(err, context.Canceled) || len(followed) != len(stored) {
		t.Fatalf("ledger follow: %d of %d events, %v (%v)", len(followed), len(stored), err, context.Cause(actx))
	}
	// Sealed secrets.
	vault, err := ledgerjs.OpenVault(actx, ljs, ledgerjs.VaultConfig{Replicas: 3})
	if err != nil {
		t.Fatalf("ledger cannot open its vault with 3 replicas: %v (%v)", err, context.Cause(actx))
	}
	secret := []byte("server seed for c1/b1")
	if err := vault.Put(actx, "seed-c1-b1", secret); err != nil {
		t.Fatalf("vault put: %v (%v)", err, context.Cause(actx))
	}
	if v, err := vault.Get(actx, "seed-c1-b1"); err != nil || !bytes.Equal(v, secret) {
		t.Fatalf("vault get: %q, %v (%v)", v, err, context.Cause(actx))
	}
	allowed()

	// The service removes nothing.
	for _, subj := range []string{
		"$JS.API.STREAM.DELETE.LEDGER",
		"$JS.API.STREAM.PURGE.LEDGER",
		"$JS.API.STREAM.MSG.DELETE.LEDGER",
		"$JS.API.STREAM.PURGE.KV_LEDGER_SEALED",
	} {
		if err := lnc.Publish(subj, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		lerrs.wantViolation(t, "Publish", subj)
	}
	if _, err := lnc.SubscribeSync(toolsInbox + ".>"); err != nil {
		t.Fatal(err)
	}
	lerrs.wantViolation(t, "Subscription", toolsInbox+".>")

	// --- The read-only user. ---
	rnc, rerrs := connectAs(t, urls, "tools", env["TOOLS_NATS_PASSWORD"], nats.CustomInboxPrefix(toolsInbox))
	rjs, err := natsjs.New(rnc)
	if err != nil {
		t.Fatal(err)
	}
	// Everything up to the refusals below must be allowed, except that a
	// nats.go ordered consumer deletes the consumer it replaces (on its
	// first fetch, too) and the tools user may not delete consumers; the server
	// removes the old one once it is idle (5 minutes).
	actx, allowed = rerrs.allowedOnly(ctx, "$JS.API.CONSUMER.DELETE.LEDGER.")
	rs, err := rjs.Stream(actx, ledgerjs.DefaultStream)
	if err != nil {
		t.Fatalf("tools: stream info: %v (%v)", err, context.Cause(actx))
	}
	if st := rs.CachedInfo().State; st.Msgs != uint64(len(stored)) {
		t.Fatalf("tools: stream holds %d messages, want %d (%v)", st.Msgs, len(stored), context.Cause(actx))
	}
	// Direct gets (the stream allows them): by sequence and last for a subject.
	m, err := rs.GetMsg(actx, 1)
	if err != nil || !bytes.Equal(m.Data, batch[0].Raw) {
		t.Fatalf("tools: direct get of sequence 1: %v (%v)", err, context.Cause(actx))
	}
	m, err = rs.GetLastMsgForSubject(actx, ledgerjs.Subject(campaign))
	if err != nil || !bytes.Equal(m.Data, single[0].Raw) {
		t.Fatalf("tools: direct get last for %s: %v (%v)", ledgerjs.Subject(campaign), err, context.Cause(actx))
	}
	// The leader's message get.
	resp, err := rnc.RequestWithContext(actx, "$JS.API.STREAM.MSG.GET.LEDGER", []byte(`{"seq":2}`))
	if err != nil || !bytes.Contains(resp.Data, []byte(`"seq":2`)) {
		t.Fatalf("tools: leader message get: %v %s (%v)", err, respData(resp), context.Cause(actx))
	}
	// An ordered consumer over the whole stream. Its first pull may find
	// no responder: the consumer's leader can be another server, whose
	// interest in the pull subject has not yet reached this client's
	// server over the routes (CI saw it once: "gave 0 of 3 messages: nats:
	// no responders available for request"). A new consumer is tried then,
	// for up to 10 s; any other error fails at once.
	var n int
	for try, deadline := 1, time.Now().Add(10*time.Second); ; try++ {
		oc, err := rjs.OrderedConsumer(actx, ledgerjs.DefaultStream, natsjs.OrderedConsumerConfig{FilterSubjects: []string{ledgerjs.SubjectAll}})
		if err != nil {
			t.Fatalf("tools: ordered consumer: %v (%v)", err, context.Cause(actx))
		}
		fetched, err := oc.Fetch(len(stored), natsjs.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatalf("tools: fetch: %v (%v)", err, context.Cause(actx))
		}
		n = 0
		for msg := range fetched.Messages() {
			if !bytes.Equal(msg.Data(), stored[n].Raw) {
				t.Errorf("tools: ordered consumer message %d differs", n)
			}
			n++
		}
		if n == 0 && errors.Is(fetched.Error(), nats.ErrNoResponders) && time.Now().Before(deadline) {
			t.Logf("tools: ordered consumer's pull %d found no responder; trying a new consumer", try)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if n != len(stored) || fetched.Error() != nil {
			t.Fatalf("tools: ordered consumer gave %d of %d messages after %d tries: %v (%v)", n, len(stored), try, fetched.Error(), context.Cause(actx))
		}
		break
	}

	allowed()

	// The tools user writes nothing ...
	const forged = "ledger.battle.x.y"
	if err := rnc.Publish(forged, []byte(`{"forged":true}`)); err != nil {
		t.Fatal(err)
	}
	rerrs.wantViolation(t, "Publish", forged)
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, time.Second) }
	pctx, pcancel := short()
	if _, err := rjs.Publish(pctx, forged, []byte(`{"forged":true}`)); err == nil {
		t.Error("tools: a JetStream publish to ledger.> was acknowledged")
	}
	pcancel()
	// ... changes or removes nothing ...
	for _, subj := range []string{
		"$JS.API.STREAM.UPDATE.LEDGER",
		"$JS.API.STREAM.DELETE.LEDGER",
		"$JS.API.STREAM.PURGE.LEDGER",
		"$JS.API.STREAM.MSG.DELETE.LEDGER",
		"$JS.API.CONSUMER.DELETE.LEDGER.any",
	} {
		if err := rnc.Publish(subj, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		rerrs.wantViolation(t, "Publish", subj)
	}
	// ... and cannot read the sealed secrets: not through the KV client,
	// not by a direct get, not by a consumer, not by listening to KV writes
	// or to the service's replies.
	kctx, kcancel := short()
	if _, err := rjs.KeyValue(kctx, ledgerjs.DefaultVaultBucket); err == nil {
		t.Error("tools: opened the sealed bucket")
	}
	kcancel()
	rerrs.wantViolation(t, "Publish", "$JS.API.STREAM.INFO.KV_LEDGER_SEALED")
	kvGet := "$JS.API.DIRECT.GET.KV_LEDGER_SEALED.$KV.LEDGER_SEALED.seed-c1-b1"
	kctx, kcancel = short()
	if resp, err := rnc.RequestWithContext(kctx, kvGet, nil); err == nil {
		t.Errorf("tools: direct get of a sealed value answered: %s", respData(resp))
	}
	kcancel()
	rerrs.wantViolation(t, "Publish", kvGet)
	kctx, kcancel = short()
	if _, err := rjs.OrderedConsumer(kctx, "KV_LEDGER_SEALED", natsjs.OrderedConsumerConfig{}); err == nil {
		t.Error("tools: created a consumer on the sealed bucket")
	}
	kcancel()
	for _, subj := range []string{"$KV.LEDGER_SEALED.>", "_INBOX.>", "ledger.>"} {
		if _, err := rnc.SubscribeSync(subj); err != nil {
			t.Fatal(err)
		}
		rerrs.wantViolation(t, "Subscription", subj)
	}

	// Nothing the tools user tried reached the stream.
	st, err := ljs.Stream(ctx, ledgerjs.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.CachedInfo().State; s.Msgs != uint64(len(stored)) || s.LastSeq != uint64(len(stored)) {
		t.Errorf("after the tools user: stream holds %d messages up to %d, want %d", s.Msgs, s.LastSeq, len(stored))
	}
	if _, err := st.GetLastMsgForSubject(ctx, forged); !errors.Is(err, natsjs.ErrMsgNotFound) {
		t.Errorf("after the tools user: %s holds a message (%v)", forged, err)
	}

	// The attacks of issue 14, replayed as the ledger and the tools user;
	// the administrator may bring the configurations up to date, and the
	// guard then finds nothing changed.
	attacks := jstest.Attacks(t, ledgerjs.Config{Replicas: 3}, ledgerjs.VaultConfig{Replicas: 3}, "seed-c1-b1")
	la, err := jstest.Dial(t, "ledger", strings.Join(urls, ","), nats.UserInfo("ledger", env["LEDGER_NATS_PASSWORD"]))
	if err != nil {
		t.Fatal(err)
	}
	jstest.Replay(t, la, attacks, true)
	ta, err := jstest.Dial(t, "tools", strings.Join(urls, ","), nats.UserInfo("tools", env["TOOLS_NATS_PASSWORD"]), nats.CustomInboxPrefix(toolsInbox))
	if err != nil {
		t.Fatal(err)
	}
	jstest.Replay(t, ta, attacks, false)
	anc, _ := connectAs(t, urls, "admin", env["ADMIN_NATS_PASSWORD"], nats.CustomInboxPrefix("_INBOX_admin"))
	ajs, err := natsjs.New(anc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledgerjs.Provision(ctx, ajs, ledgerjs.Config{Replicas: 3}, ledgerjs.VaultConfig{Replicas: 3}); err != nil {
		t.Errorf("admin: provision: %v", err)
	}
	if f, err := ledgerjs.Check(ctx, ljs, ledgerjs.Config{Replicas: 3}, ledgerjs.VaultConfig{Replicas: 3}); err != nil || len(f) > 0 {
		t.Errorf("after the attacks the guard finds %q (%v)", f, err)
	}
	if v, err := vault.Get(ctx, "seed-c1-b1"); err != nil || !bytes.Equal(v, secret) {
		t.Errorf("after the attacks the sealed value is %q, %v", v, err)
	}

	// The system user can see the cluster (nats server report jetstream).
	snc, _ := connectAs(t, urls, "sys", env["SYS_NATS_PASSWORD"])
	if _, err := snc.RequestWithContext(ctx, "$SYS.REQ.SERVER.PING", nil); err != nil {
		t.Errorf("sys: server ping: %v", err)
	}
}

func deployEvent(k events.Key, id, typ string) events.Envelope {
	return events.Envelope{
		ID: id, Campaign: k.Campaign, Battle: k.Battle, Type: typ, Schema: 1,
		Time:  time.Date(1815, 6, 18, 11, 30, 0, 0, time.UTC),
		Actor: "umpire", CommandID: strings.Split(id, "/")[0], Audience: events.AudienceAll,
		Payload: json.RawMessage(`{}`),
	}
}

func respData(m *nats.Msg) string {
	if m == nil {
		return ""
	}
	return string(m.Data)
}
