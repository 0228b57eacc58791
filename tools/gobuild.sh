#!/usr/bin/env bash
# Build Go programs of the test fixtures (tests/testbed, tests/simulator/k8s, ...) from the Go
# module proxy, once per content: a build is skipped when the stamp beside the output matches
# the hash of the module's go.mod, go.sum, Go/C sources, the build flags and the Go version.
#
#   tools/gobuild.sh MODULE_DIR OUT PACKAGE [go build flags...]
#   tools/gobuild.sh tests/testbed .build/k8s/bin/kube ./cmd/kube -ldflags "-s -w"
#
# MODULE_DIR may also be a module outside the repo's sources that a go.mod in .build names
# (the tool modules: containerd, crictl, CNI plugins). Caches: GOMODCACHE and GOCACHE below
# $GO_CACHE (default ~/.cache/cubestudio-ascend/go, outside the checkout), kept between runs
# and shared by every checkout; the linked binaries are kept there too ($GO_CACHE/out, by stamp),
# so a fresh clone copies a program it built before instead of linking it again (the kube
# link alone takes minutes). GOFLAGS=-mod=readonly: go.sum is the pin, a build never edits it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -ge 3 ] || { echo "usage: tools/gobuild.sh MODULE_DIR OUT PACKAGE [go build flags...]" >&2; exit 2; }
module="$1"
out="$2"
pkg="$3"
shift 3
case "$module" in /*) ;; *) module="$ROOT/$module" ;; esac
case "$out" in /*) ;; *) out="$ROOT/$out" ;; esac

GO_CACHE="${GO_CACHE:-$HOME/.cache/cubestudio-ascend/go}"
export GOMODCACHE="$GO_CACHE/mod" GOCACHE="$GO_CACHE/build"
export GOFLAGS="-mod=readonly" GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
command -v go >/dev/null || { echo "gobuild: no go on PATH (Go 1.26 is part of the machine)" >&2; exit 1; }

stamp_of() {
  {
    go version
    printf '%s\0' "$pkg" "$@" "CGO_ENABLED=${CGO_ENABLED:-}" "GOOS=${GOOS:-}" "GOARCH=${GOARCH:-}"
    (cd "$module" && find . -type f \( -name '*.go' -o -name '*.c' -o -name '*.h' -o -name go.mod -o -name go.sum \) \
      -not -path './vendor/*' -print0 | sort -z | xargs -0 sha256sum)
  } | sha256sum | cut -c1-16
}

want="$(stamp_of "$@")"
stamp="$out.stamp"
if [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p "$(dirname "$out")" "$GOMODCACHE" "$GOCACHE" "$GO_CACHE/out"
kept="$GO_CACHE/out/$(basename "$out")-$want"
if [ -x "$kept" ]; then
  cp "$kept" "$out.tmp" && mv "$out.tmp" "$out" && echo "$want" >"$stamp"
  exit 0
fi
start=$(date +%s)
printf '\033[1m[gobuild]\033[0m %s -> %s (cold builds of Kubernetes take many minutes on 2 cores)\n' \
  "$pkg" "${out#"$ROOT"/}" >&2
(cd "$module" && go build -trimpath -o "$out.tmp" "$@" "$pkg")
cp "$out.tmp" "$kept.tmp" && mv "$kept.tmp" "$kept"
mv "$out.tmp" "$out"
echo "$want" >"$stamp"
printf '\033[1m[gobuild]\033[0m %s built in %d s\n' "${out#"$ROOT"/}" "$(( $(date +%s) - start ))" >&2
