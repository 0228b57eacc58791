#!/usr/bin/env bash
# shellcheck disable=SC2016  # the commands in single quotes are expanded in the node, not here
# Huawei's real Ascend Docker Runtime (ascend-docker-runtime, -hook, -cli, -destroy and the
# install helper), built from MindCluster's source, run in one simulated node container of the
# test bed (never --privileged, no /sys/fs/cgroup bind mount), as Docker's default runtime and
# as containerd's `ascend` handler through the CRI. Feasibility probe, not part of `make test`:
# see tests/mindcluster/README.md, section "Ascend Docker Runtime", for what it showed.
#
#   tests/mindcluster/try_docker_runtime.sh            build (cached), probe every tag, clean up
#   TAGS="v26.0.0" tests/mindcluster/try_docker_runtime.sh
#   NODE_DEVICE_RULE=no ...   the node exactly as molecule creates it (without the bed's
#                             --device-cgroup-rule 'a *:* rwm')
#   KEEP_NODE=yes ...         leave the node container running for a look (docker rm -f -v it)
#
# Needs: a Docker engine (tools/bootstrap.sh dockerd), the node image (make images), crictl
# (make crictl, or CRICTL=/path), Go >= 1.21 and gcc on the host, the Go module proxy.
# Huawei's source is read from MINDCLUSTER_SRC (default ../shared/mindcluster) and copied per
# tag into WORK (outside the checkout: `go build -mod=mod` rewrites go.mod/go.sum). Nothing of
# it enters the checkout. Exit 0 only when every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MINDCLUSTER_SRC="${MINDCLUSTER_SRC:-$ROOT/../shared/mindcluster}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cubestudio-ascend/mindcluster"
WORK="${WORK:-$CACHE/adr}"
TAGS="${TAGS:-v7.3.0 v26.0.0 v26.1.0}"
NODE="${NODE:-cubestudio-adr-probe}"
NODE_DEVICE_RULE="${NODE_DEVICE_RULE:-yes}"
CRICTL="${CRICTL:-$ROOT/.build/k8s/bin/crictl}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
NICE=(nice -n 10)
ADR=/usr/local/Ascend/Ascend-Docker-Runtime

FAILED=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILED=1; }
node() { docker exec "$NODE" bash -c "$1"; }

# ---------------------------------------------------------------------------------------------
# 1. Build, once per tag and content of the source (Huawei's flags from build/build.sh)
# ---------------------------------------------------------------------------------------------
write_securec() {
  # Huawei builds the C parts against libboundscheck (platform/libboundscheck, not in the
  # source tree). These are just enough of its functions, with its return conventions.
  mkdir -p "$WORK/securec"
  cat >"$WORK/securec/securec.h" <<'EOF'
/* Minimal stand-in for libboundscheck's securec.h (cubestudio.ascend test builds only). */
#ifndef SECUREC_SHIM_H
#define SECUREC_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
typedef int errno_t;
#define EOK 0
static inline errno_t memset_s(void *d, size_t dmax, int c, size_t n)
{ if (d == NULL) return EINVAL; if (n > dmax) { memset(d, c, dmax); return ERANGE; } memset(d, c, n); return EOK; }
static inline errno_t strcpy_s(char *d, size_t dmax, const char *s)
{ if (!d || !s || dmax == 0) return EINVAL; size_t l = strlen(s); if (l >= dmax) { d[0] = 0; return ERANGE; }
  memcpy(d, s, l + 1); return EOK; }
static inline errno_t strncpy_s(char *d, size_t dmax, const char *s, size_t n)
{ if (!d || !s || dmax == 0) return EINVAL; size_t l = strnlen(s, n); if (l >= dmax) { d[0] = 0; return ERANGE; }
  memcpy(d, s, l); d[l] = 0; return EOK; }
static inline errno_t strcat_s(char *d, size_t dmax, const char *s)
{ if (!d || !s || dmax == 0) return EINVAL; size_t dl = strnlen(d, dmax), sl = strlen(s);
  if (dl + sl >= dmax) return ERANGE; memcpy(d + dl, s, sl + 1); return EOK; }
#define strcat_sp strcat_s
static inline int vsnprintf_s(char *d, size_t dmax, size_t count, const char *fmt, va_list ap)
{ if (!d || dmax == 0) return -1; size_t lim = count < dmax ? count + 1 : dmax;
  int r = vsnprintf(d, lim, fmt, ap); return (r < 0 || (size_t)r >= lim) ? -1 : r; }
static inline int sprintf_s(char *d, size_t dmax, const char *fmt, ...)
{ va_list ap; int r; if (!d || dmax == 0) return -1; va_start(ap, fmt); r = vsnprintf(d, dmax, fmt, ap); va_end(ap);
  if (r < 0 || (size_t)r >= dmax) { d[0] = 0; return -1; } return r; }
static inline char *strtok_s(char *s, const char *delim, char **ctx) { return strtok_r(s, delim, ctx); }
#endif
EOF
}

