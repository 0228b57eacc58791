#!/usr/bin/env bash
# Huawei's real Ascend Docker Runtime package, Ascend-docker-runtime_<ver>_linux-<arch>.run, built
# from Huawei's source by Huawei's own build/build.sh, once per tag and content.
#
#   tests/mindcluster/build_docker_runtime.sh TAG OUT_DIR
#   tests/mindcluster/build_docker_runtime.sh v26.1.0 .build/mindcluster/docker-runtime
#
# The source is $MINDCLUSTER_SRC/<tag>/component (default ../shared/mindcluster, seen from the
# repo root): Huawei's trees, Apache-2.0, never copied into the collection or the checkout. The
# two folders build.sh needs (ascend-docker-runtime, and ascend-common that its go.mod replaces)
# are copied to a scratch folder in the cache, where build.sh runs unchanged: cmake + make for
# ascend-docker-cli and ascend-docker-destroy, go build with its flags for the install helper,
# the hook and the runtime (`go mod tidy` and -mod=mod as it does), makeself with Huawei's
# build/makeself-header and --help-header. build.sh expects three things its tree does not carry:
#   - platform/libboundscheck (Huawei's bounds-checked C library; Debian has no package of it):
#     tests/mindcluster/securec_shim, the functions the cli and destroy call;
#   - opensource/makeself-release-2.4.2/makeself.sh: Debian's makeself (2.4.5), which takes its
#     header from the folder of the script as upstream makeself does (build.sh copies Huawei's
#     header there);
#   - service_config.ini, the first line `version=<ver>` (without it the package is named 6.0.0):
#     the tag without its v.
# The package is cached in $MINDCLUSTER_CACHE/docker-runtime (default
# ~/.cache/cubestudio-ascend/mindcluster), named by the hash of the source trees, this script,
# the shim, makeself, Go, gcc and cmake: a warm run builds nothing and copies the package when
# OUT_DIR's copy differs. The Go module and build caches are the device plugin's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/mindcluster"
[ "$#" -eq 2 ] || { echo "usage: tests/mindcluster/build_docker_runtime.sh TAG OUT_DIR" >&2; exit 2; }
tag="$1" out="$2"
case "$out" in /*) ;; *) out="$ROOT/$out" ;; esac
SRC="${MINDCLUSTER_SRC:-$ROOT/../shared/mindcluster}"
CACHE="${MINDCLUSTER_CACHE:-$HOME/.cache/cubestudio-ascend/mindcluster}"
tree="$SRC/$tag/component"
MAKESELF="${MAKESELF:-/usr/bin/makeself}"
[ -f "$tree/ascend-docker-runtime/build/build.sh" ] ||
  { echo "docker-runtime build: no Huawei source at $tree (set MINDCLUSTER_SRC)" >&2; exit 1; }
for tool in go gcc cmake make; do
  command -v "$tool" >/dev/null || { echo "docker-runtime build: no $tool on PATH" >&2; exit 1; }
done
[ -x "$MAKESELF" ] || { echo "docker-runtime build: no makeself at $MAKESELF (apt-get install makeself)" >&2; exit 1; }

version="${tag#v}"
arch="$(uname -m)"
name="Ascend-docker-runtime_${version}_linux-${arch}.run"

key="$({
  go version
  gcc --version | head -1
  cmake --version | head -1
  sha256sum "$MAKESELF" "${BASH_SOURCE[0]}" "$HERE"/securec_shim/include/* "$HERE"/securec_shim/src/* | cut -c1-64
  printf '%s\0' "$tag" "$arch"
  (cd "$tree" && find ascend-common ascend-docker-runtime -type f -print0 | sort -z | xargs -0 sha256sum)
} | sha256sum | cut -c1-16)"
built="$CACHE/docker-runtime/$tag-$key/$name"

if [ ! -f "$built" ]; then
  export GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOTOOLCHAIN=local
  scratch="$CACHE/src/docker-runtime-$tag-$key"
  rm -rf "$scratch"
  mkdir -p "$scratch" "$GOMODCACHE" "$GOCACHE" "$(dirname "$built")"
  cp -r "$tree/ascend-common" "$tree/ascend-docker-runtime" "$scratch/"
  chmod -R u+w "$scratch"
  adr="$scratch/ascend-docker-runtime"
  mkdir -p "$adr/platform/libboundscheck" "$adr/opensource/makeself-release-2.4.2"
  cp -r "$HERE/securec_shim/include" "$HERE/securec_shim/src" "$adr/platform/libboundscheck/"
  # shellcheck disable=SC2016  # the backquotes are for makeself.sh, not this shell
  sed 's|^HEADER=.*|HEADER=`dirname "$0"`/makeself-header.sh|' "$MAKESELF" \
    >"$adr/opensource/makeself-release-2.4.2/makeself.sh"
  printf 'version=%s\n' "$version" >"$adr/service_config.ini"
  # v7.3.0 and v26.0.0 link the install helper and the hook with -linkmode=external under
  # CGO_ENABLED=0, which Go 1.26 refuses ("-linkmode=external requires external (cgo) linking,
  # but cgo is not enabled"): the one change to Huawei's build.sh, cgo on for those two, so that
  # its flags (external linker, -z now) are kept. v26.1.0 builds them with cgo off (-bindnow).
  if grep -q "^    export CGO_ENABLED=0" "$adr/build/build.sh" &&
     grep -q "linkmode=external.*ascend-docker-plugin-install-helper" "$adr/build/build.sh"; then
    sed -i 's/^    export CGO_ENABLED=0$/    export CGO_ENABLED=1  # cubestudio: Go 1.26 needs cgo for -linkmode=external/' \
      "$adr/build/build.sh"
  fi
  log="$CACHE/docker-runtime/$tag-$key.log"
  start=$(date +%s)
  printf '\033[1m[mindcluster]\033[0m building %s from %s with its build/build.sh (log %s)\n' "$name" "$tree" "$log" >&2
  if ! (cd "$adr/build" && nice -n 10 bash ./build.sh) >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "docker-runtime build: Huawei's build.sh failed for $tag (whole log: $log)" >&2
    exit 1
  fi
  cp "$adr/output/$name" "$built.tmp"
  mv "$built.tmp" "$built"
  rm -rf "$scratch"
  printf '\033[1m[mindcluster]\033[0m %s built in %d s\n' "$name" "$(( $(date +%s) - start ))" >&2
fi
mkdir -p "$out"
if ! cmp -s "$built" "$out/$name" 2>/dev/null; then
  cp "$built" "$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name"
fi
echo "$out/$name"
