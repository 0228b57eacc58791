# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node record on real fact snapshots: ascend_facts of a sandbox node built from installed
files (../conftest.py), npu_smi_facts of real npu-smi outputs, ascend_compat of the real matrix."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
    _node_record as node_record,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

NPU_SMI = Path(__file__).parents[1] / "fixtures" / "npu-smi"
SMI_910B3 = parse_info((NPU_SMI / "910b3-8card-23.0.7-with-processes.txt").read_text())
SMI_310P = parse_info((NPU_SMI / "310p3-2card-23.0.rc3-readme.txt").read_text())
COMPAT_OK = {
    "ok": True,
    "policy": "tolerant",
    "findings": [
        {
            "severity": "info",
            "message": "driver 23.0.7 and firmware 7.1.0.11.220 match",
        },
        {"severity": "warning", "message": "Debian 12 is not in Huawei's OS list"},
    ],
}


def fact(ascend_node, layout="full") -> dict:
    root, sysfs = ascend_node(layout)
    return ascend_facts.gather(root, sysfs, None)


def alarm(smi: dict, npu_index: int, health: str = "Alarm") -> dict:
    smi = copy.deepcopy(smi)
    smi["npus"][npu_index]["health"] = health
    smi["npus"][npu_index]["chips"][0]["health"] = health
    smi["healthy"] = False
    return smi


def k8s_node(name="atlas-01", allocatable=None) -> dict:
    return {
        "metadata": {"name": name},
        "status": {
            "allocatable": allocatable
            or {"cpu": "190", "huawei.com/Ascend910": "8", "memory": "1T"}
        },
    }


def build(ascend, **kw):
    params = {"host": "atlas-01", "ascend": ascend}
    params.update(kw)
    return node_record.build(params)


def test_a_healthy_node(ascend_node):
    record = build(fact(ascend_node), npu_smi=SMI_910B3, compat=COMPAT_OK)
    assert record["host"] == "atlas-01"
    assert record["npu"] == {
        "family": "910B",
        "model": "Atlas 800T A2 / Atlas 900 A2 PoD",
        "pci_count": 4,
        "npu_count": 8,
        "chip_count": 8,
        "chip_name": "910B3",
    }
    assert record["health"]["state"] == "ok"
    assert record["health"]["healthy"] is True
    assert record["health"]["unhealthy_chips"] == []
    assert record["versions"] == {
        "driver": "23.0.7",
        "firmware": "7.1.0.11.220",
        "cann": "8.5.0",
        "runtime": "7.3.0",
        "device_plugin": None,
    }
    assert record["driver_complete"] is True
    assert record["runtime_scene"] == "containerd"
    assert record["reboot"] == {"pending": False, "reasons": []}
    assert record["compat"]["problems"] == [
        {"severity": "warning", "message": "Debian 12 is not in Huawei's OS list"}
    ]
    assert len(record["chips"]) == 8
    hottest = max(c["temp_c"] for c in record["chips"])
    assert record["temperature"]["max_c"] == hottest
    assert record["hbm"]["total_mb"] == sum(c["hbm_total_mb"] for c in record["chips"])
    assert record["kubernetes"]["enabled"] is False
    assert record["summary"] == [
        "4 x 910B (Atlas 800T A2 / Atlas 900 A2 PoD), health OK, 8 chips seen by npu-smi",
        "driver 23.0.7 | firmware 7.1.0.11.220 | CANN 8.5.0 | Ascend Docker Runtime 7.3.0 (containerd)",
        "compatibility (tolerant): OK | reboot required: no",
        "Kubernetes layer: off (ascend_kubernetes)",
        "  ! Debian 12 is not in Huawei's OS list",
    ]


def test_unhealthy_chips_come_first_worst_first(ascend_node):
    smi = alarm(alarm(SMI_910B3, 5), 2, "Warning")
    record = build(fact(ascend_node), npu_smi=smi)
    assert [(c["npu"], c["health"]) for c in record["chips"][:3]] == [
        (5, "Alarm"),
        (2, "Warning"),
        (0, "OK"),
    ]
    assert record["health"]["state"] == "unhealthy"
    assert record["health"]["healthy"] is False
    assert record["health"]["worst"] == "Alarm"
    assert record["health"]["unhealthy_chips"] == [
        {"npu": 5, "chip": 0, "health": "Alarm"},
        {"npu": 2, "chip": 0, "health": "Warning"},
    ]
    assert record["health"]["unhealthy_npus"] == [2, 5]
    assert record["summary"][0].endswith(
        "health NOT OK: NPU 2, NPU 5, 8 chips seen by npu-smi"
    )
    assert record["summary"][2] == "compatibility: not checked | reboot required: no"


