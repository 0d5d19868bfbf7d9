package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// The release's version and commit. A release build sets them with the
// linker (.goreleaser.yaml):
//
//	-ldflags "-X main.buildVersion=0.2.0 -X main.buildCommit=<40 hex digits>"
//
// A build that does not (go build, go install) falls back on what Go wrote
// into the binary: the module version go install was given, and the commit
// of the git checkout it was built in (vcs.revision, with -buildvcs, the
// default for go build in a checkout).
var (
	buildVersion = ""
	buildCommit  = ""
)

// ledgerVersion is the release this source is, when nothing else says.
const ledgerVersion = "0.2.0"

// versionString names the version and the commit the binary was built
// from, and says when it cannot know the commit and why.
func versionString() string {
	ver, rev, dirty := buildVersion, buildCommit, ""
	bi, ok := debug.ReadBuildInfo()
	if ok {
		// A tag (go install ...@v0.2.0), not a pseudo-version Go makes
		// up for a checkout (v0.0.0-20261202021434-bfa285153b86+dirty).
		if v := bi.Main.Version; ver == "" && strings.HasPrefix(v, "v") && !strings.ContainsAny(v, "-+") {
			ver = strings.TrimPrefix(v, "v")
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.modified":
				if s.Value == "true" && buildCommit == "" {
					dirty = " (with uncommitted changes)"
				}
			}
		}
	}
	if ver == "" {
		ver = ledgerVersion
	}
	if rev == "" {
		rev = "unknown (built outside a git checkout, or with -buildvcs=false, and without -X main.buildCommit)"
	}
	return fmt.Sprintf("%s, commit %s%s, %s", ver, rev, dirty, runtime.Version())
}
