# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/doctor.yml against the real cluster of the test bed.

The device_plugin role deploys the plugin first; the doctor then finds nothing. Each
cluster-side fault is made in turn (the node's workerselector label changed, the plugin's pod
unable to start, the Ascend runtime no longer containerd's default, pods that set
ASCEND_VISIBLE_DEVICES themselves or leave no memory headroom, pods whose images carry a CANN the
node's driver is not bundled with, or no version at all), the doctor's JSON report
must name its row, and the fault is undone (the plugin back to 8 allocatable NPUs) before the next one.
"""

from __future__ import annotations

import json
import os

import manifests
import pytest
from ansible_run import PLAYBOOK, ROOT, playbook

DOCTOR = os.path.join(ROOT, "playbooks", "doctor.yml")
DAEMONSET = "ascend-device-plugin-daemonset"
WORKLOAD = "docker.io/cubestudio/workload:latest"
CONFIG = "/etc/containerd/config.toml"


@pytest.fixture(scope="module")
def deployed(cluster, tmp_path_factory):
    rc, out = playbook(cluster, tmp_path_factory.mktemp("deploy"), book=PLAYBOOK)
    assert rc == 0, out
    yield cluster
    cluster.kubectl(
        "delete", "-n", "kube-system", "daemonset", DAEMONSET, "--ignore-not-found"
    )


def doctor(cluster, tmp_path, *args):
    """Run the doctor (strict) on the bed's node: (rc, the node's report, output)."""
    out_dir = tmp_path / "report"
    rc, out = playbook(
        cluster,
        tmp_path,
        *args,
        book=DOCTOR,
        ascend_doctor_strict=True,
        ascend_doctor_output_dir=str(out_dir),
        ascend_doctor_node_name=cluster.node,
    )
    path = out_dir / (cluster.container + ".json")
    assert path.exists(), out
    return rc, json.loads(path.read_text()), out


def rows(report):
    return sorted({f["row"] for f in report["findings"]}, key=lambda r: int(r[1:]))


def plugin_ready(cluster):
    return cluster.wait(
        "the device plugin advertises 8 NPUs again",
        lambda: (
            cluster.allocatable() == "8"
            and all(
                p["status"].get("phase") == "Running"
                and all(
                    c.get("ready") for c in p["status"].get("containerStatuses", [])
                )
                for p in cluster.get(
                    "pods", "-n", "kube-system", "-l", "name=ascend-device-plugin-ds"
                )["items"]
                if not p["metadata"].get("deletionTimestamp")
            )
        ),
        timeout=180,
    )


def test_healthy_node_and_cluster(deployed, tmp_path):
    plugin_ready(deployed)
    rc, report, out = doctor(deployed, tmp_path)
    assert report == {"host": deployed.container, "findings": []}, out
    assert rc == 0, out
    assert "no findings" in out
    rc, report, out = doctor(deployed, tmp_path, "--check")
    assert rc == 0 and report["findings"] == [], out


def test_wrong_label(deployed, tmp_path):
    cluster = deployed
    cluster.kubectl(
        "label", "node", cluster.node, "workerselector=other", "--overwrite"
    )
    try:
        rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.kubectl(
            "label",
            "node",
            cluster.node,
            "workerselector=dls-worker-node",
            "--overwrite",
        )
    assert "T26" in rows(report), out
    assert set(rows(report)) <= {"T25", "T26"}, out
    (finding,) = [f for f in report["findings"] if f["row"] == "T26"]
    assert "workerselector=dls-worker-node (node: other)" in finding["symptom"]
    assert rc != 0
    plugin_ready(cluster)


def test_plugin_not_running(deployed, tmp_path):
    cluster = deployed
    ds = cluster.get("daemonset", "-n", "kube-system", DAEMONSET)
    container = ds["spec"]["template"]["spec"]["containers"][0]
    cluster.kubectl(
        "set",
        "image",
        "-n",
        "kube-system",
        "daemonset/" + DAEMONSET,
        "%s=%s" % (container["name"], container["image"] + "-missing"),
    )
    try:
        cluster.wait(
            "the plugin's new pod cannot start",
            lambda: any(
                (c.get("state") or {})
                .get("waiting", {})
                .get("reason", "")
                .startswith(("Err", "Image"))
                for p in cluster.get(
                    "pods", "-n", "kube-system", "-l", "name=ascend-device-plugin-ds"
                )["items"]
                for c in p["status"].get("containerStatuses", [])
            ),
        )
        rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.kubectl(
            "set",
            "image",
            "-n",
            "kube-system",
            "daemonset/" + DAEMONSET,
            "%s=%s" % (container["name"], container["image"]),
        )
    assert "T27" in rows(report), out
    assert set(rows(report)) <= {"T25", "T27"}, out
    (finding,) = [f for f in report["findings"] if f["row"] == "T27"]
    assert "are not ready" in finding["symptom"], finding
    assert rc != 0
    plugin_ready(cluster)


def test_runtime_not_default(deployed, tmp_path):
    """The file only: containerd keeps running with the config it read at start."""
    cluster = deployed
    cluster.node_sh(
        "cp -p {0} /root/config.toml.doctor && sed -i "
        '\'s/runtime_type = "io.containerd.runtime.v1.linux"/runtime_type = "io.containerd.runc.v2"/\' {0}'.format(
            CONFIG
        )
    )
    try:
        rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.node_sh("mv /root/config.toml.doctor " + CONFIG)
    assert rows(report) == ["T22"], out
    assert rc != 0


def test_pod_hygiene(deployed, tmp_path):
    """Two pods of a careless workload on the node: one sets ASCEND_VISIBLE_DEVICES itself and
    asks for no NPU (T40), one asks for an NPU with a memory limit equal to its request (T41,
    warning)."""
    cluster = deployed
    sneaky = manifests.npu_pod("sneaky", 1, command=["/bin/sh", "-c", "sleep 3600"])
    container = sneaky["spec"]["containers"][0]
    container["resources"] = {}
    container["env"] = [{"name": "ASCEND_VISIBLE_DEVICES", "value": "0-3"}]
    sneaky["spec"]["nodeName"] = cluster.node
    tight = manifests.npu_pod("tight", 1, command=["/bin/sh", "-c", "sleep 3600"])
    for kind in ("requests", "limits"):
        tight["spec"]["containers"][0]["resources"][kind]["memory"] = "256Mi"
    cluster.delete([sneaky, tight])
    try:
        cluster.apply([sneaky, tight])
        cluster.wait(
            "both pods run",
            lambda: all(
                cluster.get("pod", name)["status"].get("phase") == "Running"
                for name in ("sneaky", "tight")
            ),
            timeout=120,
        )
        rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.delete([sneaky, tight], wait=False)
    # tight's image (the bed's workload image, tag latest) carries no version: an info line.
    assert rows(report) == ["T40", "T41", "T48"], out
    assert [f["severity"] for f in report["findings"] if f["row"] == "T48"] == ["info"]
    by_row = {f["row"]: f for f in report["findings"]}
    assert (
        "pod default/sneaky container main sets ASCEND_VISIBLE_DEVICES itself"
        in (by_row["T40"]["symptom"])
    )
    assert by_row["T40"]["severity"] == "error"
    assert "pod default/tight" in by_row["T41"]["symptom"]
    assert by_row["T41"]["severity"] == "warning"
    assert rc != 0


# The bed's node runs driver 25.5.0 (firmware 7.8.0.5.216), whose matched CANN is 8.5.0. The
# workload image, tagged again in the node's containerd under the names an image built for
# another CANN (the field guide's form) and one of Huawei's CANN images would have.
OLD_IMAGE = "docker.io/cubestudio/workload:cann8.0.0-drv24.1.0-ascend"
GOOD_IMAGE = "quay.io/ascend/cann:8.5.0-910b-ubuntu22.04-py3.11"
# What Huawei's CANN images set in their ENV (data/container_images.yml); the workload image has
# none, so the pods set it (T49 is about a container without it).
HOME = "/usr/local/Ascend/ascend-toolkit/latest"
CANN_ENV = {
    "ASCEND_TOOLKIT_HOME": HOME,
    "ASCEND_OPP_PATH": HOME + "/opp",
    "ASCEND_AICPU_PATH": HOME,
    "LD_LIBRARY_PATH": HOME
    + "/lib64:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/driver/lib64/driver",
}


def test_images_carry_their_versions(deployed, tmp_path):
    """Three pods holding one NPU each: an image tagged for CANN 8.0.0 / driver 24.1.0 (T48, an
    error naming both versions, the matrix row and the fix), one of CANN 8.5.0 in Huawei's form
    (nothing), the workload image without a version (T48 as info). Without the mismatching pod
    the strict doctor passes: an info line is not a failure."""
    cluster = deployed
    plugin_ready(cluster)
    cluster.node_sh(
        " && ".join(
            "ctr -n k8s.io images tag --force %s %s >/dev/null" % (WORKLOAD, name)
            for name in (OLD_IMAGE, GOOD_IMAGE)
        )
    )
    pods = []
    for name, image in (
        ("old-cann", OLD_IMAGE),
        ("new-cann", GOOD_IMAGE),
        ("plain", WORKLOAD),
    ):
        item = manifests.npu_pod(name, 1, command=["/bin/sh", "-c", "sleep 3600"])
        container = item["spec"]["containers"][0]
        container["image"] = image
        container["env"] = [{"name": k, "value": v} for k, v in CANN_ENV.items()]
        pods.append(item)
    cluster.delete(pods)
    try:
        cluster.apply(pods)
        cluster.wait(
            "the three pods run",
            lambda: all(
                cluster.get("pod", p["metadata"]["name"])["status"].get("phase")
                == "Running"
                for p in pods
            ),
            timeout=120,
        )
        rc, report, out = doctor(cluster, tmp_path)
        cluster.delete(pods[:1])
        (tmp_path / "info").mkdir()
        rc_info, report_info, out_info = doctor(cluster, tmp_path / "info")
    finally:
        cluster.delete(pods, wait=False)
        cluster.node_sh(
            "ctr -n k8s.io images rm %s %s >/dev/null" % (OLD_IMAGE, GOOD_IMAGE),
            check=False,
        )
    findings = [f for f in report["findings"] if f["row"] in ("T48", "T49")]
    assert [(f["row"], f["severity"]) for f in findings] == [
        ("T48", "error"),
        ("T48", "info"),
    ], out
    old, plain = findings
    assert old["symptom"].startswith(
        "pod default/old-cann container main: image %s (CANN 8.0.0, driver 24.1.0, "
        "read from its tag, the field guide's form): CANN 8.0.0 of the image is not the matched set of "
        "driver 25.5.0" % OLD_IMAGE
    ), old
    assert "Huawei's bundles pair HDK 25.5.0 with CANN 8.5.0" in old["symptom"]
    assert old["cause"].startswith("version matrix row HDK 25.5.0")
    assert old["fix"].startswith(
        "use an image of CANN 8.5.0 (tag cann8.5.0-drv25.5.0-ascend), "
        "or run it on a node with the driver of HDK 24.1.0"
    ), old
    assert plain["symptom"].startswith(
        "pod default/plain container main: image %s, version unknown" % WORKLOAD
    ), plain
    assert not any("new-cann" in f["symptom"] for f in report["findings"]), out
    assert rc != 0
    assert [f["row"] for f in report_info["findings"]] == ["T48"], out_info
    assert report_info["findings"][0]["severity"] == "info"
    assert rc_info == 0, out_info


RUNTIME = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"


def events_for(cluster, pod, reason):
    return [
        e
        for e in cluster.get("events", "-n", "default")["items"]
        if e["involvedObject"].get("name") == pod and e.get("reason") == reason
    ]


def test_cluster_events_all_npus_taken(deployed, tmp_path):
    """A pod holds all 8 NPUs; the next one asking for one is refused by the scheduler
    (FailedScheduling: Insufficient huawei.com/Ascend910): T25, all taken."""
    cluster = deployed
    plugin_ready(cluster)
    hog = manifests.npu_pod("hog", 8, command=["/bin/sh", "-c", "sleep 3600"])
    late = manifests.npu_pod("late", 1, command=["/bin/sh", "-c", "sleep 3600"])
    cluster.delete([hog, late])
    try:
        cluster.apply([hog])
        cluster.wait(
            "hog runs",
            lambda: cluster.get("pod", "hog")["status"].get("phase") == "Running",
            timeout=120,
        )
        cluster.apply([late])
        cluster.wait(
            "the scheduler refuses late",
            lambda: events_for(cluster, "late", "FailedScheduling"),
            timeout=60,
        )
        _rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.delete([hog, late], wait=False)
    (finding,) = [f for f in report["findings"] if "scheduler refuses" in f["symptom"]]
    assert finding["row"] == "T25", out
    assert (
        "all 8 advertised NPU(s) are taken (8 requested by pods on the node)"
        in (finding["symptom"])
    )
    assert "Insufficient huawei.com/Ascend910" in finding["symptom"]


def test_cluster_events_pod_sandbox_fails(deployed, tmp_path):
    """The Ascend runtime, containerd's default, is gone from the node: a new pod's sandbox
    cannot start (FailedCreatePodSandBox) and the doctor shows the kubelet's event (T44)."""
    cluster = deployed
    pod = manifests.npu_pod("nosandbox", 1, command=["/bin/sh", "-c", "sleep 3600"])
    cluster.delete([pod])
    cluster.node_sh("mv %s %s.doctor" % (RUNTIME, RUNTIME))
    try:
        cluster.apply([pod])
        cluster.wait(
            "the kubelet cannot create the sandbox",
            lambda: events_for(cluster, "nosandbox", "FailedCreatePodSandBox"),
            timeout=120,
        )
        rc, report, out = doctor(cluster, tmp_path)
    finally:
        cluster.node_sh("mv %s.doctor %s" % (RUNTIME, RUNTIME))
        cluster.delete([pod], wait=False)
    assert "T44" in rows(report), out
    (finding,) = [f for f in report["findings"] if f["row"] == "T44"]
    assert (
        "FailedCreatePodSandBox default/nosandbox: Failed to create pod sandbox"
        in (finding["symptom"])
    )
    assert rc != 0


def test_cluster_events_plugin_cannot_reach_the_kubelet(deployed, tmp_path):
    """The device plugin mounts another folder than the kubelet's device-plugin folder (the
    kubelet's root elsewhere): Huawei's plugin keeps running and logs that it cannot contact the
    kubelet; the doctor reads its log (T29)."""
    cluster = deployed
    objects = manifests.device_plugin(
        host_paths={"device-plugin": "/var/lib/kubelet-elsewhere/device-plugins"}
    )
    cluster.apply(objects)
    try:
        cluster.wait_log(
            "name=ascend-device-plugin-ds", "Could not contact Kubelet", timeout=180
        )
        rc, report, _out = doctor(cluster, tmp_path)
    finally:
        cluster.delete(objects)
        (tmp_path / "redeploy").mkdir(exist_ok=True)
        rc2, out2 = playbook(cluster, tmp_path / "redeploy", book=PLAYBOOK)
        assert rc2 == 0, out2
    (finding,) = [
        f
        for f in report["findings"]
        if f["row"] == "T29" and "the device plugin's log on node" in f["symptom"]
    ]
    assert "kubelet" in finding["symptom"].lower(), finding
    assert rc != 0
    plugin_ready(cluster)
