# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/uninstall.yml, its Kubernetes layer (`--tags device_plugin,exporter`), on the real
cluster of the test bed.

The device plugin and the exporter are deployed by their roles; then the uninstall, first in
check mode (it names what it would remove and removes nothing), then for real: the node loses
the labels of the device plugin's plan, the plugin's and the exporter's pods leave it, the
cluster objects go (no other node selects them), the images and their tarballs leave the node,
and the node's Ascend software stays (only the Kubernetes layer was asked for). A second run
changes nothing.
"""

from __future__ import annotations

import os

import manifests
import pytest
from ansible_run import ARCHIVE, IMAGE, ROOT, playbook, recap
from bed import docker

DEPLOY = os.path.join(ROOT, "tests", "testbed", "playbooks", "kubernetes.yml")
UNINSTALL = os.path.join(ROOT, "playbooks", "uninstall.yml")
EXPORTER_ARCHIVE = ARCHIVE.replace("ascend-k8sdeviceplugin_", "npu-exporter_")
# The images of the deployed release (the bed's nodes hold the images of every release).
IMAGES = (IMAGE, IMAGE.replace("ascend-k8sdeviceplugin", "npu-exporter"))
TAGS = ("--tags", "device_plugin,exporter")
# Labels of the device plugin's plan (data/mindcluster.yml) and the user's of ansible_run.
PLAN_LABELS = (
    "accelerator",
    "accelerator-type",
    "host-arch",
    "workerselector",
    "accelerate",
)


def uninstall(cluster, tmp_path, *args):
    return playbook(
        cluster, tmp_path, *TAGS, *args, book=UNINSTALL, ascend_kubernetes=True
    )


def images(cluster):
    return cluster.node_sh("ctr -n k8s.io images ls -q").split()


def objects(cluster):
    """The cluster objects of both DaemonSets: kind/name of those that exist."""
    found = cluster.kubectl(
        "get",
        "daemonset/" + manifests.DAEMONSET,
        "serviceaccount/ascend-device-plugin-sa",
        "clusterrole/pods-node-ascend-device-plugin-role",
        "clusterrolebinding/pods-node-ascend-device-plugin-role-binding",
        "namespace/npu-exporter",
        "-n",
        "kube-system",
        "--ignore-not-found",
        "-o",
        "name",
    ).split()
    return sorted(found)


@pytest.fixture(scope="module")
def deployed(cluster, tmp_path_factory):
    cluster.delete(
        manifests.device_plugin()
    )  # the plain manifests of test_device_plugin.py
    rc, out = playbook(
        cluster,
        tmp_path_factory.mktemp("deploy"),
        book=DEPLOY,
        device_plugin_smoke_test=False,
    )
    assert rc == 0, out
    before = objects(cluster)
    assert len(before) == 5, before
    labels = cluster.get("node", cluster.node)["metadata"]["labels"]
    assert all(name in labels for name in PLAN_LABELS), labels
    assert set(IMAGES) <= set(images(cluster))
    yield cluster
    # The bed's node as the later modules expect it: the images back, ...
    for archive in (ARCHIVE, EXPORTER_ARCHIVE):
        docker("cp", archive, "%s:/root/image.tar" % cluster.container)
        cluster.node_sh(
            "ctr -n k8s.io images import /root/image.tar >/dev/null && rm /root/image.tar"
        )
    # ... and the label (conftest's operator step).
    cluster.kubectl(
        "label", "node", cluster.node, "accelerator=huawei-Ascend910", "--overwrite"
    )
    cluster.remove_kubernetes_layer()


def test_check_mode_names_what_goes_and_removes_nothing(deployed, tmp_path):
    cluster = deployed
    before = objects(cluster)
    rc, out = uninstall(cluster, tmp_path, "--check", "--diff")
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] > 0, out
    assert objects(cluster) == before
    labels = cluster.get("node", cluster.node)["metadata"]["labels"]
    assert all(name in labels for name in PLAN_LABELS), labels
    assert set(IMAGES) <= set(images(cluster))


def test_the_node_and_the_cluster_lose_the_kubernetes_layer_only(deployed, tmp_path):
    cluster = deployed
    rc, out = uninstall(cluster, tmp_path)
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] > 0, out
    labels = cluster.get("node", cluster.node)["metadata"]["labels"]
    assert not [name for name in PLAN_LABELS if name in labels], labels
    cluster.wait(
        "the plugin's and the exporter's pods gone, and their objects",
        lambda: (
            not objects(cluster)
            and not cluster.get(
                "pods",
                "-n",
                "kube-system",
                "-l",
                "name=ascend-device-plugin-ds",
                "--field-selector",
                "spec.nodeName=" + cluster.node,
            )["items"]
        ),
        timeout=120,
    )
    left = images(cluster)
    assert not set(IMAGES) & set(left), left
    tarballs = cluster.node_sh(
        "ls /var/lib/cubestudio/images/ 2>/dev/null || true"
    ).split()
    assert os.path.basename(ARCHIVE) not in tarballs, tarballs
    # The deployed release's tarball (earlier modules copied other releases' for their tests).
    assert "npu-exporter_v7.3.0_x86_64.tar" not in tarballs, tarballs
    # Only the Kubernetes layer was asked for: the node's Ascend software is all there.
    cluster.node_sh(
        "test -f /usr/local/Ascend/driver/version.info && /usr/local/sbin/npu-smi info >/dev/null"
    )

    rc, out = uninstall(cluster, tmp_path)
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out
