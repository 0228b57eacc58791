# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The last step of the chain on a real cluster: NPUs as a Kubernetes resource.

A real kube-apiserver, scheduler, controller-manager and kubelet (v1.34 from the Go modules),
the node's containerd and the simulated Ascend runtime; the device plugin is Huawei's own,
built from the source of each MindCluster tag (tests/mindcluster), deployed by a plain test
manifest (manifests.py). The happy path first, then each release with the command line the
collection's plan renders for it, then one manifest mistake (or node fault) at a time, each
with the message Huawei's plugin prints.
"""

from __future__ import annotations

import json
import os
import re

import manifests
import pytest
import yaml
from ansible_run import ROOT

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s import _mindcluster
from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _npu_smi

RESOURCE = "huawei.com/Ascend910"
SIM = "/opt/ascend-sim/bin/ascend-sim"


# Huawei's log line once the plugin has served the kubelet its devices (every release).
REGISTERED = "ListAndWatch resp devices"


def deploy(cluster, case, **kwargs):
    """Apply the device plugin with a `case` label on its pods; returns their selector."""
    objects = manifests.device_plugin(**kwargs)
    template = objects[-1]["spec"]["template"]["metadata"]
    # A label of the pods only: the DaemonSet's selector is immutable.
    template["labels"] = dict(template["labels"], case=case)
    cluster.apply(objects)
    return "case=" + case


@pytest.fixture(scope="module")
def plugin(cluster):
    """The device plugin as the install guides deploy it, registered with the kubelet."""
    cluster.delete(manifests.device_plugin())  # a reused bed: start from no plugin
    deploy(cluster, "good")
    # The kubelet keeps the last allocatable of a plugin that went away for a while: first the
    # new plugin's own word that it registered, then the number.
    cluster.wait_log("case=good", REGISTERED, timeout=180)
    cluster.wait(
        "allocatable %s == 8" % RESOURCE,
        lambda: cluster.allocatable() == "8",
        timeout=180,
    )
    yield cluster
    cluster.delete(manifests.device_plugin())


def test_node_is_ready_with_the_real_kubelet(cluster):
    node = cluster.get("node", cluster.node)
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    assert ready[0]["status"] == "True"
    info = node["status"]["nodeInfo"]
    assert info["kubeletVersion"] == "v1.34.4"
    assert info["containerRuntimeVersion"].startswith("containerd://")


def device_info(cluster):
    """The plugin's ConfigMap of the node: (labels, data, its DeviceList)."""
    config = cluster.get(
        "configmap", "-n", "kube-system", "mindx-dl-deviceinfo-" + cluster.node
    )
    info = json.loads(config["data"]["DeviceInfoCfg"])
    return (
        config["metadata"].get("labels", {}),
        config["data"],
        info["DeviceInfo"]["DeviceList"],
    )


def test_allocatable_is_the_eight_npus(plugin):
    node = plugin.get("node", plugin.node)
    assert node["status"]["capacity"][RESOURCE] == "8"
    labels = node["metadata"]["labels"]
    assert labels["node.kubernetes.io/npu.chip.name"] == "910B3"
    # Huawei's plugin: the AI-core count from dcmi_get_device_info, the HBM from the hbm info.
    assert labels["servertype"] == "Ascend910B-20"
    assert labels["mind-cluster/npu-chip-memory"] == "64G"
    cm_labels, data, devices = device_info(plugin)
    assert cm_labels.get("mx-consumer-cim") == "true"
    assert {"Description", "DeviceInfoCfg", "ManuallySeparateNPU"} <= set(data)
    assert devices[RESOURCE] == ",".join("Ascend910-%d" % i for i in range(8))
    assert devices[RESOURCE + "-Unhealthy"] == ""


def one_npu_pod(cluster):
    """A pod asking for one NPU runs npu-smi through the Ascend runtime: it sees exactly the
    NPU of its ASCEND_VISIBLE_DEVICES, which Huawei's plugin set in Allocate."""
    one = manifests.npu_pod(
        "npu-one",
        1,
        command=[
            "/bin/sh",
            "-c",
            "npu-smi info; echo ASCEND_VISIBLE_DEVICES=$ASCEND_VISIBLE_DEVICES; echo DONE; sleep 3600",
        ],
    )
    cluster.delete([one])  # a leftover of an interrupted run
    try:
        cluster.apply([one])

        def finished_logs():
            status = cluster.get("pod", "npu-one")["status"]
            assert status.get("phase") != "Failed", status
            text = cluster.kubectl("logs", "npu-one", check=False)
            return text if "DONE" in text else None

        logs = cluster.wait("npu-one prints npu-smi info", finished_logs, timeout=120)
        parsed = _npu_smi.parse_info(logs.split("ASCEND_VISIBLE_DEVICES=")[0])
        assert parsed["npu_count"] == 1, logs
        visible = re.search(r"ASCEND_VISIBLE_DEVICES=(\S+)", logs).group(1)
        assert re.fullmatch(r"[0-7]", visible), logs
        assert [npu["id"] for npu in parsed["npus"]] == [int(visible)]
    finally:
        cluster.kubectl(
            "delete",
            "pod",
            "npu-one",
            "--ignore-not-found",
            "--grace-period=0",
            "--force",
            check=False,
        )