def test_an_unknown_health_is_worse_than_critical():
    assert node_record.health_rank("Critical") < node_record.health_rank("Broken")
    assert node_record.health_rank(None) == node_record.health_rank("Broken")


def test_a_310p_node_without_hbm(ascend_node):
    record = build(fact(ascend_node), npu_smi=SMI_310P)
    assert record["hbm"] is None
    assert record["npu"]["chip_name"].startswith("310P")


def test_npu_smi_failed(ascend_node):
    error = (
        "npu-smi info failed: dcmi module initialize failed. ret is -8005 " + "x" * 300
    )
    record = build(fact(ascend_node), npu_smi={}, npu_smi_error=error)
    assert record["health"]["state"] == "npu_smi_failed"
    assert record["health"]["healthy"] is None
    assert record["chips"] == []
    assert record["temperature"]["max_c"] is None
    assert record["summary"][0].startswith(
        "4 x 910B (Atlas 800T A2 / Atlas 900 A2 PoD), npu-smi failed: npu-smi info failed: dcmi"
    )
    assert record["summary"][0].endswith("...")
    assert len(record["summary"][0]) < 200


def test_a_bare_node(ascend_node):
    record = build(fact(ascend_node, "empty"))
    assert record["health"]["state"] == "no_npu"
    assert record["versions"]["driver"] is None
    assert record["driver_complete"] is None
    assert record["summary"][:2] == [
        "no Ascend NPU on the PCI bus, no npu-smi (driver not installed)",
        "driver - | firmware - | CANN - | Ascend Docker Runtime -",
    ]


def test_an_incomplete_driver(ascend_node):
    record = build(fact(ascend_node, "incomplete-driver"))
    assert record["health"]["state"] == "no_npu_smi"
    assert record["summary"][1].startswith("driver 23.0.7 (INCOMPLETE) | firmware -")


def test_the_reboot_reasons_come_from_ascend_facts(ascend_node):
    ascend = fact(ascend_node)
    ascend["reboot"] = {
        "pending": True,
        "reasons": ["npu_driver: firmware 7.8.0.5.216 flashed", "npu_driver: driver"],
        "marker": "/run/cubestudio-ascend/reboot-required",
    }
    record = build(ascend, compat=COMPAT_OK)
    assert record["reboot"]["pending"] is True
    assert record["summary"][2] == (
        "compatibility (tolerant): OK | reboot required: YES "
        "(npu_driver: firmware 7.8.0.5.216 flashed; npu_driver: driver)"
    )


def test_kubernetes_allocatable_against_the_healthy_chips(ascend_node):
    pods = [
        {
            "spec": {
                "containers": [{"image": "registry:5000/ascend-k8sdeviceplugin:v7.3.0"}]
            }
        }
    ]
    ascend = fact(ascend_node)
    record = build(
        ascend,
        npu_smi=alarm(SMI_910B3, 1),
        kubernetes=True,
        k8s_node=k8s_node(),
        device_plugin_pods=pods,
        smoke_npu_count=1,
        metrics_url="http://npu-exporter.npu-exporter.svc:8082/metrics",
    )
    k8s = record["kubernetes"]
    assert k8s["registered"] is True
    assert k8s["allocatable"] == {"huawei.com/Ascend910": 8}
    assert k8s["allocatable_npus"] == 8
    assert k8s["healthy_chips"] == 7
    assert k8s["allocatable_matches"] is False
    assert record["versions"]["device_plugin"] == "7.3.0"
    assert record["summary"][3] == (
        "Kubernetes: node atlas-01, allocatable huawei.com/Ascend910: 8 | smoke pod: saw 1 NPU"
        " | metrics: http://npu-exporter.npu-exporter.svc:8082/metrics"
    )
    # The URL is the caller's (the lookup ascend_settings): without one the line names none.
    record = build(
        ascend,
        npu_smi=alarm(SMI_910B3, 1),
        kubernetes=True,
        k8s_node=k8s_node(),
    )
    assert record["kubernetes"]["metrics_url"] is None
    assert record["summary"][3].endswith("| smoke pod: not run")


