# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/site.yml with every layer on a fresh node of the real cluster (issue 11).

The node is a server as it arrives (tools/demo.sh makes the same one): 8 x 910B3 on the PCI
bus, no Ascend software, Docker running beside the containerd its kubelet uses (the classic
trap: the Ascend runtime must reach containerd, not only Docker's daemon.json), joined to the
bed's control plane. site.yml runs preflight, npu_driver, cann_toolkit, ascend_runtime,
device_plugin and exporter with the operator's inventory (no engine named); then:

* the node is Ready and advertises 8 huawei.com/Ascend910, the smoke pod saw exactly one NPU
  (the summary says so), and the running containerd (the kubelet's engine, crictl info) has the
  Ascend runtime as its default;
* a second run changes nothing on any host, nor does --check --diff;
* the trap "only daemon.json was changed": Docker's daemon.json makes the Ascend runtime its
  default while containerd's config no longer does (runc is its default again; the runtime
  stays registered), both engines restarted: the device_plugin role's smoke pod fails naming
  the cause (not the default runtime of containerd, the engine the kubelet uses) and the doctor
  reports T22; the node is restored after.
"""

from __future__ import annotations

import json
import os
import time

import ansible_run
import bed as bedlib
import pytest

MODEL, CARDS = "910B3", 8
RESOURCE = "huawei.com/Ascend910"
HCCN = {
    "hccn_subnets": ["10.20.0.0/24"],
    "hccn_gateways": ["10.20.0.1"],
    "hccn_netdetect": ["10.20.0.1"],
    "hccn_host_offset": 10,
}
CONTAINERD = "/etc/containerd/config.toml"
DAEMON_JSON = "/etc/docker/daemon.json"
# The live configuration of the running containerd, through the CRI (what the kubelet gets).
DEFAULT_RUNTIME = (
    "crictl info | python3 -c "
    "\"import json,sys; print(json.load(sys.stdin)['config']['containerd']['defaultRuntimeName'])\""
)


class Site:
    def __init__(self, cluster, node, directory):
        self.cluster = cluster
        self.node = node
        self.dir = directory
        self.inventory = os.path.join(directory, "inventory.json")
        with open(self.inventory, "w", encoding="utf-8") as handle:
            json.dump(
                ansible_run.inventory(
                    [node],
                    ansible_run.site_variables(
                        cluster.bed.kubeconfig,
                        cluster.bed.sim_artifacts(),
                        # The NPU network as docs/hccn.md's Atlas 800T A2 example.
                        **HCCN,
                    ),
                ),
                handle,
            )
        self.first = None
        self.seconds = {}

    def run(self, label, *args, book=ansible_run.SITE, **extra):
        """ansible-playbook `book` (site.yml) on the node: (rc, output); the log in the folder."""
        start = time.time()
        rc, out = ansible_run.run_playbook(
            self.inventory,
            book,
            json.dumps(dict(ansible_run.image_archives("25.5.0"), **extra)),
            *args,
            timeout=1800,
        )
        self.seconds[label] = round(time.time() - start, 1)
        with open(os.path.join(self.dir, label + ".log"), "w", encoding="utf-8") as h:
            h.write(out)
        return rc, out

    def sh(self, script, check=True):
        return bedlib.dexec(self.node, script, check=check)


@pytest.fixture(scope="module")
def site(cluster, tmp_path_factory):
    bed = cluster.bed
    node = bed.name + "-node-site"
    start = time.time()
    bed.create_node(node, MODEL, CARDS, with_docker=True)
    bed.join(node)
    site = Site(cluster, node, str(tmp_path_factory.mktemp("site")))
    site.seconds["node"] = round(time.time() - start, 1)
    rc, out = site.run("converge")
    assert rc == 0, out[-6000:]
    site.first = out
    yield site
    bedlib.log("test_site seconds: %s" % json.dumps(site.seconds))
    # The cluster as the other modules leave it: no device plugin, no exporter (their pods on
    # the bed's first node hold its NPUs, and the next site.yml there would refuse it, T6).
    cluster.remove_kubernetes_layer()
    bed.leave(node)
    bedlib.docker("rm", "-f", "-v", node, check=False)
    cluster.wait(
        "the device plugin's and the exporter's pods gone",
        lambda: (
            not cluster.get("pods", "-A", "-l", "name=ascend-device-plugin-ds")["items"]
            and not cluster.get("pods", "-n", "npu-exporter")["items"]
        ),
        timeout=180,
    )


def test_every_layer_makes_a_ready_node_with_eight_npus_and_one_in_a_pod(site):
    cluster, out = site.cluster, site.first
    for play in (
        "Preflight",
        "NPU driver and firmware",
        "CANN toolkit",
        "Ascend Docker Runtime for Docker or containerd",
        "Kubernetes device plugin",
        "NPU exporter",
    ):
        assert "PLAY [%s" % play in out, play
    node = cluster.get("node", site.node)
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True", node["status"]["conditions"]
    assert node["status"]["allocatable"][RESOURCE] == str(CARDS)
    # The kubelet runs on containerd; Docker runs too.
    assert node["status"]["nodeInfo"]["containerRuntimeVersion"].startswith(
        "containerd://"
    )
    assert site.sh("systemctl is-active docker").strip() == "active"
    # The smoke pod saw exactly one NPU: the role's assertion and the summary's line.
    assert (
        ansible_run.task_status(out, "The pod saw exactly one NPU", "device_plugin")
        == "ok"
    )
    assert "smoke pod: saw 1 NPU" in out, out[-3000:]
    # The runtime is the default of the containerd that runs (the kubelet's engine).
    assert site.sh(DEFAULT_RUNTIME).strip() == "ascend"
    # The exporter's pod on the node reads containerd.
    pods = cluster.get(
        "pods",
        "-n",
        "npu-exporter",
        "--field-selector",
        "spec.nodeName=" + site.node,
    )["items"]
    assert [p["status"]["phase"] for p in pods] == ["Running"], pods
    # The NPU ports got the plan's addresses (hccn), and Huawei's device plugin, started after
    # them, publishes the same addresses in the node's baseDeviceInfos annotation.
    infos = json.loads(node["metadata"]["annotations"]["baseDeviceInfos"])
    for phy in range(CARDS):
        address = "10.20.0.%d" % (10 + phy)
        assert site.sh(
            "/usr/local/Ascend/driver/tools/hccn_tool -i %d -ip -g" % phy
        ).startswith("ipaddr:%s\n" % address)
        assert "address_%d=%s" % (phy, address) in site.sh("cat /etc/hccn.conf")
        assert site.sh(
            "/usr/local/Ascend/driver/tools/hccn_tool -i %d -link -g" % phy
        ) == ("link status: UP\n")
        assert infos["Ascend910-%d" % phy]["IP"] == address, infos
    # The stack's versions as the collection's node labels, equal to what the node has.
    labels = node["metadata"]["labels"]
    installed = {
        "driver": site.sh(
            "sed -n 's/^Version=//p' /usr/local/Ascend/driver/version.info"
        ),
        "firmware": site.sh(
            "sed -n 's/^Version=//p' /usr/local/Ascend/firmware/version.info"
        ),
        "runtime": site.sh(
            "sed -n 's/^version=v*//p' "
            "/usr/local/Ascend/Ascend-Docker-Runtime/ascend_docker_runtime_install.info"
        ),
        # The toolkit's own info file: CANN >= 8.5.0 under cann (-> cann-<ver>), older ones
        # under ascend-toolkit/latest.
        "cann": site.sh(
            "sed -n 's/^version=//p' $(ls /usr/local/Ascend/cann/*-linux/ascend_toolkit_install.info "
            "/usr/local/Ascend/ascend-toolkit/latest/*-linux/ascend_toolkit_install.info "
            "2>/dev/null | head -n 1)"
        ),
    }
    for part, version in installed.items():
        assert version.strip(), part
        assert labels["cubestudio.ascend/%s-version" % part] == version.strip(), labels


def test_a_second_run_and_check_mode_change_nothing_on_any_host(site):
    rc, out = site.run("second")
    assert rc == 0, out[-6000:]
    stats = ansible_run.recaps(out)
    assert site.node in stats and stats, out[-3000:]
    assert {host: s["changed"] for host, s in stats.items()} == dict.fromkeys(
        stats, 0
    ), out[-6000:]
    rc, out = site.run("check", "--check", "--diff")
    assert rc == 0, out[-6000:]
    stats = ansible_run.recaps(out)
    assert site.node in stats
    assert {host: s["changed"] for host, s in stats.items()} == dict.fromkeys(
        stats, 0
    ), out[-6000:]


SMOKE_TASK = (
    "TASK [cubestudio.ascend.device_plugin : Start a pod that asks for one NPU]"
)
APPLY_TASK = (
    "TASK [cubestudio.ascend.device_plugin : Apply the device plugin's ServiceAccount"
)
EXPORTER_APPLY_TASK = "TASK [cubestudio.ascend.exporter : Apply the exporter's objects]"


def test_the_kubernetes_layer_runs_only_when_something_changed(site):
    """Issue 24: the second run (above) skipped both Kubernetes roles, said so in the summary
    and ran no smoke pod; device_plugin_smoke=always runs the pod and nothing else; a changed
    setting, then a chip gone unhealthy (the simulator's alarm knob), make the device plugin
    apply, wait and run its smoke pod again."""
    with open(os.path.join(site.dir, "second.log"), encoding="utf-8") as handle:
        second = handle.read()
    for layer in ("device_plugin", "exporter"):
        assert "%s: skipped as unchanged" % layer in second, second[-6000:]
    for task in (SMOKE_TASK, APPLY_TASK, EXPORTER_APPLY_TASK):
        assert task not in second, task
    # The record of the verified run is on the Node, beside the objects' hashes.
    node = site.cluster.get("node", site.node)
    record = json.loads(
        node["metadata"]["annotations"]["cubestudio.ascend/device-plugin-verified"]
    )
    assert record["state"]["healthy"] == CARDS, record
    hashes = [
        d["metadata"].get("annotations", {}).get("cubestudio.ascend/spec-hash")
        for d in site.cluster.get("daemonsets", "-A")["items"]
        if d["metadata"]["name"].startswith(("ascend-device-plugin", "npu-exporter"))
    ]
    assert len(hashes) == 2 and all(hashes), hashes

    # Asked for: the smoke pod runs, the layer is still skipped, nothing changes.
    rc, out = site.run(
        "smoke-always", "--tags", "device_plugin", device_plugin_smoke="always"
    )
    assert rc == 0, out[-6000:]
    assert SMOKE_TASK in out and APPLY_TASK not in out
    assert "device_plugin: skipped as unchanged" in out
    assert "smoke pod run as asked" in out
    assert ansible_run.recap(out, site.node)["changed"] == 0, out[-4000:]

    # A changed setting: one more node label.
    rc, out = site.run(
        "label",
        "--tags",
        "device_plugin",
        device_plugin_node_labels={
            "accelerate": "ascend",
            "cubestudio-test": "k8sfast",
        },
    )
    assert rc == 0, out[-6000:]
    assert "node labels differ: cubestudio-test" in out, out[-6000:]
    assert SMOKE_TASK in out
    assert ansible_run.task_status(out, "The pod saw exactly one NPU") == "ok"

    # A chip gone unhealthy: allocatable follows and the layer verifies again.
    site.sh("/opt/ascend-sim/bin/ascend-sim fault set alarm --npu 3 >/dev/null")
    try:
        rc, out = site.run(
            "unhealthy",
            "--tags",
            "device_plugin",
            device_plugin_node_labels={
                "accelerate": "ascend",
                "cubestudio-test": "k8sfast",
            },
        )
        assert rc == 0, out[-6000:]
        assert "healthy changed (8 -> 7)" in out, out[-6000:]
        assert SMOKE_TASK in out
    finally:
        site.sh(
            "/opt/ascend-sim/bin/ascend-sim fault clear alarm >/dev/null", check=False
        )
        site.cluster.kubectl(
            "label", "node", site.node, "cubestudio-test-", check=False
        )


# The trap: Docker's daemon.json names the Ascend runtime as its default, containerd (the
# kubelet's engine) has it registered but runs runc by default, as before the role ran.
UNWIRE = r"""
cp -p {containerd} /root/config.toml.site
sed -i 's/default_runtime_name = "ascend"/default_runtime_name = "runc"/' {containerd}
grep -q 'default_runtime_name = "runc"' {containerd}
if [ -f {daemon} ]; then cp -p {daemon} /root/daemon.json.site; else echo absent > /root/daemon.json.site; fi
python3 - <<'PY'
import json, os
path = "{daemon}"
conf = json.load(open(path)) if os.path.exists(path) else {{}}
conf.setdefault("runtimes", {{}})["ascend"] = {{
    "path": "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime", "runtimeArgs": []}}
conf["default-runtime"] = "ascend"
os.makedirs(os.path.dirname(path), exist_ok=True)
json.dump(conf, open(path, "w"), indent=4)
PY
systemctl restart docker containerd
for i in $(seq 1 30); do crictl info >/dev/null 2>&1 && break; sleep 1; done
""".format(containerd=CONTAINERD, daemon=DAEMON_JSON)

REWIRE = r"""
mv /root/config.toml.site {containerd}
if [ "$(cat /root/daemon.json.site)" = absent ]; then rm -f {daemon}; else mv /root/daemon.json.site {daemon}; fi
rm -f /root/daemon.json.site
systemctl restart docker containerd
for i in $(seq 1 30); do crictl info >/dev/null 2>&1 && break; sleep 1; done
systemctl restart kubelet
""".format(containerd=CONTAINERD, daemon=DAEMON_JSON)


def test_a_node_where_only_daemon_json_names_the_runtime(site, tmp_path):
    cluster = site.cluster
    site.sh(UNWIRE)
    try:
        assert site.sh(DEFAULT_RUNTIME).strip() == "runc"
        # (a) The device_plugin role: its smoke pod runs with runc and sees no NPU.
        rc, out = ansible_run.playbook(cluster, tmp_path, host=site.node)
        (tmp_path / "device_plugin.log").write_text(out)
        assert rc != 0, out[-4000:]
        flat = " ".join(out.split())
        assert (
            "the Ascend runtime is not the default runtime of containerd, the engine the "
            "kubelet uses" in flat
        ), out[-4000:]
        assert "daemon.json" in flat and "T22" in flat
        # (b) The doctor names the row.
        report = tmp_path / "doctor"
        rc, out = site.run(
            "doctor",
            book=ansible_run.DOCTOR,
            ascend_doctor_output_dir=str(report),
            ascend_doctor_node_name=site.node,
        )
        assert rc == 0, out[-4000:]
        findings = json.loads((report / (site.node + ".json")).read_text())["findings"]
        assert "T22" in {f["row"] for f in findings}, findings
    finally:
        site.sh(REWIRE)
    assert site.sh(DEFAULT_RUNTIME).strip() == "ascend"
    cluster.bed.wait_ready(site.node)
    cluster.wait(
        "the node advertises its 8 NPUs again",
        lambda: (
            cluster.get("node", site.node)["status"]["allocatable"].get(RESOURCE)
            == str(CARDS)
        ),
        timeout=120,
    )
