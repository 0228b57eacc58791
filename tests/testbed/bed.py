# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kubernetes test bed: a real control plane and real kubelets on simulated Ascend nodes.

    bed.py up [--nodes N] [--model 910B3] [--cards 8] [--provision driver,runtime]
    bed.py control-plane                 only the control plane (idempotent)
    bed.py node CONTAINER [--model M] [--cards N] [--docker]
                                         a bare node container (the demo's, the bench's), not joined
    bed.py join CONTAINER [--node NAME]  join an existing node container (molecule, demo)
    bed.py leave CONTAINER               delete the Node object and forget the node
    bed.py status                        nodes and their state, as JSON
    bed.py down                          remove every container, the network and .build/cluster

Everything Kubernetes is the real thing, built from the Go modules by `make k8s` into
.build/k8s/bin (one multi-call binary `kube`: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, kubelet, kube-proxy, kubectl; and a static `pause`). The control plane runs in
a container of its own on a docker network of its own; each node is a simulated Ascend node
(the molecule node definition of extensions/molecule/config.yml) whose kubelet and kube-proxy
are systemd units that use the node's own containerd through the CRI. The admin kubeconfig is
written to .build/cluster/kubeconfig (a contract).

Settings (environment): BED_NAME (prefix of the docker objects, default derived from the
checkout so that two checkouts on one machine do not meet), BED_SUBNET (the docker network,
default 172.31.<n>.0/24 derived the same way), BED_DIR (default .build/cluster).
Why each choice, and what is relaxed for a kubelet in an unprivileged container:
tests/testbed/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import io
import ipaddress
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "cri"))

from pki import PKI  # noqa: E402

KUBERNETES_VERSION = "v1.34.4"
SERVICE_CIDR = "10.96.0.0/16"
KUBERNETES_SERVICE_IP = "10.96.0.1"
CLUSTER_CIDR = "10.244.0.0/16"
NODE_IMAGE = (
    os.environ.get("CUBESTUDIO_NODE_IMAGE")
    or subprocess.run(
        [os.path.join(ROOT, "tools", "bootstrap.sh"), "image-name"],
        stdout=subprocess.PIPE,
        check=True,
        text=True,
    ).stdout.strip()
)
os.environ["CUBESTUDIO_NODE_IMAGE"] = NODE_IMAGE
# Inside every node container, the checkout's .build folder (extensions/molecule/config.yml).
NODE_BUILD = "/opt/cubestudio-build"
# The pause image under the names containerd 1.6 and 2.x (and kubelet 1.34) look for.
PAUSE_NAMES = (
    "registry.k8s.io/pause:3.6",
    "registry.k8s.io/pause:3.8",
    "registry.k8s.io/pause:3.9",
    "registry.k8s.io/pause:3.10",
    "registry.k8s.io/pause:3.10.1",
)
WORKLOAD_IMAGE = "docker.io/cubestudio/workload:latest"
# kubelet makes sure of these at start (pkg/kubelet/cm/container_manager_linux.go,
# setupKernelTunables) and stops when it cannot write one; a container's /proc/sys is
# read-only, so the bed sets them on the machine first, to kubelet's own values.
KUBELET_SYSCTLS = {
    "vm/overcommit_memory": "1",
    "vm/panic_on_oom": "0",
    "kernel/panic": "10",
    "kernel/panic_on_oops": "1",
    "kernel/keys/root_maxkeys": "1000000",
    "kernel/keys/root_maxbytes": "25000000",
}


class BedError(Exception):
    pass


def log(message):
    sys.stderr.write("\033[1m[testbed]\033[0m %s\n" % message)
    sys.stderr.flush()


def run(argv, check=True, input_data=None, capture=True, timeout=300):
    proc = subprocess.run(
        argv,
        input=input_data,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
        timeout=timeout,
        check=False,
    )
    if check and proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip() if capture else ""
        raise BedError(
            "%s failed (rc %d): %s" % (shlex.join(argv), proc.returncode, err)
        )
    return proc


def docker(*args, **kwargs):
    return run(["docker"] + list(args), **kwargs)


def dexec(container, script, check=True, timeout=300):
    """Run a shell script in a node container; returns stdout (text)."""
    proc = docker(
        "exec",
        "-i",
        container,
        "/bin/sh",
        "-eu",
        "-s",
        check=False,
        input_data=script.encode(),
        timeout=timeout,
    )
    out = proc.stdout.decode(errors="replace")
    if check and proc.returncode != 0:
        raise BedError(
            "in %s: script failed (rc %d)\n%s\n%s"
            % (
                container,
                proc.returncode,
                out[-2000:],
                proc.stderr.decode(errors="replace")[-2000:],
            )
        )
    return out


def simulator_hash():
    """sha256 over the simulator's sources (what the simulated packages embed)."""
    digest = hashlib.sha256()
    base = os.path.join(ROOT, "tests", "simulator")
    for sub in ("ascend_sim", "bin"):
        for folder, dirs, files in sorted(os.walk(os.path.join(base, sub))):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".pyc"):
                    continue
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    digest.update(os.path.relpath(path, base).encode() + b"\0")
                    digest.update(handle.read())
    return digest.hexdigest()


def checkout_id():
    return hashlib.sha256(ROOT.encode()).hexdigest()


def molecule_platform():
    """The node container definition of extensions/molecule/config.yml (one source of truth)."""
    import yaml  # the venv's PyYAML (ansible's dependency)

    with open(
        os.path.join(ROOT, "extensions", "molecule", "config.yml"), encoding="utf-8"
    ) as handle:
        return yaml.safe_load(handle)["platforms"][0]


