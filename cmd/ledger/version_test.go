package main

import (
	"os"
	"strings"
	"testing"
)

// A release build names the version and commit the linker was given
// (-X main.buildVersion, -X main.buildCommit: .goreleaser.yaml); any other build
// names a commit or says why it cannot.
func TestVersionNamesCommit(t *testing.T) {
	defer func(v, c string) { buildVersion, buildCommit = v, c }(buildVersion, buildCommit)

	buildVersion, buildCommit = "", ""
	got := versionString()
	if !strings.HasPrefix(got, ledgerVersion+", commit ") {
		t.Errorf("unstamped build: %q, want %q, commit ...", got, ledgerVersion)
	}

	buildVersion, buildCommit = "1.2.3", "0123456789abcdef0123456789abcdef01234567"
	got = versionString()
	if want := "1.2.3, commit 0123456789abcdef0123456789abcdef01234567, go"; !strings.HasPrefix(got, want) {
		t.Errorf("stamped build: %q, want it to begin %q", got, want)
	}
}

// TestReleaseStampsVersion: the release configuration and the Dockerfile
// set the very variables versionString reads; a rename of one without the
// others would leave every release saying "commit unknown".
func TestReleaseStampsVersion(t *testing.T) {
	for file, wants := range map[string][]string{
		"../../.goreleaser.yaml": {"-X main.buildVersion={{ .Version }}", "-X main.buildCommit={{ .FullCommit }}"},
		"../../Dockerfile":       {"-X main.buildCommit=${LEDGER_COMMIT}"},
	} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(raw), w) {
				t.Errorf("%s does not set %q", file, w)
			}
		}
	}
}