def test_the_layers_say_what_they_did(ascend_node):
    lines = [
        "npu_driver: skipped as unchanged (node and settings as its last complete run left them)",
        "device_plugin: skipped as unchanged (objects, image, chips and settings as verified)",
        "",
        "exporter: applied and verified (no record of a verified run on the node)",
    ]
    ascend = fact(ascend_node)
    record = build(
        ascend,
        npu_smi=SMI_910B3,
        kubernetes=True,
        k8s_node=k8s_node(),
        layer_results=lines,
    )
    assert record["layers"] == [lines[0], lines[1], lines[3]]
    assert record["summary"][4:7] == ["  " + lines[0], "  " + lines[1], "  " + lines[3]]
    assert build(ascend, npu_smi=SMI_910B3)["layers"] == []
    # The node layers' lines print without the Kubernetes layer too.
    off = build(ascend, npu_smi=SMI_910B3, layer_results=lines[:1])
    assert off["summary"][3:] == [
        "Kubernetes layer: off (ascend_kubernetes)",
        "  " + lines[0],
    ]


def test_the_node_and_its_pods_from_one_read_of_the_cluster(ascend_node):
    # What ascend_k8s_read returns for the play: nodes and pods by node name, trimmed.
    cluster = {
        "changed": False,
        "nodes": {"atlas-01": k8s_node(), "atlas-02": None},
        "pods": {
            "atlas-01": [
                {
                    "kind": "Pod",
                    "metadata": {"name": "ascend-device-plugin-daemonset-x"},
                    "status": {"phase": "Running"},
                    "spec": {
                        "nodeName": "atlas-01",
                        "images": ["registry:5000/ascend-k8sdeviceplugin:v26.0.0"],
                    },
                }
            ],
            "atlas-02": [],
        },
        "objects": {},
        "crds": {},
    }
    ascend = fact(ascend_node)

    def record_of(node_name):
        return build(
            ascend,
            npu_smi=SMI_910B3,
            kubernetes=True,
            cluster=cluster,
            node_name=node_name,
        )

    record = record_of("atlas-01")
    assert record["kubernetes"]["registered"] is True
    assert record["kubernetes"]["allocatable_npus"] == 8
    assert record["versions"]["device_plugin"] == "26.0.0"
    other = record_of("atlas-02")
    assert other["kubernetes"]["registered"] is False
    assert other["summary"][3] == (
        "Kubernetes: node atlas-02 is not registered with the cluster"
    )
    # The read failed (failed_when: false): its message is the node's error.
    failed = {"failed": True, "msg": "Failed to load kubeconfig: no such file"}
    record = build(
        ascend, npu_smi=SMI_910B3, kubernetes=True, cluster=failed, node_name="atlas-01"
    )
    assert record["summary"][3] == "Kubernetes: Failed to load kubeconfig: no such file"
    # Kubernetes off: the read is not looked at.
    assert build(ascend, cluster="garbage")["kubernetes"]["registered"] is None
    with pytest.raises(node_record.RecordError, match="registered result"):
        build(ascend, kubernetes=True, cluster="garbage", node_name="atlas-01")
    with pytest.raises(node_record.RecordError, match="node_name is required"):
        build(ascend, kubernetes=True, cluster=cluster)


def test_kubernetes_node_not_registered(ascend_node):
    ascend = fact(ascend_node)
    record = build(
        ascend,
        npu_smi=SMI_910B3,
        kubernetes=True,
        k8s_error='nodes "atlas-01" not found',
    )
    assert record["kubernetes"]["registered"] is False
    assert record["kubernetes"]["allocatable_npus"] is None
    assert record["summary"][3] == 'Kubernetes: nodes "atlas-01" not found'
    record = build(ascend, npu_smi=SMI_910B3, kubernetes=True)
    assert record["summary"][3] == "Kubernetes: node not registered"


def test_a_node_without_a_plugin_resource(ascend_node):
    record = build(
        fact(ascend_node),
        npu_smi=SMI_910B3,
        kubernetes=True,
        k8s_node=k8s_node(allocatable={"cpu": "4"}),
    )
    assert record["kubernetes"]["allocatable_npus"] == 0
    assert (
        "allocatable no huawei.com resource | smoke pod: not run"
        in record["summary"][3]
    )