def expand(text):
    """${VAR} and ${VAR:-default} as molecule expands them, with the checkout as project."""
    env = dict(os.environ, MOLECULE_PROJECT_DIRECTORY=ROOT)

    def one(match):
        name, _sep, default = match.group(1).partition(":-")
        return env.get(name) or default

    return re.sub(r"\$\{([^}]+)\}", one, text)


def node_run_args(name, extra=()):
    """`docker run` arguments of a node named `name`, from the molecule platform (plus
    `extra` options)."""
    spec = molecule_platform()
    args = [
        "--name",
        name,
        "--hostname",
        name,
        "--cgroupns=%s" % spec.get("cgroupns_mode", "private"),
    ]
    for cap in spec.get("capabilities", []):
        args += ["--cap-add", cap]
    for opt in spec.get("security_opts", []):
        args += ["--security-opt", opt]
    for device in spec.get("devices", []):
        args += ["--device", expand(device)]
    # kubelet's node: the MindCluster DaemonSets run privileged, and runc gives a privileged
    # container the device rule "a *:* rwm", which cgroup v1 refuses below a parent that allows
    # less. The node's own device cgroup therefore allows every device; it gains no capability
    # and sees no host device node (still not --privileged; docs/testing.md).
    args += ["--device-cgroup-rule", "a *:* rwm"]
    for mount in spec.get("tmpfs", []):
        args += ["--tmpfs", mount]
    for volume in spec.get("volumes", []):
        args += ["-v", expand(volume)]
    args += list(extra)
    return (
        args
        + [expand(spec.get("image", NODE_IMAGE))]
        + spec.get("command", "/lib/systemd/systemd").split()
    )


