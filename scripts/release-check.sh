#!/usr/bin/env bash
# The release, tried: a goreleaser snapshot of .goreleaser.yaml into dist/,
# then a check of what it made, as a club would receive it (README.md,
# "Installing"; issue 27).
#
#   scripts/release-check.sh
#
# It needs Go, jq, file and unzip, Debian's cross compilers for cgo (gcc-aarch64-linux-gnu,
# gcc-mingw-w64-x86-64; installed here when missing and run as root) and
# the module proxy: goreleaser and cyclonedx-gomod are built at the pinned
# versions below into $RELEASE_TOOLS_DIR (default ~/.cache/ledger-release),
# outside the ledger's go.mod. The first run builds goreleaser (about 4.5
# minutes on 2 cores), then the snapshot builds SQLite with cgo for three
# targets (minutes more): too long for .ci/run's 15 minutes, so it is run
# by hand before a release. It checks:
#   - an archive for linux/amd64, linux/arm64 (tar.gz) and windows/amd64 (zip),
#     each holding the binary, LICENSE, README.md and CHANGELOG.md;
#   - checksums.txt: sha256sum -c passes for every archive and SBOM;
#   - an SBOM (CycloneDX JSON) per binary, naming the ledger's own module
#     and the modules linked in (mattn/go-sqlite3, nats-server);
#   - the Linux amd64 binary runs: --version names the snapshot's version
#     and the full commit, and `ledger demo` plays its battle;
#   - the Windows binary is a PE executable, the arm64 one an ELF aarch64.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASER_VERSION=v2.17.0
CYCLONEDX_GOMOD_VERSION=v1.10.0
tools="${RELEASE_TOOLS_DIR:-$HOME/.cache/ledger-release}"
mkdir -p "$tools"
export GOBIN="$tools"
export PATH="$tools:/usr/local/go/bin:$PATH"

need_gcc=()
command -v aarch64-linux-gnu-gcc >/dev/null || need_gcc+=(gcc-aarch64-linux-gnu)
command -v x86_64-w64-mingw32-gcc >/dev/null || need_gcc+=(gcc-mingw-w64-x86-64)
command -v x86_64-linux-gnu-gcc >/dev/null || need_gcc+=(gcc-x86-64-linux-gnu)
if [ ${#need_gcc[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need_gcc[@]}"
fi
if ! "$tools/goreleaser" --version 2>/dev/null | grep -q "${GORELEASER_VERSION#v}"; then
  echo "building goreleaser $GORELEASER_VERSION into $tools (a few minutes, once)"
  go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
if ! [ -x "$tools/cyclonedx-gomod" ]; then
  go install "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$CYCLONEDX_GOMOD_VERSION"
fi

goreleaser check
goreleaser release --snapshot --clean

fail() { echo "release-check: $*" >&2; exit 1; }
cd dist
commit=$(git rev-parse HEAD)
for target in linux_amd64.tar.gz linux_arm64.tar.gz windows_amd64.zip; do
  archive=$(ls ledger_*_"$target" 2>/dev/null | head -1)
  [ -n "$archive" ] || fail "no archive for $target"
  case "$archive" in
    *.zip) listing=$(unzip -Z1 "$archive") ; bin=ledger.exe ;;
    *) listing=$(tar -tzf "$archive") ; bin=ledger ;;
  esac
  for f in "$bin" LICENSE README.md CHANGELOG.md; do
    grep -qx "$f" <<<"$listing" || fail "$archive lacks $f"
  done
  sbom="${archive%.tar.gz}"; sbom="${sbom%.zip}.cdx.json"
  [ -s "$sbom" ] || fail "no SBOM $sbom beside $archive"
  jq -e '.bomFormat == "CycloneDX"' "$sbom" >/dev/null || fail "$sbom is not CycloneDX"
  for mod in github.com/clubledger/ledger github.com/mattn/go-sqlite3 github.com/nats-io/nats-server/v2; do
    jq -e --arg m "$mod" '[.metadata.component, .components[]?] | map(.name) | index($m) != null' "$sbom" >/dev/null ||
      fail "$sbom does not name $mod"
  done
  grep -q " $archive\$" checksums.txt || fail "checksums.txt does not list $archive"
  grep -q " $sbom\$" checksums.txt || fail "checksums.txt does not list $sbom"
done
sha256sum -c checksums.txt

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf ledger_*_linux_amd64.tar.gz -C "$work"
version=$("$work/ledger" --version)
echo "$version"
grep -q "snapshot" <<<"$version" || fail "--version does not name the snapshot's version: $version"
grep -q "$commit" <<<"$version" || fail "--version does not name commit $commit: $version"
(cd "$work" && ./ledger demo >demo.out) || fail "ledger demo failed"
grep -q "intact" "$work/demo.out" || fail "ledger demo did not check its chain"
tar -xzf ledger_*_linux_arm64.tar.gz -C "$work" ledger
file "$work/ledger" | grep -q "ARM aarch64" || fail "the arm64 binary is not an aarch64 ELF: $(file "$work/ledger")"
unzip -o -q ledger_*_windows_amd64.zip ledger.exe -d "$work"
file "$work/ledger.exe" | grep -q "PE32+ executable.*x86-64" || fail "ledger.exe is not a 64-bit PE: $(file "$work/ledger.exe")"
echo "release-check: every archive, its SBOM and checksums.txt are as README.md says"
ls -l
