#!/usr/bin/env bash
# `make demo`: the main job on the built-in default. Builds a simulated Ascend node (an Atlas
# server with 8 x 910B3 in a systemd container, see tests/simulator/README.md) joined to the
# test bed's real Kubernetes control plane, runs site.yml with every layer against it and prints
# the summary per host. The cluster stays up (admin kubeconfig: .build/cluster/kubeconfig). Run it again: the second run reports zero changed
# (and this script fails if it does not).
#   tools/demo.sh            create the node if needed, run site.yml
#   tools/demo.sh --clean    remove the demo node
#   tools/demo.sh -- ARGS    pass ARGS to ansible-playbook (e.g. -- --check --diff)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH"
NODE="${DEMO_NODE:-cubestudio-demo-node}"
MODEL="${DEMO_MODEL:-910B3}"
CARDS="${DEMO_CARDS:-8}"
DEMO="$ROOT/.build/demo"
SIM="$ROOT/tests/simulator/bin/ascend-sim"

log() { printf '\033[1m[demo]\033[0m %s\n' "$*" >&2; }

if [ "${1:-}" = "--clean" ]; then
  python tests/testbed/bed.py leave "$NODE" >/dev/null 2>&1 || true
  if docker rm -f -v "$NODE" >/dev/null 2>&1; then log "removed $NODE"; else log "no $NODE to remove"; fi
  rm -rf "$DEMO"
  exit 0
fi
[ "${1:-}" = "--" ] && shift

mkdir -p "$DEMO"

# 1. The packages, as an operator would download them: built by the simulator on the controller.
#    Rebuilt only when the simulator changed, so that a re-run sees the very same files.
sim_hash="$(find tests/simulator/ascend_sim tests/simulator/bin -type f -name '*' ! -name '*.pyc' -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
if [ "$(cat "$DEMO/artifacts/.sim-hash" 2>/dev/null)" != "$sim_hash" ]; then
  log "building the simulated Huawei packages into $DEMO/artifacts"
  rm -rf "$DEMO/artifacts"
  "$SIM" build-artifacts --out "$DEMO/artifacts" >/dev/null
  echo "$sim_hash" >"$DEMO/artifacts/.sim-hash"
fi

# 2. The node: created once, then reused (that is what makes the second run a real re-run).
#    A run counts as a re-run only after a previous run on this node succeeded. It is a node of
#    the test bed (tests/testbed/README.md): its kubelet joins the bed's real control plane
#    before any Ascend software is there, as a server that is already a Kubernetes node.
first_run=true
[ -f "$DEMO/converged-$NODE" ] && first_run=false
if ! docker container inspect "$NODE" >/dev/null 2>&1; then
  first_run=true
  rm -f "$DEMO/converged-$NODE"
elif [ "$(docker container inspect -f '{{.State.Running}}' "$NODE")" != "true" ]; then
  docker start "$NODE" >/dev/null
fi
# The server as it arrives: NPUs on the PCI bus, Docker installed and running beside the
# containerd the kubelet uses (the classic trap), an image the operator already has (used by the
# runtime's verification container), no Ascend software. tools/bench.py makes its nodes the same way.
python tests/testbed/bed.py node "$NODE" --model "$MODEL" --cards "$CARDS" --docker

python tests/testbed/bed.py join "$NODE"

# 3. The inventory an operator would write for this node.
cat >"$DEMO/inventory.yml" <<EOF
---
all:
  children:
    ascend_nodes:
      hosts:
        $NODE:
          ansible_connection: community.docker.docker
          ansible_python_interpreter: /usr/bin/python3
      vars:
        # Test hook: the simulated PCI devices live here (a container cannot create them in /sys).
        ascend_sysfs_root: /var/lib/ascend-sim/sys
        ascend_artifact_local_dir: $DEMO/artifacts
        ascend_artifact_checksums: "{{ lookup('ansible.builtin.file', '$DEMO/artifacts/artifacts.json') | from_json | items2dict(key_name='file', value_name='sha256') }}"
        ascend_runtime_verify_image: docker.io/cubestudio/workload:latest
        # The simulated node runs Debian 12, which Huawei does not list for the 910B: the
        # tolerant policy turns that into a warning (the summary shows it) instead of a refusal.
        ascend_compat_policy: tolerant
        # The Kubernetes layer: the bed's admin kubeconfig on this controller, and the
        # MindCluster image tarballs as a release zip ships them (no registry).
        ascend_kubernetes: true
        ascend_kubeconfig: $ROOT/.build/cluster/kubeconfig
        device_plugin_image_archive: $ROOT/.build/images/mindcluster/ascend-k8sdeviceplugin_v7.3.0_x86_64.tar
        exporter_image_archive: $ROOT/.build/images/mindcluster/npu-exporter_v7.3.0_x86_64.tar
        device_plugin_smoke_image: docker.io/cubestudio/workload:latest
        # The NPU parameter-plane network (role hccn, docs/hccn.md): an Atlas 800T A2 puts its
        # 8 RoCE ports in one subnet; this node's ports get .10 to .17, gateway and detect .1.
        hccn_subnets: [10.20.0.0/24]
        hccn_gateways: [10.20.0.1]
        hccn_netdetect: [10.20.0.1]
        hccn_host_offset: 10
  hosts:
    localhost:
      ansible_connection: local
      ansible_python_interpreter: $ROOT/.venv/bin/python
EOF

# 4. The main job.
log "ansible-playbook site.yml -i $DEMO/inventory.yml $*"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"
set +e
ansible-playbook -i "$DEMO/inventory.yml" site.yml "$@" 2>&1 | tee "$DEMO/last-run.log"
rc=${PIPESTATUS[0]}
set -e
recap="$(grep -E "^$NODE +: ok=" "$DEMO/last-run.log" | tail -n1)"
changed="$(sed -E 's/.*changed=([0-9]+).*/\1/' <<<"$recap")"
if [ "$rc" -ne 0 ]; then
  echo "demo: site.yml failed (exit $rc); log: $DEMO/last-run.log" >&2
  exit "$rc"
fi
case " $* " in
  *" --check "*|*" -C "*) log "check mode run: changed=$changed (nothing was changed)"; exit 0 ;;
esac
if [ "$first_run" = true ]; then
  touch "$DEMO/converged-$NODE"
  log "first run on a new node: changed=$changed. Run 'make demo' again: it must report changed=0."
elif [ "$changed" = "0" ]; then
  log "re-run on an existing node: changed=0 (idempotent). 'make demo-clean' starts over."
else
  echo "demo: re-run on an existing node reported changed=$changed, expected 0; log: $DEMO/last-run.log" >&2
  exit 1
fi