build_tag() {
  local tag="$1" src="$MINDCLUSTER_SRC/$1/component" key out
  key="$( (cd "$src" && find ascend-docker-runtime ascend-common -type f -print0 | sort -z | xargs -0 sha256sum;
           sha256sum "$WORK/securec/securec.h"; go version; gcc --version | head -1) | sha256sum | cut -c1-16)"
  out="$WORK/out/$tag-$key"
  if [ -x "$out/ascend-docker-runtime" ]; then echo "$out"; return; fi
  rm -rf "$WORK/src/$tag" && mkdir -p "$WORK/src/$tag" "$out.tmp"
  cp -r "$src/ascend-docker-runtime" "$src/ascend-common" "$WORK/src/$tag/"
  local d="$WORK/src/$tag/ascend-docker-runtime" p o
  local ld='-linkmode=external -buildid=IdNetCheck -extldflags "-Wl,-z,now" -w -s'
  for p in install:ascend-docker-plugin-install-helper hook:ascend-docker-hook runtime:ascend-docker-runtime; do
    o="${p#*:}"
    (cd "$d/${p%%:*}" && GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOTOOLCHAIN=local GOFLAGS=-mod=mod \
      GOMAXPROCS=2 CGO_ENABLED=1 "${NICE[@]}" go build -buildmode=pie -ldflags="$ld" -trimpath -o "$out.tmp/$o" .) >&2
  done
  (cd "$d" && "${NICE[@]}" gcc -std=gnu11 -D_GNU_SOURCE -O2 -fstack-protector-all -fpie -pie -I"$WORK/securec" \
     -o "$out.tmp/ascend-docker-cli" cli/src/*.c &&
   "${NICE[@]}" gcc -std=gnu11 -D_GNU_SOURCE -O2 -I"$WORK/securec" -Icli/src -o "$out.tmp/ascend-docker-destroy" \
     destroy/src/main.c cli/src/logger.c cli/src/utils.c -ldl) >&2
  cp "$d/build/scripts/base.list" "$out.tmp/base.list"
  mv "$out.tmp" "$out"
  echo "$out"
}

# ---------------------------------------------------------------------------------------------
# 2. The node: the molecule platform (tests/testbed/bed.py reads it), the simulator, the driver
# ---------------------------------------------------------------------------------------------
start_node() {
  local image
  image="$("$ROOT/tools/bootstrap.sh" image-name)"
  docker image inspect "$image" >/dev/null 2>&1 || { echo "node image $image missing: make images" >&2; exit 2; }
  docker rm -f -v "$NODE" >/dev/null 2>&1 || true
  mapfile -d '' args < <(cd "$ROOT" && CUBESTUDIO_NODE_IMAGE="$image" PYTHONPATH="$ROOT/tests/testbed" "$PYTHON" -c '
import sys, bed
sys.stdout.write("\0".join(bed.node_run_args(sys.argv[1])) + "\0")' "$NODE")
  if [ "$NODE_DEVICE_RULE" = no ]; then  # molecule's own nodes: no --device-cgroup-rule
    local kept=() i
    for ((i = 0; i < ${#args[@]}; i++)); do
      if [ "${args[i]}" = --device-cgroup-rule ]; then i=$((i + 1)); continue; fi
      kept+=("${args[i]}")
    done
    args=("${kept[@]}")
  fi
  # The bed's .build mounts are not needed here; keep only what exists.
  local run=() a
  for ((i = 0; i < ${#args[@]}; i++)); do
    a="${args[i]}"
    if [ "$a" = -v ] && [[ "${args[i+1]}" == "$ROOT/.build"* ]] && [ ! -e "${args[i+1]%%:*}" ]; then
      i=$((i + 1)); continue
    fi
    run+=("$a")
  done
  echo "docker run -d ${run[*]}"
  docker run -d "${run[@]}" >/dev/null
  for _ in $(seq 30); do
    state="$(docker exec "$NODE" systemctl is-system-running 2>/dev/null || true)"
    case "$state" in running|degraded) break ;; esac
    sleep 2
  done
  node 'grep ^CapEff /proc/1/status'
  "${NICE[@]}" "$ROOT/tests/simulator/bin/ascend-sim" build-artifacts --out "$WORK/artifacts" >/dev/null
  docker cp "$WORK/artifacts/Ascend-hdk-910b-npu-driver_25.5.0_linux-$(uname -m).run" "$NODE:/root/npu-driver.run"
  node '/opt/ascend-sim/bin/ascend-sim hw-init --model 910B3 --cards 8 --sysfs-root /var/lib/ascend-sim/sys >/dev/null &&
        bash /root/npu-driver.run --nox11 --full --quiet --install-for-all --install-username=root \
          --install-usergroup=root >/dev/null && ls /dev | grep -c davinci'
}

# The runtime dlopen()s "libdcmi.so" by soname (runtime/dcmi/dcmi_interface_api.h), from
# containerd-shim's environment. The simulated driver puts it in lib64/driver but not in the
# loader's search path: register the folder with ldconfig (a containerd drop-in with
# Environment=LD_LIBRARY_PATH=... works as well).
loader_path() {
  node 'echo /usr/local/Ascend/driver/lib64/driver > /etc/ld.so.conf.d/ascend-driver-dcmi.conf && ldconfig &&
        ldconfig -p | grep -q "libdcmi.so "'
}

# Test image from the node's own binaries (no registry): sh, python3 (the simulated npu-smi),
# sleep; also the pod sandbox image that config.toml names.
images() {
  node 'set -e; R=/root/rootfs; rm -rf $R; mkdir -p $R/bin $R/usr/bin $R/dev $R/proc $R/sys $R/etc $R/usr/local/bin
    P=$(readlink -f /usr/bin/python3); V=$(basename $P)
    for b in /bin/sh /bin/ls /bin/cat /bin/grep /bin/sleep $P; do
      cp -L $b $R/bin/; for l in $(ldd $b | grep -o "/[^ ]*"); do mkdir -p $R$(dirname $l); cp -Ln $l $R$l; done
    done
    mv $R/bin/$V $R/bin/python3; ln -sf /bin/python3 $R/usr/bin/python3; cp /usr/bin/env $R/usr/bin/env
    mkdir -p $R/usr/lib/$V; tar -C /usr/lib/$V --exclude=test --exclude=__pycache__ -c . | tar -C $R/usr/lib/$V -x
    echo "root:x:0:0::/root:/bin/sh" >$R/etc/passwd; echo "root:x:0:" >$R/etc/group
    E="ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    tar -C $R -c . | docker import -c "$E" - adrprobe/workload:1 >/dev/null
    tar -C $R -c . | docker import -c "$E" -c "ENTRYPOINT [\"/bin/sleep\",\"infinity\"]" - adrprobe/pause:1 >/dev/null
    docker save adrprobe/workload:1 adrprobe/pause:1 | ctr -n k8s.io images import - >/dev/null
    ctr -n k8s.io images tag --force docker.io/adrprobe/pause:1 registry.k8s.io/pause:3.6 >/dev/null'
}

# Docker: Huawei's install helper writes daemon.json (scene docker, default runtime "ascend").
# containerd 1.6: the ascend handler as the role writes it (molecule ascend_runtime_containerd,
# scenario_expected_config_toml); the v7.3.0/v26.0.0 helper cannot do it on this node (README).
engines() {  # engines TAG (of the installed helper: up to 26.0.0 it also takes cgroup fs type, OS, version)
  local extra='$(stat -fc %T /sys/fs/cgroup/) debian 12'
  [ "$1" = v26.1.0 ] && extra=
  node "systemctl start docker containerd && mkdir -p -m 750 /etc/docker &&
    $ADR/ascend-docker-plugin-install-helper add /etc/docker/daemon.json /etc/docker/daemon.json.new \
      $ADR/ascend-docker-runtime no docker $extra >/dev/null &&
    mv -f /etc/docker/daemon.json.new /etc/docker/daemon.json && chmod 600 /etc/docker/daemon.json"
  "$PYTHON" - "$ROOT" >"$WORK/config.toml" <<'EOF'
import sys, yaml
path = sys.argv[1] + "/extensions/molecule/ascend_runtime_containerd/host_vars/ascend-ascend_runtime_containerd.yml"
sys.stdout.write(yaml.safe_load(open(path, encoding="utf-8"))["scenario_expected_config_toml"])
EOF
  docker cp "$WORK/config.toml" "$NODE:/etc/containerd/config.toml"
  docker cp "$CRICTL" "$NODE:/usr/local/bin/crictl"
  node 'printf "runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\n" >/etc/crictl.yaml
        systemctl restart containerd docker && sleep 2 && docker info 2>/dev/null | grep "Default Runtime"'
}

install_tag() {  # the five files where run_main.sh puts them, modes as it sets them
  local out="$1"
  docker exec "$NODE" rm -rf /root/adr-in
  docker cp "$out" "$NODE:/root/adr-in"
  node "mkdir -p -m 750 $ADR /etc/ascend-docker-runtime.d
    for f in ascend-docker-runtime ascend-docker-hook ascend-docker-cli ascend-docker-plugin-install-helper ascend-docker-destroy; do
      install -o root -g root -m 550 /root/adr-in/\$f $ADR/\$f
    done
    install -o root -g root -m 440 /root/adr-in/base.list /etc/ascend-docker-runtime.d/base.list"
}

# What a container sees: its NPU device nodes, npu-smi's count, the driver mounts.
SEE='echo $(ls /dev | grep -E "^(davinci|devmm_svm|hisi_hdc)");
     command -v npu-smi >/dev/null && npu-smi info -l | grep "Total Count" || echo "no npu-smi";
     grep -cE " /usr/local/(Ascend/driver/lib64|dcmi|bin/npu-smi) " /proc/self/mountinfo || true'

cri_pod() {  # cri_pod HANDLER DEVICES -> what the container sees
  node "mkdir -p /opt/cri && cat >/opt/cri/pod.json <<'EOF'
{\"metadata\":{\"name\":\"adr-probe\",\"uid\":\"adr-probe\",\"namespace\":\"default\"},\"log_directory\":\"/tmp/adr-probe\",
 \"linux\":{\"cgroup_parent\":\"kubepods.slice\",\"security_context\":{\"namespace_options\":{\"network\":2,\"pid\":1}}}}
EOF
cat >/opt/cri/ctr.json <<'EOF'
{\"metadata\":{\"name\":\"check\"},\"image\":{\"image\":\"docker.io/adrprobe/workload:1\"},\"command\":[\"sleep\"],\"args\":[\"600\"],
 \"envs\":[{\"key\":\"ASCEND_VISIBLE_DEVICES\",\"value\":\"$2\"}],
 \"mounts\":[{\"container_path\":\"/var/lib/ascend-sim\",\"host_path\":\"/var/lib/ascend-sim\",\"readonly\":true}],
 \"log_path\":\"check.log\",\"linux\":{\"security_context\":{\"namespace_options\":{\"network\":2,\"pid\":1}}}}
EOF
P=\$(crictl runp --runtime $1 /opt/cri/pod.json 2>/dev/null) || { echo runp-failed; exit 0; }
C=\$(crictl create --no-pull \$P /opt/cri/ctr.json /opt/cri/pod.json 2>/dev/null) && crictl start \$C >/dev/null 2>&1 &&
  crictl exec --sync \$C sh -c '$SEE' 2>&1
crictl stopp \$P >/dev/null 2>&1; crictl rmp \$P >/dev/null 2>&1; true"
}

check() {  # check NAME OUTPUT EXPECTED-DEVICES EXPECTED-NPU-SMI EXPECTED-DRIVER-MOUNTS
  local devs count mounts
  devs="$(echo "$2" | sed -n 1p | xargs)"
  count="$(echo "$2" | sed -n 2p | xargs)"
  mounts="$(echo "$2" | sed -n 3p | xargs)"
  if [ "$devs" = "$3" ] && [ "$count" = "$4" ] && [ "$mounts" = "$5" ]; then
    pass "$1: devices [$devs], npu-smi [$count], driver mounts $mounts"
  else
    fail "$1: devices [$devs] (want [$3]), npu-smi [$count] (want [$4]), mounts [$mounts] (want [$5]); output: $2"
  fi
}

probe_tag() {
  local tag="$1" out
  out="$(node "docker run --rm -e ASCEND_VISIBLE_DEVICES=0 -v /var/lib/ascend-sim:/var/lib/ascend-sim:ro \
               adrprobe/workload:1 sh -c '$SEE'" 2>&1 || true)"
  check "$tag docker (default runtime ascend) ASCEND_VISIBLE_DEVICES=0" "$out" \
    "davinci0 davinci_manager devmm_svm hisi_hdc" "Total Count : 1" 3
  out="$(node "docker run --rm -e ASCEND_VISIBLE_DEVICES=1,3 -v /var/lib/ascend-sim:/var/lib/ascend-sim:ro \
               adrprobe/workload:1 sh -c '$SEE'" 2>&1 || true)"
  check "$tag docker ASCEND_VISIBLE_DEVICES=1,3" "$out" \
    "davinci1 davinci3 davinci_manager devmm_svm hisi_hdc" "Total Count : 2" 3
  out="$(node "docker run --rm --runtime runc -e ASCEND_VISIBLE_DEVICES=0 adrprobe/workload:1 sh -c '$SEE'" 2>&1 || true)"
  check "$tag docker --runtime runc" "$out" "" "no npu-smi" 0
  out="$(cri_pod ascend 0)"
  check "$tag CRI handler ascend ASCEND_VISIBLE_DEVICES=0" "$out" \
    "davinci0 davinci_manager devmm_svm hisi_hdc" "Total Count : 1" 3
  out="$(cri_pod runc 0)"
  check "$tag CRI handler runc" "$out" "" "no npu-smi" 0
  if [ "$tag" = v26.1.0 ]; then  # 26.1.0 adds the driver libraries to LD_LIBRARY_PATH
    out="$(node "docker run --rm -e ASCEND_VISIBLE_DEVICES=0 adrprobe/workload:1 env" | grep ^LD_LIBRARY_PATH= || true)"
    if [ "$out" = LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/driver/lib64/driver ]; then
      pass "$tag $out"; else fail "$tag LD_LIBRARY_PATH: '$out'"; fi
  fi
}

# What refuses without CAP_SYS_ADMIN: the cli's setns(CLONE_NEWNS) into the container.
probe_setns() {
  local out
  out="$(node "docker rm -f adr-plain >/dev/null 2>&1; docker run -d --name adr-plain --runtime runc adrprobe/workload:1 sleep 60 >/dev/null
    PID=\$(docker inspect -f '{{.State.Pid}}' adr-plain); RF=\$(docker inspect -f '{{.GraphDriver.Data.MergedDir}}' adr-plain)
    setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- $ADR/ascend-docker-cli --allow-link False --pid \$PID \
      --rootfs \$RF --mount-dir /usr/local/dcmi >/dev/null 2>&1; echo rc=\$?
    tail -4 /var/log/ascend-docker-runtime/docker-runtime-log.log; docker rm -f adr-plain >/dev/null")"
  if [[ "$out" == *"rc=255"* && "$out" == *"failed to set ns"* ]]; then
    pass "ascend-docker-cli without CAP_SYS_ADMIN refused: $(echo "$out" | grep -m1 'failed to set ns')"
  else fail "ascend-docker-cli without CAP_SYS_ADMIN: $out"; fi
}

# The simulator's device nodes are char 1:3 (the numbers of /dev/null), which every device cgroup
# allows. With a major of its own (here 236, as a real davinci node has one), runc must write
# "c 236:0 rwm" into the container's devices.allow, and cgroup v1 refuses a rule that the
# node's own device cgroup does not allow: the bed's --device-cgroup-rule 'a *:* rwm' does.
probe_major() {
  local out
  out="$(node "mv /dev/davinci0 /root/davinci0.sim && mknod -m 666 /dev/davinci0 c 236 0
    docker run --rm -e ASCEND_VISIBLE_DEVICES=0 adrprobe/workload:1 ls -l /dev/davinci0 2>&1; echo rc=\$?
    rm -f /dev/davinci0; mv /root/davinci0.sim /dev/davinci0")"
  if [ "$NODE_DEVICE_RULE" = no ]; then
    if [[ "$out" == *"devices.allow: operation not permitted"* ]]; then
      pass "davinci0 as c 236:0 without the node's device rule refused: $(echo "$out" | grep -o 'failed to write.*permitted')"
    else fail "davinci0 as c 236:0 without the node's device rule: $out"; fi
  elif [[ "$out" == *"236, 0"*"rc=0"* ]]; then pass "davinci0 as c 236:0 with the node's device rule: $(echo "$out" | head -1)"
  else fail "davinci0 as c 236:0 with the node's device rule: $out"; fi
}

main() {
  [ -x "$CRICTL" ] || { echo "crictl missing at $CRICTL: make crictl (or CRICTL=/path)" >&2; exit 2; }
  mkdir -p "$WORK"
  write_securec
  declare -A outs
  local tag
  for tag in $TAGS; do outs[$tag]="$(build_tag "$tag")"; echo "built $tag: ${outs[$tag]}"; done
  if [ "${KEEP_NODE:-no}" != yes ]; then trap 'docker rm -f -v "$NODE" >/dev/null 2>&1 || true' EXIT; fi
  start_node
  loader_path
  install_tag "${outs[${TAGS%% *}]}"
  engines "${TAGS%% *}"
  images
  for tag in $TAGS; do
    install_tag "${outs[$tag]}"
    probe_tag "$tag"
  done
  probe_setns
  probe_major
  [ "$FAILED" = 0 ] && echo "ALL PASSED" || echo "SOME CHECKS FAILED"
  return "$FAILED"
}

main "$@"
