#!/usr/bin/env bash
# Bootstrap what the tests and the demo need on a Debian 12 machine, as root.
# Every step is idempotent and cheap when its result already exists, so every make target
# may call it.
#
#   tools/bootstrap.sh debs      Debian packages (docker.io, debootstrap, ...)
#   tools/bootstrap.sh dockerd   a Docker engine that answers (systemd unit or a background dockerd)
#   tools/bootstrap.sh venv      .venv with the pinned toolchain (requirements.txt + constraints.txt)
#   tools/bootstrap.sh venv-min  .venv-min on the tested minimum ansible-core (requirements-min.txt +
#                                constraints-min.txt; not part of `all`, `make setup-min` builds it)
#   tools/bootstrap.sh galaxyvenv  .build/venv-galaxy: antsibull-docs + Sphinx (make docs) and galaxy-importer
#                                (requirements-galaxy.txt + constraints-galaxy.txt; not part of `all`)
#   tools/bootstrap.sh tree      .build/collections/ansible_collections/cubestudio/ascend -> repo
#   tools/bootstrap.sh getpip    offline stand-in for ansible-test's get-pip download
#   tools/bootstrap.sh images    test images built from debootstrap (no registry is reachable)
#   tools/bootstrap.sh all       all of the above
#   tools/bootstrap.sh python       print the interpreter the venv is built with (find_python)
#   tools/bootstrap.sh image-name   print the node image's name (the tag is the package list's hash)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The controller's Python: ansible-core 2.21 (requirements.txt) wants 3.12 or newer. PYTHON
# overrides; otherwise python3.12 from PATH, then pyenv's newest 3.12.x ($PYENV_ROOT, default
# ~/.pyenv), then /usr/local/bin and /usr/bin (find_python below).
PYTHON_WANT="3.12"
PYTHON="${PYTHON:-}"
VENV="$ROOT/.venv"
VENV_MIN="$ROOT/.venv-min"
BUILD="$ROOT/.build"
NODE_IMAGE="${NODE_IMAGE:-cubestudio/ascend-node}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DOCKERD_LOG="${DOCKERD_LOG:-/var/log/cubestudio-dockerd.log}"

# Packages of the simulated node image. Changing this list changes the image tag, so a
# stale image is never reused.
NODE_PACKAGES=(
  python3 systemd systemd-sysv dbus iproute2 procps kmod sudo ca-certificates
  net-tools docker.io containerd runc python3-grpcio tar gzip
  iptables
)

log() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*" >&2; }

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "tools/bootstrap.sh $1 needs root (Debian packages, dockerd, debootstrap)." >&2
    exit 1
  fi
}

