# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/upgrade.yml on two simulated nodes joined to the real cluster (issue 13).

Both nodes are converged by site.yml on release set 25.5.0 (driver, firmware, CANN, runtime,
device plugin and exporter of MindCluster 7.3.0), a workload of two pods asks for one NPU on
each node, and the fleet is rolled to 26.1.0:

1. with the driver installer of the first node interrupted (simulator fault
   install-interrupted): the roll stops there, that node stays cordoned and the message names
   it and the step; the second node is not drained, not cordoned and keeps its driver;
2. the next roll refuses the half install that interruption left (T5, the same node, the second
   still untouched); after the fix its message names, the roll goes through: each node cordoned, drained,
   upgraded, checked and uncordoned one after the other; at the end both run 26.1.0, advertise
   their 8 NPUs, the device plugin runs the 26.1.0 image and the workload runs again on both.
"""

from __future__ import annotations

import json
import os

import ansible_run
import bed as bedlib
import pytest
from ansible_run import ROOT, recap

RESOURCE = "huawei.com/Ascend910"
WORKLOAD = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "npu-job", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "npu-job"}},
        "template": {
            "metadata": {"labels": {"app": "npu-job"}},
            "spec": {
                # One pod per node: a drained node's pod waits until that node is back.
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "labelSelector": {"matchLabels": {"app": "npu-job"}},
                                "topologyKey": "kubernetes.io/hostname",
                            }
                        ]
                    }
                },
                "terminationGracePeriodSeconds": 1,
                "containers": [
                    {
                        "name": "train",
                        "image": bedlib.WORKLOAD_IMAGE,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["sleep", "infinity"],
                        "resources": {
                            "requests": {RESOURCE: 1},
                            "limits": {RESOURCE: 1},
                        },
                    }
                ],
            },
        },
    },
}


class Fleet:
    def __init__(self, cluster, containers, directory):
        self.cluster = cluster
        self.containers = containers
        self.dir = directory
        self.artifacts = cluster.bed.sim_artifacts()
        self.inventory = os.path.join(directory, "inventory.json")
        variables = ansible_run.site_variables(
            cluster.bed.kubeconfig, self.artifacts, ascend_container_engine="containerd"
        )
        with open(self.inventory, "w", encoding="utf-8") as handle:
            json.dump(ansible_run.inventory(containers, variables), handle)

    def playbook(self, book, release, *args, **extra):
        extra_vars = {
            "ascend_release": release,
            **ansible_run.image_archives(release),
            **extra,
        }
        rc, out = ansible_run.run_playbook(
            self.inventory,
            os.path.join(ROOT, "playbooks", book),
            json.dumps(extra_vars),
            *args,
            timeout=1800,
        )
        with open(
            os.path.join(self.dir, "%s-%s.log" % (book, release)), "a", encoding="utf-8"
        ) as handle:
            handle.write(out)
        return rc, out

    def upgrade(self, *args, **extra):
        """upgrade.yml to 26.1.0. The matrix names no firmware for HDK 26.1.0 yet, and the
        installed 7.8.0.5.216 accepts drivers up to 25.5.0: the user names the firmware (the
        simulator's 7.9.0.1.210). Flashed firmware asks for a reboot: the policy here is never
        (a reboot is a container restart, tested by molecule npu_driver_upgrade)."""
        settings = {
            "npu_driver_firmware_version": "7.9.0.1.210",
            "ascend_upgrade_reboot": "never",
        }
        settings.update(extra)
        return self.playbook("upgrade.yml", "26.1.0", *args, **settings)

    def sh(self, container, script, check=True):
        return bedlib.dexec(container, script, check=check)

    def driver(self, container):
        return self.sh(
            container,
            "sed -n 's/^Version=//p' /usr/local/Ascend/driver/version.info",
            check=False,
        ).strip()

    def cordoned(self, node):
        return bool(self.cluster.get("node", node)["spec"].get("unschedulable"))

    def workload_nodes(self):
        pods = self.cluster.get("pods", "-n", "default", "-l", "app=npu-job")["items"]
        return sorted(
            p["spec"].get("nodeName")
            for p in pods
            if p["status"].get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")
        )


@pytest.fixture(scope="module")
def fleet(cluster, tmp_path_factory):
    bed = cluster.bed
    second = "%s-node-2" % bed.name
    if second not in {r["container"] for r in bed.node_records().values()}:
        bed.create_node(second, "910B3", 8)
        bed.join(second, wait=False)
        bed.provision(second, "25.5.0")
        bed.wait_ready(second)
    fleet = Fleet(
        cluster, [cluster.container, second], str(tmp_path_factory.mktemp("upgrade"))
    )
    rc, out = fleet.playbook("site.yml", "25.5.0")
    assert rc == 0, out[-6000:]
    cluster.apply([WORKLOAD])
    nodes = sorted([cluster.node, second])
    cluster.wait("the workload on both nodes", lambda: fleet.workload_nodes() == nodes)
    yield fleet
    cluster.delete([WORKLOAD], wait=False)


def test_check_mode_says_what_would_change_and_touches_nothing(fleet):
    rc, out = fleet.upgrade("--check")
    assert rc == 0, out[-6000:]
    flat = " ".join(out.split())  # YAML output folds long lines
    for container in fleet.containers:
        assert (
            "%s: upgrades npu_driver, cann_toolkit, ascend_runtime with "
            "Ascend-hdk-910b-npu-firmware_7.9.0.1.210.run" % container
        ) in flat, out[-6000:]
        assert not fleet.cordoned(container)
        assert fleet.driver(container) == "25.5.0"
    assert sorted(fleet.workload_nodes()) == sorted(fleet.containers)


def test_a_package_that_fails_verification_stops_the_fleet_before_any_node_is_touched(
    fleet,
):
    with open(os.path.join(fleet.artifacts, "artifacts.json"), encoding="utf-8") as h:
        checksums = {item["file"]: item["sha256"] for item in json.load(h)}
    driver = "Ascend-hdk-910b-npu-driver_26.1.0_linux-x86_64.run"
    checksums[driver] = "0" * 64
    rc, out = fleet.upgrade(ascend_artifact_checksums=checksums)
    assert rc != 0, out[-4000:]
    # The pre-flight's message, naming the package and the cause.
    assert "- packages: %s: " % driver in out, out[-4000:]
    assert "sha256" in out.split("- packages: %s: " % driver, 1)[1][:400]
    assert "TASK [Cordon and drain the node" not in out
    for container in fleet.containers:
        assert not fleet.cordoned(container)
        assert fleet.driver(container) == "25.5.0"
        assert recap(out, container).get("changed", 0) == 0


def test_the_roll_stops_at_the_first_failing_node_and_leaves_it_cordoned(fleet):
    first, second = fleet.containers
    assert fleet.driver(first) == fleet.driver(second) == "25.5.0"
    fleet.sh(first, "/opt/ascend-sim/bin/ascend-sim fault set install-interrupted")
    try:
        rc, out = fleet.upgrade()
    finally:
        fleet.sh(
            first, "/opt/ascend-sim/bin/ascend-sim fault clear install-interrupted"
        )
    assert rc != 0, out[-4000:]
    assert "The roll stopped at %s (Kubernetes node %s)" % (first, first) in out, out[
        -4000:
    ]
    assert "The node stays cordoned" in out
    # The step, and the driver installer's failure with its row.
    assert (
        "in the step npu_driver" in out
        and "[T9] Driver 26.1.0 was not installed" in out
    )
    assert fleet.cordoned(first)
    # The second node was not touched: not cordoned, its pod still runs, its driver unchanged.
    assert not fleet.cordoned(second)
    assert second in fleet.workload_nodes()
    assert fleet.driver(second) == "25.5.0"
    assert recap(out, second).get("changed", 0) == 0
    # One batch ran: one drain.
    assert out.count("TASK [Cordon and drain the node") == 1, out[-4000:]
    # The doctor reads the node the roll left out of scheduling (row T34).
    report = os.path.join(fleet.dir, "doctor")
    rc, out = fleet.playbook(
        "doctor.yml", "26.1.0", "--limit", first, ascend_doctor_output_dir=report
    )
    assert rc == 0, out[-4000:]
    with open(os.path.join(report, first + ".json"), encoding="utf-8") as handle:
        findings = json.load(handle)["findings"]
    (held,) = [f for f in findings if f["row"] == "T34"]
    assert "tainted cubestudio.ascend/upgrade=true:NoExecute" in held["symptom"]


def test_after_the_fix_the_roll_upgrades_every_node_one_after_the_other(fleet):
    first, second = fleet.containers
    # The interrupted installer left a half install: version.info of 26.1.0, no
    # Driver_Install_Status=complete. The next roll refuses it at the same node (T5) and says how
    # to clean it; the second node is still not touched.
    rc, out = fleet.upgrade()
    assert rc != 0, out[-4000:]
    flat = " ".join(out.split())
    assert "The roll stopped at %s" % first in flat
    assert "[T5] The driver in /usr/local/Ascend/driver is installed partially" in flat
    assert "no Driver_Install_Status=complete" in flat
    assert fleet.driver(second) == "25.5.0" and not fleet.cordoned(second)
    uninstaller = "/usr/local/Ascend/driver/script/uninstall.sh"
    assert "Clean it: run %s" % uninstaller in flat
    fleet.sh(first, uninstaller)
    rc, out = fleet.upgrade()
    assert rc == 0, out[-6000:]
    for container in (first, second):
        assert fleet.driver(container) == "26.1.0"
        assert not fleet.cordoned(container)
        assert (
            fleet.cluster.allocatable()
            and int(
                fleet.cluster.get("node", container)["status"]["allocatable"][RESOURCE]
            )
            == 8
        )
    # The collection's version labels followed the upgrade on both nodes.
    for container in (first, second):
        labels = fleet.cluster.get("node", container)["metadata"]["labels"]
        assert labels["cubestudio.ascend/driver-version"] == "26.1.0", labels
        assert labels["cubestudio.ascend/runtime-version"] == "26.1.0", labels
    # One batch after the other: the second node's drain comes after the first's uncordon.
    assert out.count("TASK [Cordon and drain the node") == 2, out[-4000:]
    ds = fleet.cluster.get(
        "daemonset", "-n", "kube-system", "ascend-device-plugin-daemonset"
    )
    assert ds["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":v26.1.0")
    nodes = sorted([first, second])
    fleet.cluster.wait(
        "the workload back on both nodes",
        lambda: fleet.workload_nodes() == nodes,
        timeout=180,
    )