class Bed:
    def __init__(self, name=None, directory=None, subnet=None):
        ident = checkout_id()
        self.name = name or os.environ.get("BED_NAME") or "cubestudio-bed-" + ident[:6]
        self.dir = (
            directory
            or os.environ.get("BED_DIR")
            or os.path.join(ROOT, ".build", "cluster")
        )
        default_subnet = "172.31.%d.0/24" % (int(ident[6:8], 16))
        self.subnet = ipaddress.ip_network(
            subnet or os.environ.get("BED_SUBNET") or default_subnet
        )
        self.network = self.name
        self.control_plane = self.name + "-control-plane"
        self.cp_ip = str(self.subnet.network_address + 2)
        self.server = "https://%s:6443" % self.cp_ip
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.kube = os.path.join(ROOT, ".build", "k8s", "bin", "kube")
        self.nodes_dir = os.path.join(self.dir, "nodes")

    # ------------------------------------------------------------------ helpers

    @contextlib.contextmanager
    def lock(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, ".lock"), "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def kubectl(self, *args, check=True, input_data=None, timeout=120):
        proc = run(
            [self.kube, "kubectl", "--kubeconfig", self.kubeconfig] + list(args),
            check=check,
            input_data=input_data,
            timeout=timeout,
        )
        return proc.stdout.decode(errors="replace")

    def need_binaries(self):
        missing = [
            p
            for p in (
                self.kube,
                self.build_path("k8s/bin/pause"),
                self.build_path("k8s/bin/crictl"),
                self.build_path("cni/bin/bridge"),
            )
            if not os.path.exists(p)
        ]
        if missing:
            raise BedError("not built: %s (run `make k8s`)" % ", ".join(missing))

    @staticmethod
    def build_path(rel):
        return os.path.join(ROOT, ".build", rel)

    def pki(self):
        return PKI(os.path.join(self.dir, "pki"))

    # ------------------------------------------------------------------ machine

    @staticmethod
    def host_sysctls():
        changed = []
        for key, want in KUBELET_SYSCTLS.items():
            path = "/proc/sys/" + key
            with open(path, encoding="ascii") as handle:
                have = handle.read().strip()
            if have != want:
                with open(path, "w", encoding="ascii") as handle:
                    handle.write(want)
                changed.append("%s %s->%s" % (key.replace("/", "."), have, want))
        if changed:
            log("set on this machine, as kubelet would: " + ", ".join(changed))

    def ensure_network(self):
        if docker("network", "inspect", self.network, check=False).returncode == 0:
            return
        log("docker network %s (%s)" % (self.network, self.subnet))
        docker("network", "create", "--subnet", str(self.subnet), self.network)

    # ------------------------------------------------------------------ control plane

    def write_pki(self):
        pki = self.pki()
        sans = [
            self.cp_ip,
            "127.0.0.1",
            KUBERNETES_SERVICE_IP,
            "localhost",
            self.control_plane,
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
        ]
        pki.issue("apiserver", "kube-apiserver", server_names=sans, client=False)
        pki.issue(
            "apiserver-kubelet-client",
            "kube-apiserver-kubelet-client",
            "system:masters",
        )
        pki.issue("admin", "kubernetes-admin", "system:masters")
        pki.issue("controller-manager", "system:kube-controller-manager")
        pki.issue("scheduler", "system:kube-scheduler")
        pki.issue("kube-proxy", "system:kube-proxy", "system:node-proxier")
        pki.service_account_keys()
        local = "https://127.0.0.1:6443"
        for user, cert in (
            ("system:kube-controller-manager", "controller-manager"),
            ("system:kube-scheduler", "scheduler"),
        ):
            path = pki.path(cert + ".conf")
            if not os.path.exists(path):
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(pki.kubeconfig(local, user, cert))
        if not os.path.exists(self.kubeconfig):
            with open(self.kubeconfig, "w", encoding="utf-8") as handle:
                handle.write(pki.kubeconfig(self.server, "kubernetes-admin", "admin"))
            os.chmod(self.kubeconfig, 0o600)
        return pki

    def control_plane_script(self):
        k = "/opt/cubestudio-k8s/kube"
        p = "/etc/kubernetes/pki"
        components = [
            (
                "etcd",
                [
                    "--name=testbed",
                    "--data-dir=/var/lib/etcd",
                    "--listen-client-urls=http://127.0.0.1:2379",
                    "--advertise-client-urls=http://127.0.0.1:2379",
                    "--listen-peer-urls=http://127.0.0.1:2380",
                    "--initial-advertise-peer-urls=http://127.0.0.1:2380",
                    "--initial-cluster=testbed=http://127.0.0.1:2380",
                    "--listen-metrics-urls=http://127.0.0.1:2381",
                    "--quota-backend-bytes=268435456",
                    "--log-level=warn",
                ],
            ),
            (
                "kube-apiserver",
                [
                    "--etcd-servers=http://127.0.0.1:2379",
                    "--advertise-address=" + self.cp_ip,
                    "--bind-address=0.0.0.0",
                    "--secure-port=6443",
                    "--service-cluster-ip-range=" + SERVICE_CIDR,
                    "--client-ca-file=%s/ca.crt" % p,
                    "--tls-cert-file=%s/apiserver.crt" % p,
                    "--tls-private-key-file=%s/apiserver.key" % p,
                    "--kubelet-client-certificate=%s/apiserver-kubelet-client.crt" % p,
                    "--kubelet-client-key=%s/apiserver-kubelet-client.key" % p,
                    "--kubelet-preferred-address-types=InternalIP",
                    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                    "--service-account-key-file=%s/sa.pub" % p,
                    "--service-account-signing-key-file=%s/sa.key" % p,
                    "--authorization-mode=Node,RBAC",
                    "--enable-admission-plugins=NodeRestriction",
                    "--allow-privileged=true",
                    "--profiling=false",
                    "--v=1",
                ],
            ),
            (
                "kube-controller-manager",
                [
                    "--kubeconfig=%s/controller-manager.conf" % p,
                    "--authentication-kubeconfig=%s/controller-manager.conf" % p,
                    "--authorization-kubeconfig=%s/controller-manager.conf" % p,
                    "--bind-address=127.0.0.1",
                    "--leader-elect=false",
                    "--service-account-private-key-file=%s/sa.key" % p,
                    "--root-ca-file=%s/ca.crt" % p,
                    "--use-service-account-credentials=true",
                    "--cluster-signing-cert-file=%s/ca.crt" % p,
                    "--cluster-signing-key-file=%s/ca.key" % p,
                    "--profiling=false",
                    "--v=1",
                ],
            ),
            (
                "kube-scheduler",
                [
                    "--kubeconfig=%s/scheduler.conf" % p,
                    "--authentication-kubeconfig=%s/scheduler.conf" % p,
                    "--authorization-kubeconfig=%s/scheduler.conf" % p,
                    "--bind-address=127.0.0.1",
                    "--leader-elect=false",
                    "--profiling=false",
                    "--v=1",
                ],
            ),
        ]
        lines = [
            "set -u",
            "mkdir -p /var/log/kube",
            # Any component that exits ends the container: docker's restart policy starts it again.
            "trap 'kill 0' EXIT",
        ]
        for name, flags in components:
            lines.append(
                "%s %s %s >>/var/log/kube/%s.log 2>&1 &"
                % (k, name, " ".join(flags), name)
            )
            if name == "kube-apiserver":
                lines.append(
                    "for i in $(seq 1 120); do "
                    "%s kubectl --kubeconfig %s/controller-manager.conf get --raw /readyz >/dev/null 2>&1 "
                    "&& break; sleep 1; done" % (k, p)
                )
        lines.append("wait -n")
        lines.append(
            "echo 'a control-plane component exited; see /var/log/kube/*.log' >&2"
        )
        lines.append("exit 1")
        return "\n".join(lines) + "\n"

    def start_control_plane(self):
        state = docker(
            "container",
            "inspect",
            "-f",
            "{{.State.Running}}",
            self.control_plane,
            check=False,
        )
        if state.returncode == 0 and state.stdout.decode().strip() == "true":
            return False
        if state.returncode == 0:
            docker("rm", "-f", "-v", self.control_plane)
        log(
            "starting the control plane %s at %s (etcd, kube-apiserver, kube-controller-manager, "
            "kube-scheduler %s)" % (self.control_plane, self.cp_ip, KUBERNETES_VERSION)
        )
        docker(
            "run",
            "-d",
            "--name",
            self.control_plane,
            "--hostname",
            "control-plane",
            "--network",
            self.network,
            "--ip",
            self.cp_ip,
            "--restart",
            "on-failure:5",
            "--tmpfs",
            "/var/lib/etcd:rw,mode=700",
            "--tmpfs",
            "/tmp",
            "-v",
            "%s:/opt/cubestudio-k8s:ro" % os.path.dirname(self.kube),
            "-v",
            "%s:/etc/kubernetes/pki:ro" % os.path.join(self.dir, "pki"),
            "--label",
            "cubestudio.testbed=" + self.name,
            "--entrypoint",
            "/bin/bash",
            NODE_IMAGE,
            "-c",
            self.control_plane_script(),
        )
        return True

    def wait_api(self, timeout=180):
        deadline = time.time() + timeout
        last = ""
        while time.time() < deadline:
            proc = run(
                [
                    self.kube,
                    "kubectl",
                    "--kubeconfig",
                    self.kubeconfig,
                    "get",
                    "--raw",
                    "/readyz",
                ],
                check=False,
                timeout=20,
            )
            if proc.returncode == 0:
                return
            last = proc.stderr.decode(errors="replace").strip()
            time.sleep(1)
        logs = docker(
            "exec",
            self.control_plane,
            "sh",
            "-c",
            "tail -n 20 /var/log/kube/*.log",
            check=False,
        )
        raise BedError(
            "the API server did not become ready within %d s: %s\n%s"
            % (timeout, last, logs.stdout.decode(errors="replace"))
        )

    def up_control_plane(self):
        self.need_binaries()
        with self.lock():
            self.write_pki()
            self.ensure_network()
            started = self.start_control_plane()
        self.wait_api()
        if started:
            log(
                "API server ready; admin kubeconfig: %s"
                % os.path.relpath(self.kubeconfig, ROOT)
            )

    # ------------------------------------------------------------------ nodes

    def node_records(self):
        out = {}
        if os.path.isdir(self.nodes_dir):
            for entry in sorted(os.listdir(self.nodes_dir)):
                if entry.endswith(".json"):
                    with open(
                        os.path.join(self.nodes_dir, entry), encoding="utf-8"
                    ) as handle:
                        record = json.load(handle)
                    out[record["node"]] = record
        return out

    def _allocate(self, node, container):
        records = self.node_records()
        if node in records:
            return records[node]
        used_ips = {r["ip"] for r in records.values()}
        used_idx = {r["index"] for r in records.values()}
        index = next(i for i in range(1, 200) if i not in used_idx)
        ip = next(
            str(self.subnet.network_address + i)
            for i in range(10, 250)
            if str(self.subnet.network_address + i) not in used_ips
        )
        record = {
            "node": node,
            "container": container,
            "ip": ip,
            "index": index,
            "pod_subnet": "10.244.%d.0/24" % index,
        }
        os.makedirs(self.nodes_dir, exist_ok=True)
        with open(
            os.path.join(self.nodes_dir, node + ".json"), "w", encoding="utf-8"
        ) as handle:
            json.dump(record, handle, indent=2, sort_keys=True)
        return record

    def node_files(self, record):
        """{path in the node: (text, mode)} of a joined node, laid out as kubeadm lays it out."""
        pki = self.pki()
        node = record["node"]
        pki.issue("node-" + node, "system:node:" + node, "system:nodes")
        with open(pki.ca_crt, encoding="ascii") as handle:
            ca = handle.read()
        kubelet_config = "\n".join(
            [
                "apiVersion: kubelet.config.k8s.io/v1beta1",
                "kind: KubeletConfiguration",
                "authentication:",
                "  anonymous: {enabled: false}",
                "  webhook: {enabled: true}",
                "  x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}",
                "authorization: {mode: Webhook}",
                "containerRuntimeEndpoint: unix:///run/containerd/containerd.sock",
                "cgroupDriver: cgroupfs",
                # The node is a container: no QoS cgroup tree, no node-allocatable enforcement, no
                # swap check, no eviction on the machine-wide disk the container shares.
                "cgroupsPerQOS: false",
                "enforceNodeAllocatable: []",
                "failSwapOn: false",
                "localStorageCapacityIsolation: false",
                "evictionHard: {memory.available: '0%', nodefs.available: '0%', imagefs.available: '0%'}",
                "imageGCHighThresholdPercent: 100",
                "imageGCLowThresholdPercent: 99",
                "serializeImagePulls: false",
                "resolvConf: /etc/resolv.conf",
                "rotateCertificates: false",
                "serverTLSBootstrap: false",
                "",
            ]
        )
        unit = "\n".join(
            [
                "[Unit]",
                "Description=kubelet: The Kubernetes Node Agent (cubestudio test bed, %s)"
                % KUBERNETES_VERSION,
                "Documentation=https://kubernetes.io/docs/",
                "Wants=network-online.target containerd.service",
                "After=network-online.target containerd.service",
                "",
                "[Service]",
                "ExecStart=/usr/bin/kubelet",
                "Restart=always",
                "StartLimitInterval=0",
                "RestartSec=2",
                "",
                "[Install]",
                "WantedBy=multi-user.target",
                "",
            ]
        )
        dropin = "\n".join(
            [
                "[Service]",
                'Environment="KUBELET_KUBECONFIG_ARGS=--kubeconfig=/etc/kubernetes/kubelet.conf"',
                'Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"',
                "EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env",
                "EnvironmentFile=-/etc/default/kubelet",
                "ExecStart=",
                "ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS "
                "$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS",
                "",
            ]
        )
        flags = 'KUBELET_KUBEADM_ARGS="--node-ip=%s --hostname-override=%s"\n' % (
            record["ip"],
            node,
        )
        proxy_config = "\n".join(
            [
                "apiVersion: kubeproxy.config.k8s.io/v1alpha1",
                "kind: KubeProxyConfiguration",
                "clientConnection: {kubeconfig: /var/lib/kube-proxy/kubeconfig.conf}",
                "mode: iptables",
                "clusterCIDR: " + CLUSTER_CIDR,
                "hostnameOverride: " + node,
                # Global sysctls a container cannot write: leave them as they are.
                "conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}",
                "iptables: {localhostNodePorts: false}",
                "",
            ]
        )
        proxy_unit = "\n".join(
            [
                "[Unit]",
                "Description=kube-proxy (cubestudio test bed, %s)" % KUBERNETES_VERSION,
                "After=network-online.target",
                "",
                "[Service]",
                "ExecStart=/usr/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf",
                "Restart=always",
                "RestartSec=2",
                "",
                "[Install]",
                "WantedBy=multi-user.target",
                "",
            ]
        )
        cni = {
            "cniVersion": "1.0.0",
            "name": "testbed",
            "plugins": [
                {
                    "type": "bridge",
                    "bridge": "cni0",
                    "isGateway": True,
                    "ipMasq": True,
                    "hairpinMode": True,
                    "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": record["pod_subnet"]}]],
                        "routes": [{"dst": "0.0.0.0/0"}],
                    },
                },
                {"type": "portmap", "capabilities": {"portMappings": True}},
            ],
        }
        return {
            "etc/kubernetes/pki/ca.crt": (ca, 0o644),
            "etc/kubernetes/kubelet.conf": (
                pki.kubeconfig(self.server, "system:node:" + node, "node-" + node),
                0o600,
            ),
            "var/lib/kubelet/config.yaml": (kubelet_config, 0o644),
            "var/lib/kubelet/kubeadm-flags.env": (flags, 0o644),
            "etc/systemd/system/kubelet.service": (unit, 0o644),
            "etc/systemd/system/kubelet.service.d/10-kubeadm.conf": (dropin, 0o644),
            "var/lib/kube-proxy/kubeconfig.conf": (
                pki.kubeconfig(self.server, "system:kube-proxy", "kube-proxy"),
                0o600,
            ),
            "var/lib/kube-proxy/config.conf": (proxy_config, 0o644),
            "etc/systemd/system/kube-proxy.service": (proxy_unit, 0o644),
            "etc/cni/net.d/10-testbed.conflist": (
                json.dumps(cni, indent=2) + "\n",
                0o644,
            ),
            "usr/local/sbin/cubestudio-cgroup-v1": (CGROUP_V1_SCRIPT, 0o755),
            "etc/systemd/system/cubestudio-cgroup-v1.service": (CGROUP_V1_UNIT, 0o644),
        }

    @contextlib.contextmanager
    def build_lock(self):
        """What beds of one checkout build in its .build folder (make test runs two beds side by
        side): one builds, the other waits and finds it built."""
        os.makedirs(self.build_path(""), exist_ok=True)
        with open(self.build_path("bed-build.lock"), "w", encoding="ascii") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def need_images(self):
        """The image tarballs every node loads: fail at once naming the missing ones and the
        target that builds them (a missing tarball used to be skipped, and its pods failed
        much later with an image pull error)."""
        sys.path.insert(0, os.path.join(ROOT, "tests", "mindcluster"))
        from build_images import COMPONENTS, VERSIONS

        wanted = {self.build_path("images/workload.tar"): "make images"}
        arch = os.uname().machine
        for version in VERSIONS:
            for image, _folder in COMPONENTS.values():
                path = "images/mindcluster/%s_v%s_%s.tar" % (image, version, arch)
                wanted[self.build_path(path)] = "make mindcluster"
        missing = [path for path in wanted if not os.path.isfile(path)]
        if missing:
            raise BedError(
                "image tarballs missing: %s (run %s)"
                % (
                    ", ".join(missing),
                    " and ".join(sorted({wanted[p] for p in missing})),
                )
            )

    def ensure_images(self):
        """The pause and workload images as archives containerd imports (built on the host)."""
        with self.build_lock():
            self._ensure_images()

    def _ensure_images(self):
        import oci_archive

        self.need_images()
        out_dir = self.build_path("images/testbed")
        os.makedirs(out_dir, exist_ok=True)
        pause_bin = self.build_path("k8s/bin/pause")
        pause_tar = os.path.join(out_dir, "pause.tar")
        if not os.path.exists(pause_tar) or os.path.getmtime(
            pause_tar
        ) < os.path.getmtime(pause_bin):
            rootfs = os.path.join(out_dir, "pause-rootfs.tar")
            with tarfile.open(rootfs, "w") as archive:
                info = archive.gettarinfo(pause_bin, "pause")
                info.uid = info.gid = 0
                info.uname = info.gname = "root"
                info.mtime = 0
                with open(pause_bin, "rb") as handle:
                    archive.addfile(info, handle)
            with open(pause_tar + ".tmp", "wb") as out:
                oci_archive.write_archive(
                    out, rootfs, [(n, ["/pause"]) for n in PAUSE_NAMES]
                )
            os.replace(pause_tar + ".tmp", pause_tar)
            os.unlink(rootfs)
        workload_src = self.build_path("images/workload.tar")
        workload_tar = os.path.join(out_dir, "workload.tar")
        if not os.path.exists(workload_tar) or os.path.getmtime(
            workload_tar
        ) < os.path.getmtime(workload_src):
            with open(workload_tar + ".tmp", "wb") as out:
                oci_archive.write_archive(
                    out, os.path.realpath(workload_src), [(WORKLOAD_IMAGE, [])]
                )
            os.replace(workload_tar + ".tmp", workload_tar)

    def join(self, container, node=None, wait=True):
        node = node or container
        self.up_control_plane()
        self.ensure_images()
        with self.lock():
            record = self._allocate(node, container)
            nets = docker(
                "container",
                "inspect",
                "-f",
                "{{json .NetworkSettings.Networks}}",
                container,
            ).stdout
            if self.network not in json.loads(nets):
                docker(
                    "network", "connect", "--ip", record["ip"], self.network, container
                )
            files = self.node_files(record)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as archive:
            for path, (text, mode) in sorted(files.items()):
                data = text.encode()
                info = tarfile.TarInfo(path)
                info.size, info.mode, info.mtime = len(data), mode, int(time.time())
                archive.addfile(info, io.BytesIO(data))
        dexec(
            container,
            "mkdir -p /etc/kubernetes/pki /var/lib/kubelet /var/lib/kube-proxy /etc/cni/net.d",
        )
        docker("cp", "-", "%s:/" % container, input_data=buf.getvalue())
        log(
            "joining %s (container %s, %s) to %s"
            % (node, container, record["ip"], self.name)
        )
        dexec(container, JOIN_SCRIPT.replace("@BUILD@", NODE_BUILD), timeout=600)
        if wait:
            self.wait_ready(node)
        return record

    def wait_ready(self, node, timeout=240):
        deadline = time.time() + timeout
        while time.time() < deadline:
            out = self.kubectl(
                "get",
                "node",
                node,
                "-o",
                "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
                check=False,
            )
            if out.strip() == "True":
                return
            time.sleep(2)
        record = self.node_records().get(node, {})
        tail = dexec(
            record.get("container", node),
            "journalctl -u kubelet --no-pager -n 40 || true",
            check=False,
        )
        raise BedError(
            "node %s is not Ready after %d s; kubelet's last lines:\n%s"
            % (node, timeout, tail)
        )

    def leave(self, container):
        records = [
            r for r in self.node_records().values() if r["container"] == container
        ]
        for record in records:
            if os.path.exists(self.kubeconfig):
                self.kubectl(
                    "delete",
                    "node",
                    record["node"],
                    "--ignore-not-found",
                    "--wait=false",
                    check=False,
                )
            os.unlink(os.path.join(self.nodes_dir, record["node"] + ".json"))

    def create_node(self, name, model, cards, with_docker=False):
        """A bare node: NPUs on the PCI bus, no Ascend software. with_docker: Docker running
        (beside the containerd a kubelet would use) and the workload image the operator
        already has, as the demo's and the bench's servers arrive."""
        if docker("container", "inspect", name, check=False).returncode != 0:
            log(
                "creating the simulated Ascend node %s (%d x %s)" % (name, cards, model)
            )
            # The simulated hccn_tool's fabric registry, shared by the nodes of this bed: a
            # ping between NPUs of two nodes works only through it (tests/simulator/README.md).
            fabric = os.path.join(self.dir, "hccn-fabric")
            os.makedirs(fabric, exist_ok=True)
            docker(
                "run",
                "-d",
                "--label",
                "cubestudio.testbed=" + self.name,
                *node_run_args(name, ["-v", fabric + ":/var/lib/ascend-sim/fabric"]),
            )
        dexec(name, BOOT_WAIT_SCRIPT, timeout=120)
        dexec(
            name,
            "test -f /var/lib/ascend-sim/state.json || /opt/ascend-sim/bin/ascend-sim hw-init "
            "--model %s --cards %d --sysfs-root /var/lib/ascend-sim/sys >/dev/null"
            % (model, cards),
        )
        if with_docker:
            dexec(name, DOCKER_SCRIPT, timeout=300)

    def sim_artifacts(self):
        """The simulated Huawei packages in .build/sim-artifacts (also in every node under
        NODE_BUILD), with their artifacts.json; rebuilt only when the simulator changed."""
        artifacts = self.build_path("sim-artifacts")
        with self.build_lock():
            return self._sim_artifacts(artifacts)

    @staticmethod
    def _sim_artifacts(artifacts):
        # The packages carry the simulator's installers: rebuilt whenever its code changed
        # (stale packages once provisioned nodes without Driver_Install_Status).
        stamp = os.path.join(artifacts, ".sim-hash")
        want = simulator_hash()
        have = ""
        if os.path.exists(os.path.join(artifacts, "artifacts.json")):
            with contextlib.suppress(OSError), open(stamp, encoding="ascii") as handle:
                have = handle.read().strip()
        if have != want:
            shutil.rmtree(artifacts, ignore_errors=True)
            run(
                [
                    os.path.join(ROOT, "tests", "simulator", "bin", "ascend-sim"),
                    "build-artifacts",
                    "--out",
                    artifacts,
                ]
            )
            with open(stamp, "w", encoding="ascii") as handle:
                handle.write(want + "\n")
        return artifacts

    def provision(self, container, train):
        """The node as an operator leaves it after the blog posts: driver, firmware, runtime."""
        artifacts = self.sim_artifacts()
        with open(
            os.path.join(artifacts, "artifacts.json"), encoding="utf-8"
        ) as handle:
            listing = json.load(handle)
        family = dexec(
            container,
            'python3 -c "import json;print(json.load(open('
            "'/var/lib/ascend-sim/state.json'))['family'])\"",
        ).strip()
        chip = {"910b": "910b", "910": "910", "310p": "310p", "a3": "a3"}.get(
            family, family
        )

        def pick(component):
            for item in listing:
                if (
                    item["component"] == component
                    and item["train"] == train
                    and item.get("arch") in (None, "x86_64")
                    and item.get("chip") in (None, chip)
                ):
                    return item["file"]
            raise BedError(
                "no %s package of train %s for %s" % (component, train, chip)
            )

        script = PROVISION_SCRIPT.replace("@DIR@", NODE_BUILD + "/sim-artifacts")
        script = script.replace("@DRIVER@", pick("driver")).replace(
            "@RUNTIME@", pick("docker-runtime")
        )
        log(
            "provisioning %s by hand: driver %s, Ascend Docker Runtime for containerd"
            % (container, train)
        )
        dexec(container, script, timeout=600)

    def status(self):
        out = {
            "name": self.name,
            "server": self.server,
            "kubeconfig": self.kubeconfig,
            "nodes": {},
        }
        for node, record in self.node_records().items():
            ready = ""
            if os.path.exists(self.kubeconfig):
                ready = self.kubectl(
                    "get",
                    "node",
                    node,
                    "-o",
                    "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
                    check=False,
                )
            out["nodes"][node] = dict(record, ready=ready.strip())
        return out

    def down(self):
        proc = docker(
            "ps",
            "-aq",
            "--filter",
            "label=cubestudio.testbed=" + self.name,
            check=False,
        )
        ids = proc.stdout.decode().split()
        if ids:
            docker("rm", "-f", "-v", *ids)
        for record in self.node_records().values():
            # Nodes the bed did not create (molecule's) stay, but leave the network.
            docker(
                "network",
                "disconnect",
                "-f",
                self.network,
                record["container"],
                check=False,
            )
        docker("network", "rm", self.network, check=False)
        run(["rm", "-rf", self.dir])
        log("removed %s (%d containers)" % (self.name, len(ids)))