step_debs() {
  local missing=()
  local pkg
  # gcc, libc6-dev: the simulated libdcmi.so (tests/simulator/dcmi) is compiled on the host; its tests
  # fail without a compiler. shellcheck: ansible-test's shellcheck test is skipped without it.
  # cmake and makeself: Huawei's build.sh of the Ascend Docker Runtime package (make docker-runtime).
  for pkg in docker.io debootstrap containerd runc git make rsync prometheus chromium gcc libc6-dev shellcheck time cmake makeself; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  need_root debs
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d on container-like hosts refuses to start services; dockerd is started below.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

docker_answers() { timeout 10 docker info >/dev/null 2>&1; }

step_dockerd() {
  if docker_answers; then
    return 0
  fi
  need_root dockerd
  if [ "$(cat /proc/1/comm 2>/dev/null)" = "systemd" ]; then
    log "starting docker.service"
    systemctl start docker
  else
    log "no systemd as PID 1: starting dockerd in the background (log: $DOCKERD_LOG)"
    nohup dockerd >"$DOCKERD_LOG" 2>&1 &
  fi
  local _
  for _ in $(seq 1 60); do
    if docker_answers; then
      log "dockerd answers"
      return 0
    fi
    sleep 1
  done
  echo "dockerd did not answer within 60 s; see $DOCKERD_LOG" >&2
  tail -n 20 "$DOCKERD_LOG" >&2 || true
  exit 1
}

find_python() {
  # Print the interpreter for the venv: $PYTHON if set, else python$PYTHON_WANT found on PATH,
  # in pyenv's versions (the newest patch release) or in /usr/local/bin, /usr/bin.
  if [ -n "$PYTHON" ]; then
    command -v "$PYTHON" || { echo "PYTHON=$PYTHON is not an executable" >&2; return 1; }
    return 0
  fi
  local candidate
  local pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
  for candidate in \
      "$(command -v "python$PYTHON_WANT" 2>/dev/null || true)" \
      "$(find "$pyenv_root/versions" -maxdepth 3 -path "*/$PYTHON_WANT.*/bin/python$PYTHON_WANT" 2>/dev/null \
        | sort -V | tail -n 1)" \
      "/usr/local/bin/python$PYTHON_WANT" "/usr/bin/python$PYTHON_WANT"; do
    # A pyenv shim exists on PATH even when no pyenv version provides the command: ask it.
    if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" --version >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
  echo "no Python $PYTHON_WANT found (PATH, \$PYENV_ROOT/versions, /usr/local/bin, /usr/bin):" \
    "install it (pyenv install $PYTHON_WANT, or the distribution's python$PYTHON_WANT package)" \
    "or set PYTHON=/path/to/python3.12 (or newer)" >&2
  return 1
}

hash_of() { sha256sum "$@" | sha256sum | cut -c1-12; }

# build_venv DIR REQUIREMENTS CONSTRAINTS: a venv with the pinned toolchain, rebuilt only when the
# pins or the interpreter change.
build_venv() {
  local venv="$1" requirements="$2" constraints="$3"
  local stamp="$venv/.cubestudio-stamp"
  local want lock
  # Steps that run side by side (make test: docs-site and galaxy-importer share venv-galaxy)
  # build a venv once: the second waits, then finds it current. Released when the script ends.
  mkdir -p "$BUILD/locks"
  exec {lock}>"$BUILD/locks/$(basename "$venv").lock"
  flock "$lock"
  PYTHON="$(find_python)"
  # The venv depends on the pins and the interpreter, not on the rest of this script (an edit
  # to the node image's package list must not rebuild a venv others are using).
  want="$( (cat "$requirements" "$constraints"; "$PYTHON" --version 2>&1) | sha256sum | cut -c1-12)"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  log "creating $venv with $($PYTHON --version) ($requirements)"
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" -c "$constraints"
  echo "$want" >"$stamp"
}

step_venv() { build_venv "$VENV" requirements.txt constraints.txt; }

# The tested minimum (requirements-min.txt): the oldest supported ansible-core, for ansible-test
# and the molecule `site` scenario of `make test` (docs/testing.md, "The tested minimum").
step_venv_min() { build_venv "$VENV_MIN" requirements-min.txt constraints-min.txt; }

# The docs site and galaxy-importer in a venv of their own: galaxy-importer pins attrs<24 and
# flake8<7, which the main toolchain does not share. Same rule as .venv: rebuilt when its pins or
# the interpreter change.
step_galaxyvenv() { build_venv "$BUILD/venv-galaxy" requirements-galaxy.txt constraints-galaxy.txt; }

step_tree() {
  # ansible-test and the collection loader need the collection at
  # <root>/ansible_collections/cubestudio/ascend; a relative symlink keeps the checkout movable.
  mkdir -p "$BUILD/collections/ansible_collections/cubestudio"
  ln -sfn ../../../.. "$BUILD/collections/ansible_collections/cubestudio/ascend"
}

step_getpip() {
  # ansible-test sanity downloads get-pip from a host this machine cannot reach; it uses a
  # cached copy first. This stand-in bootstraps pip from the standard library instead.
  local cache="$HOME/.ansible/test/cache"
  mkdir -p "$cache"
  local f
  # ansible-test 2.19 (.venv-min) bootstraps pip 24.2, 2.20 and 2.21 (.venv) pip 25.2.
  for f in get_pip_24_2.py get_pip_25_2.py; do
    [ -f "$cache/$f" ] && grep -q cubestudio "$cache/$f" && continue
    cat >"$cache/$f" <<'PY'
"""Offline stand-in for get-pip.py (written by cubestudio.ascend tools/bootstrap.sh)."""
import ensurepip
import os
import runpy
import sys

ensurepip.bootstrap(upgrade=True)
os.environ.pop("PIP_CONFIG_FILE", None)
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
if args:
    sys.argv = ["pip", "install"] + args
    runpy.run_module("pip", run_name="__main__")
PY
  done
}

node_image_tag() {
  printf '%s\n' "${NODE_PACKAGES[@]}" | sha256sum | cut -c1-12
}

step_images() {
  local tag
  tag="bookworm-$(node_image_tag)"
  local image="$NODE_IMAGE:$tag"
  mkdir -p "$BUILD/images"
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    need_root images
    local rootfs
    rootfs="$(mktemp -d /var/tmp/cubestudio-rootfs.XXXXXX)"
    # shellcheck disable=SC2064  # expand now: the trap must remove this very directory
    trap "rm -rf '$rootfs'" EXIT
    log "debootstrap Debian 12 into $rootfs (a minute or two)"
    local include
    include="$(IFS=,; echo "${NODE_PACKAGES[*]}")"
    if ! debootstrap --variant=minbase --include="$include" bookworm "$rootfs" "$DEBIAN_MIRROR" \
        >"$BUILD/images/debootstrap.log" 2>&1; then
      tail -n 30 "$BUILD/images/debootstrap.log" >&2
      rm -rf "$rootfs"
      exit 1
    fi
    # Services start under the test's control, not at boot of every scenario container.
    chroot "$rootfs" systemctl disable docker.service docker.socket containerd.service >/dev/null 2>&1 || true
    chroot "$rootfs" apt-get clean
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
    echo "ascend-sim-node" >"$rootfs/etc/hostname"
    log "importing $image"
    tar -C "$rootfs" -c . | docker import \
      -c 'ENV container=docker' \
      -c 'CMD ["/lib/systemd/systemd"]' \
      - "$image" >/dev/null
    rm -rf "$rootfs"
  fi
  docker tag "$image" "$NODE_IMAGE:latest"
  # A small image for containers started *inside* the simulated node (runtime verification):
  # the node's own userland without the engines, docs and systemd.
  local workload="$BUILD/images/workload-$tag.tar"
  if [ ! -s "$workload" ]; then
    log "exporting the workload image rootfs to $workload"
    local cid
    cid="$(docker create "$image" /bin/true)"
    docker export "$cid" | tar --delete --wildcards \
      'usr/bin/docker*' 'usr/sbin/dockerd' 'usr/bin/containerd*' 'usr/bin/ctr' \
      'usr/lib/systemd/*' 'lib/systemd/*' 'usr/share/*' 'var/lib/*' 'usr/libexec/docker/*' \
      >"$workload.tmp" 2>/dev/null || true
    docker rm "$cid" >/dev/null
    mv "$workload.tmp" "$workload"
  fi
  ln -sfn "workload-$tag.tar" "$BUILD/images/workload.tar"
}

main() {
  local step
  [ "$#" -gt 0 ] || set -- all
  for step in "$@"; do
    case "$step" in
      debs) step_debs ;;
      dockerd) step_dockerd ;;
      venv) step_venv ;;
      venv-min) step_venv_min ;;
      tree) step_tree ;;
      galaxyvenv) step_galaxyvenv ;;
      getpip) step_getpip ;;
      images) step_debs; step_dockerd; step_images ;;
      python) find_python ;;
      image-name) echo "$NODE_IMAGE:bookworm-$(node_image_tag)" ;;
      all) step_debs; step_dockerd; step_venv; step_tree; step_getpip; step_images ;;
      *) echo "unknown step: $step" >&2; exit 2 ;;
    esac
  done
}

main "$@"
