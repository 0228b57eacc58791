# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The last step of the chain on a real cluster: NPUs as a Kubernetes resource.

A real kube-apiserver, scheduler, controller-manager and kubelet (v1.34 from the Go modules),
the node's containerd and the simulated Ascend runtime; the device plugin is the simulator's
stand-in, deployed by a plain test manifest (manifests.py). The happy path first, then one
manifest mistake (or node fault) at a time, each with the message the stand-in prints where
Huawei's device plugin fails.
"""

from __future__ import annotations

import re

import manifests
import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils import _npu_smi

RESOURCE = "huawei.com/Ascend910"
SIM = "/opt/ascend-sim/bin/ascend-sim"


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
    cluster.wait_log("case=good", "device plugin started.", timeout=180)
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


def test_allocatable_is_the_eight_npus(plugin):
    node = plugin.get("node", plugin.node)
    assert node["status"]["capacity"][RESOURCE] == "8"
    labels = node["metadata"]["labels"]
    assert labels["node.kubernetes.io/npu.chip.name"] == "910B3"
    assert labels["huawei.com/driver.version"]
    config = plugin.get(
        "configmap", "-n", "kube-system", "mindx-dl-deviceinfo-" + plugin.node
    )
    devices = config["data"]["DeviceInfoCfg"]
    assert ",".join("Ascend910-%d" % i for i in range(8)) in devices


def test_pod_sees_exactly_one_npu_and_eight_stay_pending(plugin):
    one = manifests.npu_pod(
        "npu-one",
        1,
        command=[
            "/bin/sh",
            "-c",
            "npu-smi info; echo ASCEND_VISIBLE_DEVICES=$ASCEND_VISIBLE_DEVICES; echo DONE; sleep 3600",
        ],
    )
    eight = manifests.npu_pod("npu-eight", 8)
    plugin.delete([one, eight])  # leftovers of an interrupted run
    try:
        plugin.apply([one])

        def finished_logs():
            status = plugin.get("pod", "npu-one")["status"]
            assert status.get("phase") != "Failed", status
            text = plugin.kubectl("logs", "npu-one", check=False)
            return text if "DONE" in text else None

        logs = plugin.wait("npu-one prints npu-smi info", finished_logs, timeout=120)
        parsed = _npu_smi.parse_info(logs.split("ASCEND_VISIBLE_DEVICES=")[0])
        assert parsed["npu_count"] == 1, logs
        visible = re.search(r"ASCEND_VISIBLE_DEVICES=(\S+)", logs).group(1)
        assert re.fullmatch(r"[0-7]", visible), logs
        assert [npu["id"] for npu in parsed["npus"]] == [int(visible)]

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
        plugin.delete([one, eight], wait=False)
        plugin.kubectl(
            "delete",
            "pod",
            "npu-one",
            "npu-eight",
            "--ignore-not-found",
            "--grace-period=0",
            "--force",
            check=False,
        )


def test_a_chip_in_alarm_leaves_the_allocatable(plugin):
    plugin.node_sh("%s fault set alarm --npu 3 >/dev/null" % SIM)
    try:
        plugin.wait(
            "allocatable drops to 7", lambda: plugin.allocatable() == "7", timeout=60
        )
        node = plugin.get("node", plugin.node)
        assert "Ascend910-3" in node["metadata"]["annotations"].get(
            "huawei.com/Ascend910-Unhealthy", ""
        )
    finally:
        plugin.node_sh("%s fault clear alarm >/dev/null" % SIM)
    plugin.wait(
        "allocatable back to 8", lambda: plugin.allocatable() == "8", timeout=60
    )


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
        'get node failed, err is nodes "{node}" is forbidden: User '
        '"system:serviceaccount:kube-system:ascend-device-plugin-sa-910" cannot get resource "nodes"',
    ),
    (
        "rbac-configmaps-update",
        {"rules": manifests.without_verb("configmaps", "update")},
        None,
        None,
        "update configmap failed, err is",
    ),
    (
        "rbac-pods-watch",
        {"rules": manifests.without_verb("pods", "watch")},
        None,
        None,
        "watch pod failed, err:",
    ),
    (
        "no-kubelet-socket-folder",
        {"drop": ("device-plugin",)},
        None,
        None,
        "check kubelet socket file failed: lstat /var/lib/kubelet/device-plugins/kubelet.sock: "
        "no such file or directory",
    ),
    (
        "no-driver-folder",
        {"drop": ("hiai-driver",)},
        None,
        None,
        "deviceManager init failed, prepare dcmi failed, err: can't find valid lib: "
        "libdcmi.so is in no LD_LIBRARY_PATH folder",
    ),
    (
        "no-log-folder",
        {"drop": ("log-path",)},
        None,
        None,
        "hwlog init failed, error is create log dir failed: mkdir /var/log: read-only file system",
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
def test_the_stand_in_fails_where_huawei_s_fails(
    plugin, case, kwargs, break_node, fix_node, message
):
    message = message.format(node=plugin.node)
    if break_node:
        plugin.node_sh(break_node)
    try:
        selector = deploy(plugin, case, **kwargs)
        plugin.wait_log(selector, message)
    finally:
        if fix_node:
            plugin.node_sh(fix_node)
        deploy(plugin, "good")
    # The right manifest again: the plugin registers again and all eight come back.
    plugin.wait_log("case=good", "device plugin started.")
    plugin.wait("allocatable 8 again", lambda: plugin.allocatable() == "8", timeout=60)
