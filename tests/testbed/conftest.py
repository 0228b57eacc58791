# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures of the test-bed tests: one real cluster per session (tests/testbed/bed.py).

The session reuses a bed that `make cluster` left running (all nodes Ready) and brings one up
otherwise; `make testbed` removes it afterwards. Nothing here is skipped: without Docker, the
node image or the Kubernetes binaries the tests fail with bed.py's message.
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bed as bedlib  # noqa: E402
import manifests  # noqa: E402


class Cluster:
    """kubectl against the bed, and waiting on what it shows."""

    def __init__(self, bed, node, container):
        self.bed = bed
        self.node = node
        self.container = container

    def kubectl(self, *args, check=True, input_data=None):
        return self.bed.kubectl(*args, check=check, input_data=input_data)

    def get(self, *args):
        return json.loads(self.kubectl("get", "-o", "json", *args))

    def apply(self, objects):
        items = {"apiVersion": "v1", "kind": "List", "items": objects}
        return self.kubectl("apply", "-f", "-", input_data=json.dumps(items).encode())

    def delete(self, objects, wait=True):
        items = {"apiVersion": "v1", "kind": "List", "items": objects}
        self.kubectl(
            "delete",
            "--ignore-not-found",
            "--wait=%s" % ("true" if wait else "false"),
            "-f",
            "-",
            input_data=json.dumps(items).encode(),
            check=False,
        )

    def remove_kubernetes_layer(self, exporter=True):
        """Delete the device plugin's DaemonSet (and the exporter's namespace): the next module
        starts without their pods, which hold the NPUs of the node they run on."""
        if exporter:
            self.kubectl("delete", "namespace", "npu-exporter", "--ignore-not-found")
        self.kubectl(
            "delete",
            "-n",
            "kube-system",
            "daemonset",
            manifests.DAEMONSET,
            "--ignore-not-found",
        )

    def node_sh(self, script, check=True):
        return bedlib.dexec(self.container, script, check=check)

    def allocatable(self, resource="huawei.com/Ascend910"):
        return (
            self.get("node", self.node)["status"].get("allocatable", {}).get(resource)
        )

    def logs(self, selector, namespace="kube-system"):
        """Current and previous container logs of the pods a label selector picks."""
        out = []
        for previous in (False, True):
            args = ["logs", "-n", namespace, "-l", selector, "--tail=-1", "--prefix"]
            if previous:
                args.append("--previous")
            out.append(self.kubectl(*args, check=False))
        return "\n".join(out)

    def wait_log(self, selector, message, timeout=120):
        """Wait until `message` is in the logs of the pods `selector` picks; fail with them."""
        deadline = time.time() + timeout
        text = ""
        while time.time() < deadline:
            text = self.logs(selector)
            if message in text:
                return text
            time.sleep(1.0)
        raise AssertionError(
            "%r not in the logs of %s within %d s; they end with:\n%s"
            % (message, selector, timeout, "\n".join(text.splitlines()[-15:]))
        )

    @staticmethod
    def wait(what, probe, timeout=120, interval=1.0):
        """Poll probe() until it returns something true; fail with the last value seen."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = probe()
            if last:
                return last
            time.sleep(interval)
        raise AssertionError(
            "%s: not within %d s (last seen: %r)" % (what, timeout, last)
        )


@pytest.fixture(scope="session")
def cluster():
    bed = bedlib.Bed()
    status = bed.status() if os.path.exists(bed.kubeconfig) else {"nodes": {}}
    nodes = status["nodes"]
    if not nodes or any(n["ready"] != "True" for n in nodes.values()):
        assert bedlib.main(["up"]) == 0, "bed.py up failed (its message is above)"
        nodes = bed.status()["nodes"]
    node = sorted(nodes)[0]
    cluster = Cluster(bed, node, nodes[node]["container"])
    # The operator's step of every install guide: the label the DaemonSets select on.
    cluster.kubectl(
        "label", "node", node, "accelerator=huawei-Ascend910", "--overwrite"
    )
    return cluster