BOOT_WAIT_SCRIPT = """
for i in $(seq 1 60); do
  s=$(systemctl is-system-running --wait 2>/dev/null || true)
  case "$s" in running|degraded) exit 0 ;; esac
  sleep 1
done
echo "systemd did not finish booting: $s" >&2
exit 1
"""

# The server as the demo and the bench receive it: Docker installed and running, and an image
# the operator already has on the node (the runtime's verification container uses it). Once per
# node (the marker file).
DOCKER_SCRIPT = """
test -f /var/lib/cubestudio-demo-docker && exit 0
systemctl enable --now docker.service >/dev/null 2>&1
docker image inspect cubestudio/workload:latest >/dev/null 2>&1 ||
  docker import /opt/cubestudio-images/workload.tar cubestudio/workload:latest >/dev/null
touch /var/lib/cubestudio-demo-docker
"""

# systemd (252) in a cgroup-v1 container mounts cpu and cpuacct as one "cpu,cpuacct"
# hierarchy; on a machine whose kernel has them as two hierarchies (this one: see
# /proc/cgroups) that mount fails, and kubelet then stops: "system validation failed -
# Following Cgroup subsystem not mounted: [cpu cpuacct]". This mounts every v1 hierarchy the
# container belongs to (/proc/self/cgroup) that systemd left unmounted, as the machine has it,
# inside the container's own cgroup namespace (no host cgroup is bind-mounted).
CGROUP_V1_SCRIPT = r"""#!/bin/sh
set -eu
missing=""
for h in $(cut -d: -f2 /proc/self/cgroup); do
  case "$h" in ""|name=*) continue ;; esac
  mountpoint -q "/sys/fs/cgroup/$h" || missing="$missing $h"
done
[ -n "$missing" ] || exit 0
mount -o remount,rw /sys/fs/cgroup
for h in $missing; do
  [ -L "/sys/fs/cgroup/$h" ] && rm "/sys/fs/cgroup/$h"
  mkdir -p "/sys/fs/cgroup/$h"
  mount -t cgroup -o "$h,nosuid,nodev,noexec" cgroup "/sys/fs/cgroup/$h"
  echo "mounted the $h hierarchy"
done
mount -o remount,ro /sys/fs/cgroup
"""