@pytest.mark.parametrize(
    ("image", "version"),
    [
        ("ascend-k8sdeviceplugin:v7.3.0", "7.3.0"),
        ("registry.local:5000/mindx/ascend-k8sdeviceplugin:v26.0.0", "26.0.0"),
        ("ascend-k8sdeviceplugin:latest", "latest"),
        ("registry.local:5000/ascend-k8sdeviceplugin", None),
        ("ascend-k8sdeviceplugin:v7.3.0@sha256:abc", "7.3.0"),
        ("", None),
        (None, None),
    ],
)
def test_image_version(image, version):
    assert node_record.image_version(image) == version


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"host": "", "ascend": {}}, "host must be the inventory host name"),
        (
            {"host": "a", "ascend": {"npu_family": "910B"}},
            "ascend is not the fact of cubestudio.ascend.ascend_facts",
        ),
        ({"host": "a", "ascend": "910B"}, "ascend must be a dict, got str"),
    ],
)
def test_bad_input_is_a_clear_error(params, message):
    with pytest.raises(node_record.RecordError, match=message):
        node_record.build(params)


def test_compat_not_ok_when_the_policy_refuses(ascend_node):
    """The record says what preflight and npu_driver refuse on: under strict a firmware build
    never seen with the driver's release is NOT OK although it is a warning (issue 23)."""
    unseen = {
        "severity": "warning",
        "rule": "driver.firmware.matrix",
        "message": "firmware 7.5.0.9.999 is not a build seen with HDK 24.1.RC3 (7.5.0.1.129)",
    }
    ascend = fact(ascend_node)
    strict = {"ok": True, "policy": "strict", "findings": [unseen], "refused": [unseen]}
    record = build(ascend, npu_smi=SMI_910B3, compat=strict)
    assert record["compat"]["ok"] is False
    tolerant = dict(strict, policy="tolerant", refused=[])
    assert build(ascend, compat=tolerant)["compat"]["ok"] is True


def test_bad_npu_smi_is_a_clear_error(ascend_node):
    ascend = fact(ascend_node)
    with pytest.raises(node_record.RecordError, match=r"npu_smi\.npus must be a list"):
        build(ascend, npu_smi={"npus": ["0"]})
    with pytest.raises(
        node_record.RecordError, match=r"compat\.findings must be a list"
    ):
        build(ascend, compat={"ok": True, "findings": "none"})


def test_the_chip_map_is_recorded_and_compared(ascend_node):
    from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
        _chip_map,
    )

    ascend = fact(ascend_node)
    first = build(ascend, npu_smi=SMI_910B3)
    chip_map = first["chip_map"]
    assert chip_map["recorded"] is False and chip_map["moved"] == []
    assert len(chip_map["chips"]) == 8
    assert _chip_map.load(chip_map["record_text"])["chips"] == chip_map["chips"]
    assert not any("T47" in line for line in first["summary"])
    # after a boot NPUs 0 and 1 trade numbers: each card keeps its bus id
    smi = copy.deepcopy(SMI_910B3)
    one, two = smi["npus"][0]["chips"][0], smi["npus"][1]["chips"][0]
    one["bus_id"], two["bus_id"] = two["bus_id"], one["bus_id"]
    later = build(ascend, npu_smi=smi, chip_map_record=chip_map["record_text"])
    assert later["chip_map"]["recorded"] is True
    assert [m["bus_id"] for m in later["chip_map"]["moved"]] == [
        "0000:c1:00.0",
        "0000:c2:00.0",
    ]
    assert later["summary"][-1] == (
        "  ! [T47] 2 chip(s) renumbered since the recorded chip map: "
        "0000:c1:00.0 davinci0 -> davinci1 (NPU 0 -> 1), 0000:c2:00.0 davinci1 -> davinci0 (NPU 1 -> 0)"
    )
    assert first["chip_map"]["record_changed"] is True
    # The same map on record: nothing to write again.
    same = build(ascend, npu_smi=SMI_910B3, chip_map_record=chip_map["record_text"])
    assert same["chip_map"]["record_changed"] is False
    assert later["chip_map"]["record_changed"] is True
    broken = build(ascend, npu_smi=SMI_910B3, chip_map_record="{oops")
    assert "not JSON" in broken["chip_map"]["error"]
    assert build(ascend)["chip_map"]["record_text"] is None
    assert build(ascend)["chip_map"]["record_changed"] is False
