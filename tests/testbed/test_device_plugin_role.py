# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The device_plugin role on the real cluster of the test bed.

ansible-playbook runs the role against the bed's node (over docker exec) with the API calls
delegated to the controller (the bed's admin kubeconfig): the image tarball loaded into the
node's containerd, the DaemonSet applied, allocatable checked against npu-smi, the smoke pod;
then a second run and a check-mode run with nothing changed, render mode byte-stable and
accepted by the API server, and the failures a user meets, each with its cause.
"""

from __future__ import annotations

import re

import manifests
import pytest
from ansible_run import IMAGE, playbook, recap, task_status, validate_schemas


@pytest.fixture(scope="module")
def converged(cluster, tmp_path_factory):
    """The role's first run on a node with no plugin and without the plugin's image."""
    cluster.delete(
        manifests.device_plugin()
    )  # the plain manifests of test_device_plugin.py
    cluster.node_sh("ctr -n k8s.io images rm %s >/dev/null 2>&1 || true" % IMAGE)
    rc, out = playbook(cluster, tmp_path_factory.mktemp("converge"))
    assert rc == 0, out
    yield cluster, out
    cluster.remove_kubernetes_layer(exporter=False)


def test_first_run_loads_applies_and_proves_one_npu(converged):
    cluster, out = converged
    stats = recap(out, cluster.container)
    assert stats["failed"] == 0, out
    assert task_status(out, "Load the image") == "changed", out
    assert (
        task_status(
            out,
            "Apply the device plugin's ServiceAccount, ClusterRole, binding and DaemonSet",
        )
        == "changed"
    ), out
    assert IMAGE in cluster.node_sh("ctr -n k8s.io images ls -q")
    assert cluster.allocatable() == "8"
    labels = cluster.get("node", cluster.node)["metadata"]["labels"]
    assert labels["accelerator"] == "huawei-Ascend910"
    assert labels["workerselector"] == "dls-worker-node"
    assert labels["host-arch"] == "huawei-x86"
    assert labels["accelerate"] == "ascend"
    # The simulated 910B3 reports Board ID 0x33: an 8-module 910B server.
    assert labels["accelerator-type"] == "module-910b-8"
    assert "The pod saw exactly one NPU" in out
    ds = cluster.get("daemonset", "-n", "kube-system", manifests.DAEMONSET)
    container = ds["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["requests"] == container["resources"]["limits"]
    assert container["imagePullPolicy"] == "Never"
    # Nothing of the smoke test stays.
    assert not cluster.get("pods", "-l", "app.kubernetes.io/component=smoke-test")[
        "items"
    ]


def test_second_run_and_check_mode_change_nothing(converged, tmp_path):
    cluster, _out = converged
    rc, out = playbook(cluster, tmp_path)
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out
    rc, out = playbook(cluster, tmp_path, "--check", "--diff")
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out


def test_render_mode_is_stable_and_the_api_server_accepts_it(converged, tmp_path):
    cluster, _out = converged
    render = tmp_path / "rendered"
    rc, out = playbook(cluster, tmp_path, device_plugin_render_dir=str(render))
    assert rc == 0, out
    first = {p.name: p.read_bytes() for p in render.iterdir()}
    assert set(first) == {"device-plugin.yaml", "node-%s-labels.yaml" % cluster.node}
    rc, out = playbook(cluster, tmp_path, device_plugin_render_dir=str(render))
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out
    assert {p.name: p.read_bytes() for p in render.iterdir()} == first
    cluster.kubectl(
        "apply", "--dry-run=server", "-f", str(render / "device-plugin.yaml")
    )
    assert validate_schemas(render / "device-plugin.yaml") == [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "DaemonSet",
    ]


def test_a_node_the_cluster_does_not_know_is_named(converged, tmp_path):
    cluster, _out = converged
    rc, out = playbook(cluster, tmp_path, device_plugin_node_name="not-a-node")
    assert rc != 0
    assert "The node not-a-node is not registered with the cluster" in out
    assert "device_plugin_node_name" in out


def test_a_wrong_kubelet_root_fails_with_both_numbers_and_the_causes(
    converged, tmp_path
):
    cluster, _out = converged
    try:
        rc, out = playbook(
            cluster,
            tmp_path,
            device_plugin_kubelet_root="/srv/kubelet",
            device_plugin_wait_timeout=20,
            device_plugin_smoke_test=False,
        )
        assert rc != 0
        assert "advertises" in out and "npu-smi reports 8 healthy of 8 chips" in out, (
            out
        )
        assert "device_plugin_kubelet_root" in out
    finally:
        rc, out = playbook(cluster, tmp_path, device_plugin_smoke_test=False)
        assert rc == 0, out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"device_plugin_version": "6.0.0"},
            "Ascend Docker Runtime 7.3.0 and device plugin 6.0.0 must be the same release",
        ),
        (
            {"device_plugin_image_archive": "/nonexistent/dp.tar"},
            "which is not a file on the controller",
        ),
        (
            {"unreachable": True},
            "The Kubernetes API cannot be reached from ",
        ),
        (
            # The node's PCI functions as an Atlas 350 (A5) shows them: a family MindCluster's
            # device plugin has no resource for (through the sysfs root test hook).
            {"sysfs_device": "0xd806"},
            "the NPU family A5 has no MindCluster",
        ),
    ],
    ids=[
        "version-mismatch",
        "missing-tarball",
        "unreachable-cluster",
        "unknown-family",
    ],
)
def test_wrong_input_is_refused_and_changes_nothing(
    converged, tmp_path, extra, message
):
    cluster, _out = converged
    if extra.pop("unreachable", False):
        bad = tmp_path / "kubeconfig"
        with open(cluster.bed.kubeconfig, encoding="utf-8") as handle:
            bad.write_text(
                re.sub(r"server: \S+", "server: https://127.0.0.1:1", handle.read())
            )
        extra["ascend_kubeconfig"] = str(bad)
    device = extra.pop("sysfs_device", None)
    if device:
        cluster.node_sh(
            "rm -rf /root/sys-other && cp -a /var/lib/ascend-sim/sys /root/sys-other && "
            "grep -l 0xd802 /root/sys-other/bus/pci/devices/*/device | "
            'while read -r f; do echo %s > "$f"; done' % device
        )
        extra["ascend_sysfs_root"] = "/root/sys-other"
    before = cluster.get("daemonset", "-n", "kube-system", manifests.DAEMONSET)
    rc, out = playbook(cluster, tmp_path, **extra)
    assert rc != 0, out
    assert message in out, out
    assert recap(out, cluster.container)["changed"] == 0, out
    after = cluster.get("daemonset", "-n", "kube-system", manifests.DAEMONSET)
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