CGROUP_V1_UNIT = """[Unit]
Description=cgroup v1 hierarchies systemd left unmounted (test bed)
DefaultDependencies=no
After=local-fs.target
Before=containerd.service docker.service kubelet.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/cubestudio-cgroup-v1

[Install]
WantedBy=multi-user.target
"""

JOIN_SCRIPT = r"""
B=@BUILD@
for c in kubelet kube-proxy kubectl; do ln -sfn $B/k8s/bin/kube /usr/bin/$c; done
ln -sfn $B/k8s/bin/crictl /usr/bin/crictl
printf 'runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\n' >/etc/crictl.yaml
# CNI plugins where containerd looks: Debian's config.toml names /usr/lib/cni, upstream /opt/cni/bin.
mkdir -p /opt/cni/bin /usr/lib/cni /var/log/pods
for p in $B/cni/bin/*; do case "$p" in *.stamp) continue ;; esac; ln -sfn "$p" /opt/cni/bin/; ln -sfn "$p" /usr/lib/cni/; done
# runc cannot lower a container's oom_score_adj without CAP_SYS_RESOURCE, which this machine
# does not hand to containers: containerd clamps it instead (its setting for rootless nodes).
# A setting of the node's owner, kept by the ascend_runtime role like any other.
python3 - <<'PY'
import re
path = "/etc/containerd/config.toml"
try:
    text = open(path).read()
except FileNotFoundError:
    text = ""
if "restrict_oom_score_adj" not in text:
    if re.search(r"^version *= *3", text, re.M):
        text += "\n[plugins.'io.containerd.cri.v1.runtime']\n  restrict_oom_score_adj = true\n"
    else:
        head = re.search(r'^( *)\[plugins\."io\.containerd\.grpc\.v1\.cri"\] *$', text, re.M)
        if head:
            at = head.end()
            text = text[:at] + "\n%s  restrict_oom_score_adj = true" % head.group(1) + text[at:]
        else:
            text += '\n[plugins."io.containerd.grpc.v1.cri"]\n  restrict_oom_score_adj = true\n'
    open(path, "w").write(text)
PY
systemctl daemon-reload
systemctl enable --now cubestudio-cgroup-v1 >/dev/null 2>&1
systemctl enable containerd >/dev/null 2>&1
systemctl restart containerd
for i in $(seq 1 30); do ctr version >/dev/null 2>&1 && break; sleep 1; done
ctr -n k8s.io images import --all-platforms $B/images/testbed/pause.tar >/dev/null
ctr -n k8s.io images import --all-platforms $B/images/testbed/workload.tar >/dev/null
# The MindCluster release images (Huawei's binaries, `make mindcluster`), loaded the offline way
# of Huawei's guides: no registry on the bed.
for t in $B/images/mindcluster/*.tar; do
  [ -f "$t" ] && ctr -n k8s.io images import "$t" >/dev/null
done
systemctl enable kubelet kube-proxy >/dev/null 2>&1
systemctl restart kubelet kube-proxy
"""