def test_pod_sees_exactly_one_npu_and_eight_stay_pending(plugin):
    one_npu_pod(plugin)
    # While one NPU is held, a pod asking for all eight cannot be placed.
    hold = manifests.npu_pod("npu-hold", 1, command=["/bin/sh", "-c", "sleep 3600"])
    eight = manifests.npu_pod("npu-eight", 8)
    plugin.delete([hold, eight])  # leftovers of an interrupted run
    try:
        plugin.apply([hold])
        plugin.wait(
            "npu-hold runs",
            lambda: plugin.get("pod", "npu-hold")["status"].get("phase") == "Running",
            timeout=120,
        )
        plugin.apply([eight])

        def unschedulable():
            pod = plugin.get("pod", "npu-eight")
            for cond in pod["status"].get("conditions", []):
                if cond["type"] == "PodScheduled" and cond["status"] == "False":
                    return cond.get("message", "")
            return None

        message = plugin.wait("npu-eight is unschedulable", unschedulable, timeout=60)
        assert "Insufficient huawei.com/Ascend910" in message
        assert plugin.get("pod", "npu-eight")["status"]["phase"] == "Pending"
    finally:
        plugin.kubectl(
            "delete",
            "pod",
            "npu-hold",
            "npu-eight",
            "--ignore-not-found",
            "--grace-period=0",
            "--force",
            check=False,
        )


def alarm_drops_and_clears(cluster):
    """A chip whose DCMI error codes faultCode.json classifies as a fault (the simulator's
    alarm knob) leaves the allocatable and is named unhealthy in the plugin's ConfigMap (Huawei's
    plugin writes no node annotation for it); cleared, it comes back."""
    cluster.node_sh("%s fault set alarm --npu 3 >/dev/null" % SIM)
    try:
        cluster.wait(
            "allocatable drops to 7", lambda: cluster.allocatable() == "7", timeout=90
        )
        _labels, _data, devices = cluster.wait(
            "the ConfigMap names Ascend910-3 unhealthy",
            lambda: (
                "Ascend910-3" in device_info(cluster)[2][RESOURCE + "-Unhealthy"]
                and device_info(cluster)
            ),
            timeout=60,
        )
        assert "Ascend910-3" not in devices[RESOURCE].split(",")
        faults = json.loads(devices[RESOURCE + "-Fault"] or "[]")
        assert any(f.get("npu_name") == "Ascend910-3" for f in faults), faults
    finally:
        cluster.node_sh("%s fault clear alarm >/dev/null" % SIM)
    cluster.wait(
        "allocatable back to 8", lambda: cluster.allocatable() == "8", timeout=90
    )


def test_a_chip_in_alarm_leaves_the_allocatable(plugin):
    alarm_drops_and_clears(plugin)


# The releases whose binaries the bed builds from Huawei's source (tests/mindcluster).
RELEASES = ("7.3.0", "26.0.0", "26.1.0")


def rendered(cluster, version):
    """The device-plugin plan of the collection for this node and release (what the role's
    DaemonSet runs): command line, environment, healthz probe."""
    with open(
        os.path.join(ROOT, "data", "mindcluster.yml"), encoding="utf-8"
    ) as handle:
        catalogue = _mindcluster.validate_catalogue(yaml.safe_load(handle))
    npu_smi = _npu_smi.parse_info(cluster.node_sh("/usr/local/sbin/npu-smi info"))
    return _mindcluster.plan(
        catalogue,
        {
            "npu_family": "910B",
            "architecture": "x86_64",
            "npu_smi": npu_smi,
            "board_id": None,
            "version": version,
            "image_registry": "",
            "image_pull_policy": "",
            "kubelet_root": "/var/lib/kubelet",
            "extra_labels": {},
            "node_name": cluster.node,
        },
    )


