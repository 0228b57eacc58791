#!/usr/bin/env bash
# Build Huawei's real MindCluster binaries (device plugin, npu-exporter) from Huawei's source,
# with the flags of each component's build/build.sh, once per tag and content.
#
#   tests/mindcluster/build.sh TAG COMPONENT OUT
#   tests/mindcluster/build.sh v26.1.0 device-plugin .build/mindcluster/bin/device-plugin-v26.1.0
#
# The source is $MINDCLUSTER_SRC/<tag>/component (default ../shared/mindcluster, seen from the
# repo root): Huawei's trees, Apache-2.0, never copied into the collection. Go builds them with
# -mod=mod (Huawei's build.sh does; the go.sum files of the 7.3.0 and 26.0.0 device plugin are
# incomplete), so each tag's tree is copied to a scratch folder in the cache first (the shared
# source stays read-only). Module cache, build cache, scratch sources and built binaries live in
# $MINDCLUSTER_CACHE (default ~/.cache/cubestudio-ascend/mindcluster), outside the checkout and
# kept between checkouts: a binary is built again only when its source, flags or Go changed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ "$#" -eq 3 ] || { echo "usage: tests/mindcluster/build.sh TAG device-plugin|npu-exporter OUT" >&2; exit 2; }
tag="$1" component="$2" out="$3"
case "$out" in /*) ;; *) out="$ROOT/$out" ;; esac
SRC="${MINDCLUSTER_SRC:-$ROOT/../shared/mindcluster}"
CACHE="${MINDCLUSTER_CACHE:-$HOME/.cache/cubestudio-ascend/mindcluster}"
tree="$SRC/$tag/component"
[ -d "$tree/ascend-common" ] || { echo "mindcluster build: no Huawei source at $tree (set MINDCLUSTER_SRC)" >&2; exit 1; }

case "$component" in
  device-plugin)
    dir=ascend-device-plugin pkg=.
    # build/build.sh: BuildScene=center is required (checkBuildScene refuses anything else).
    ldflags="-X main.BuildName=device-plugin -X main.BuildScene=center -X main.BuildVersion=${tag}_linux-$(uname -m) -buildid none -s -extldflags=-Wl,-z,relro,-z,now,-z,noexecstack"
    ;;
  npu-exporter)
    dir=npu-exporter pkg=./cmd/npu-exporter
    ldflags="-s -extldflags=-Wl,-z,now -X huawei.com/npu-exporter/v6/versions.BuildName=npu-exporter -X huawei.com/npu-exporter/v6/versions.BuildVersion=${tag}_linux-$(uname -m)"
    ;;
  *) echo "mindcluster build: unknown component $component" >&2; exit 2 ;;
esac

export GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=1
export CGO_CFLAGS="-fstack-protector-strong -D_FORTIFY_SOURCE=2 -O2 -fPIC -ftrapv" CGO_CPPFLAGS="-fstack-protector-strong -D_FORTIFY_SOURCE=2 -O2 -fPIC -ftrapv"
command -v go >/dev/null || { echo "mindcluster build: no go on PATH" >&2; exit 1; }

key="$({
  go version
  printf '%s\0' "$tag" "$component" "$ldflags" "$pkg" "$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-64)"
  (cd "$tree" && find ascend-common "$dir" -type f -print0 | sort -z | xargs -0 sha256sum)
} | sha256sum | cut -c1-16)"
built="$CACHE/bin/$component-$tag-$key"
if [ ! -x "$built" ]; then
  mkdir -p "$CACHE/bin" "$CACHE/src" "$GOMODCACHE" "$GOCACHE"
  scratch="$CACHE/src/$tag-$component-$key"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  cp -r "$tree/ascend-common" "$tree/$dir" "$scratch/"
  chmod -R u+w "$scratch"
  start=$(date +%s)
  printf '\033[1m[mindcluster]\033[0m building %s %s from %s (cold: minutes on 2 cores)\n' "$component" "$tag" "$tree" >&2
  (cd "$scratch/$dir" && go build -mod=mod -buildmode=pie -trimpath -ldflags "$ldflags" -o "$built.tmp" "$pkg")
  mv "$built.tmp" "$built"
  rm -rf "$scratch"
  printf '\033[1m[mindcluster]\033[0m %s %s built in %d s\n' "$component" "$tag" "$(( $(date +%s) - start ))" >&2
fi
mkdir -p "$(dirname "$out")"
if ! cmp -s "$built" "$out" 2>/dev/null; then
  cp "$built" "$out.tmp" && mv "$out.tmp" "$out"
fi