PROVISION_SCRIPT = """
D=@DIR@
getent group HwHiAiUser >/dev/null || groupadd -g 1000 HwHiAiUser
id HwHiAiUser >/dev/null 2>&1 || useradd -u 1000 -g HwHiAiUser -d /home/HwHiAiUser -m -s /sbin/nologin HwHiAiUser
if [ ! -f /usr/local/Ascend/driver/version.info ]; then
  rc=0; sh $D/@DRIVER@ --nox11 --full --install-for-all --quiet >/tmp/driver.log 2>&1 || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || { cat /tmp/driver.log; exit 1; }
fi
if [ ! -f /usr/local/Ascend/Ascend-Docker-Runtime/ascend_docker_runtime_install.info ]; then
  sh $D/@RUNTIME@ --nox11 --install --install-scene=containerd --quiet </dev/null >/tmp/runtime.log 2>&1 \
    || { cat /tmp/runtime.log; exit 1; }
  systemctl restart containerd
  for i in $(seq 1 30); do ctr version >/dev/null 2>&1 && break; sleep 1; done
fi
"""


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="bed.py", description=__doc__.split("\n\n", maxsplit=1)[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="control plane and N simulated Ascend nodes, Ready")
    up.add_argument("--nodes", type=int, default=int(os.environ.get("BED_NODES", "1")))
    up.add_argument("--model", default=os.environ.get("BED_MODEL", "910B3"))
    up.add_argument("--cards", type=int, default=int(os.environ.get("BED_CARDS", "8")))
    up.add_argument(
        "--provision",
        default=os.environ.get("BED_PROVISION", "25.5.0"),
        help="release train the nodes get by hand (driver, runtime); 'none' for bare nodes",
    )
    sub.add_parser("control-plane", help="only the control plane")
    node = sub.add_parser(
        "node", help="a bare simulated Ascend node container, not joined"
    )
    node.add_argument("container")
    node.add_argument("--model", default="910B3")
    node.add_argument("--cards", type=int, default=8)
    node.add_argument(
        "--docker",
        action="store_true",
        help="Docker running and the workload image imported (the demo's server)",
    )
    join = sub.add_parser("join", help="join an existing node container")
    join.add_argument("container")
    join.add_argument("--node", help="node name (default: the container name)")
    join.add_argument("--no-wait", action="store_true")
    leave = sub.add_parser("leave", help="delete the node of a container")
    leave.add_argument("container")
    sub.add_parser("status", help="the bed as JSON")
    sub.add_parser("down", help="remove everything the bed made")
    args = parser.parse_args(argv)
    bed = Bed()
    try:
        if args.command == "up":
            Bed.host_sysctls()
            bed.up_control_plane()
            for i in range(1, args.nodes + 1):
                name = "%s-node-%d" % (bed.name, i)
                bed.create_node(name, args.model, args.cards)
                bed.join(name, wait=False)
                if args.provision != "none":
                    bed.provision(name, args.provision)
            for i in range(1, args.nodes + 1):
                bed.wait_ready("%s-node-%d" % (bed.name, i))
            print(bed.kubectl("get", "nodes", "-o", "wide"), end="")
            log("kubeconfig: %s" % os.path.relpath(bed.kubeconfig, ROOT))
        elif args.command == "control-plane":
            bed.up_control_plane()
        elif args.command == "node":
            bed.create_node(
                args.container, args.model, args.cards, with_docker=args.docker
            )
        elif args.command == "join":
            Bed.host_sysctls()
            bed.join(args.container, args.node, wait=not args.no_wait)
        elif args.command == "leave":
            bed.leave(args.container)
        elif args.command == "status":
            print(json.dumps(bed.status(), indent=2, sort_keys=True))
        elif args.command == "down":
            bed.down()
    except BedError as err:
        sys.stderr.write("bed.py %s: %s\n" % (args.command, err))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