@pytest.mark.parametrize("version", RELEASES)
def test_each_release_runs_with_the_command_line_the_plan_renders(plugin, version):
    """Huawei's plugin of each tag with exactly the flags, environment and probe the role would
    give it: it registers the 8 NPUs, a pod gets one, a faulted chip leaves and comes back. With
    the healthz flags on 26.0.0 (the collection's old plan) it would stop at once (exit 2)."""
    p = rendered(plugin, version)
    case = "release-" + version.replace(".", "-")
    deploy(
        plugin,
        case,
        version=version,
        command=p["command"],
        extra_env=[e for e in p["env"] if e[1] is not None],
        healthz=(p["healthz_port"], p["healthz_path"]) if p["healthz_port"] else None,
    )
    try:
        plugin.wait_log("case=" + case, REGISTERED, timeout=180)
        plugin.wait("allocatable 8", lambda: plugin.allocatable() == "8", timeout=120)
        node = plugin.get("node", plugin.node)
        labels = node["metadata"]["labels"]
        assert labels["servertype"] == "Ascend910B-20"
        if version == "26.1.0":
            # Only 26.1.0 writes these two (from dcmi_get_dcmi_version for the driver).
            assert labels["accelerator"] == "huawei-Ascend910"
            assert labels["huawei.com/driver.version"]
        else:
            assert "huawei.com/driver.version" not in labels
        assert "huawei.com/Ascend910-Unhealthy" not in node["metadata"].get(
            "annotations", {}
        )
        one_npu_pod(plugin)
        alarm_drops_and_clears(plugin)
        pods = plugin.get("pods", "-n", "kube-system", "-l", "case=" + case)["items"]
        assert [
            c["restartCount"] for p_ in pods for c in p_["status"]["containerStatuses"]
        ] == [0]
    finally:
        deploy(plugin, "good")
        plugin.wait_log("case=good", REGISTERED, timeout=180)


# One thing wrong at a time: (case, device_plugin() arguments, node script, undo, message).
DCMI = "/usr/local/Ascend/driver/lib64/driver/libdcmi.so"
FAILURES = [
    (
        "no-node-name",
        {"drop": ("NODE_NAME",)},
        None,
        None,
        "check node name failed: the env variable whose key is NODE_NAME must be set",
    ),
    (
        "no-token",
        {"drop": ("token",)},
        None,
        None,
        "build client config err: invalid configuration: no configuration has been provided",
    ),
    (
        "rbac-nodes-get",
        {"rules": manifests.without_verb("nodes", "get")},
        None,
        None,
        'failed to get node {node} info, err: nodes "{node}" is forbidden: User '
        '"system:serviceaccount:kube-system:ascend-device-plugin-sa-910" cannot get resource "nodes"',
    ),
    (
        "rbac-configmaps-update",
        {"rules": manifests.without_verb("configmaps", "update")},
        None,
        None,
        'write device info failed: configmaps "mindx-dl-deviceinfo-{node}" is forbidden: User '
        '"system:serviceaccount:kube-system:ascend-device-plugin-sa-910" cannot update resource '
        '"configmaps"',
    ),
    (
        "rbac-pods-watch",
        {"rules": manifests.without_verb("pods", "watch")},
        None,
        None,
        "pod informer watch error: unknown (get pods)",
    ),
    (
        # The kubelet's root elsewhere: the folder mounted is not the kubelet's, so there is no
        # kubelet.sock in it. (Without any mount Huawei's plugin waits 5 minutes for the folder.)
        "kubelet-socket-elsewhere",
        {"host_paths": {"device-plugin": "/var/lib/kubelet-elsewhere/device-plugins"}},
        None,
        None,
        "register to kubelet failed, err: check kubelet socket file path failed",
    ),
    (
        "no-driver-folder",
        {"drop": ("hiai-driver",)},
        None,
        None,
        "deviceManager init failed, prepare dcmi failed, err: cannot found valid driver lib, "
        "fromEnv: lib path is invalid, [], fromLdCmd: command exec failed: exit status 1",
    ),
    (
        "no-log-folder",
        {"drop": ("log-path",)},
        None,
        None,
        "log init failed, error is create dirs failed",
    ),
    (
        "libdcmi-not-root",
        {},
        "chown 1000 " + DCMI,
        "chown 0 " + DCMI,
        DCMI + ": check uid or mode failed",
    ),
    (
        "device-not-started",
        {},
        SIM + " fault set device-not-started >/dev/null",
        SIM + " fault clear device-not-started >/dev/null",
        "deviceManager init failed, prepare dcmi failed, err: dcmi init failed, error code: -8005",
    ),
]


@pytest.mark.parametrize(
    ("case", "kwargs", "break_node", "fix_node", "message"),
    FAILURES,
    ids=[f[0] for f in FAILURES],
)
def test_huawei_s_plugin_names_the_cause(
    plugin, case, kwargs, break_node, fix_node, message
):
    message = message.format(node=plugin.node)
    if break_node:
        plugin.node_sh(break_node)
    try:
        selector = deploy(plugin, case, **kwargs)
        plugin.wait_log(selector, message, timeout=180)
    finally:
        if fix_node:
            plugin.node_sh(fix_node)
        deploy(plugin, "good")
    # The right manifest again: the plugin registers again and all eight come back.
    plugin.wait_log("case=good", REGISTERED, timeout=180)
    plugin.wait("allocatable 8 again", lambda: plugin.allocatable() == "8", timeout=60)
