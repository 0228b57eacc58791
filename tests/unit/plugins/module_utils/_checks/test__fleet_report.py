# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report: drift across the fleet, unhealthy first, totals, bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks import (
    _fleet_report as fleet_report,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
    _node_record as node_record,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

NPU_SMI = Path(__file__).parents[1] / "fixtures" / "npu-smi"
SMI_910B3 = parse_info((NPU_SMI / "910b3-8card-23.0.7-with-processes.txt").read_text())


@pytest.fixture
def records(ascend_node):
    """Three nodes: a, b healthy on one set; c with NPU 6 in Alarm, another driver, no CANN."""
    root, sysfs = ascend_node("full")
    ascend = ascend_facts.gather(root, sysfs, None)
    out = []
    for host in ("node-a", "node-b", "node-c"):
        facts = copy.deepcopy(ascend)
        smi = copy.deepcopy(SMI_910B3)
        if host == "node-c":
            facts["driver"]["version"] = "24.1.0"
            facts["cann"] = None
            facts["reboot"] = {"pending": True, "reasons": ["npu_driver: firmware"]}
            smi["npus"][6]["health"] = smi["npus"][6]["chips"][0]["health"] = "Alarm"
            smi["healthy"] = False
        out.append(
            node_record.build(
                {
                    "host": host,
                    "ascend": facts,
                    "npu_smi": smi,
                    "compat": {
                        "ok": host != "node-c",
                        "policy": "strict",
                        "findings": [],
                    },
                }
            )
        )
    return out


def test_drift_names_the_versions_that_differ(records):
    report = fleet_report.build({"records": records, "generated_at": "now"})
    assert report["schema"] == 1
    assert report["generated_at"] == "now"
    assert list(report["drift"]) == ["driver", "cann"]
    assert report["drift"]["driver"] == {
        "label": "driver",
        "majority": "23.0.7",
        "values": [
            {"value": "23.0.7", "hosts": ["node-a", "node-b"]},
            {"value": "24.1.0", "hosts": ["node-c"]},
        ],
    }
    assert report["drift"]["cann"]["majority"] == "8.5.0"
    assert report["totals"]["drifting"] == ["driver", "cann"]


def test_the_unhealthy_node_and_chip_come_first(records):
    report = fleet_report.build({"records": records})
    assert [n["host"] for n in report["nodes"]] == ["node-c", "node-a", "node-b"]
    first = report["nodes"][0]
    assert first["chips"][0]["npu"] == 6 and first["chips"][0]["health"] == "Alarm"
    assert report["unhealthy_chips"] == [dict(first["chips"][0], host="node-c")]
    row = first["row"]
    assert row["drift"] == ["driver", "cann"]
    cells = {v["key"]: v for v in row["versions"]}
    assert cells["driver"] == {
        "key": "driver",
        "label": "driver",
        "value": "24.1.0",
        "drift": True,
        "odd": True,
    }
    assert cells["firmware"]["drift"] is False
    assert report["nodes"][1]["row"]["drift"] == []
    assert {v["key"]: v["drift"] for v in report["nodes"][1]["row"]["versions"]}[
        "driver"
    ]
    assert row["npus"] == "8 x 910B (910B3)"
    assert row["compat"] == "NOT OK (strict)"
    assert row["allocatable"] == "- / 8"


def test_totals(records):
    totals = fleet_report.build({"records": records})["totals"]
    assert totals == {
        "nodes": 3,
        "unreached": 0,
        "chips": 24,
        "unhealthy_chips": 1,
        "unhealthy_nodes": 1,
        "reboot_pending": 1,
        "compat_not_ok": 1,
        "drifting": ["driver", "cann"],
        "renumbered_nodes": 0,
        "refused_images": 0,
    }


def test_a_uniform_fleet_has_no_drift(records):
    report = fleet_report.build({"records": records[:2]})
    assert report["drift"] == {}
    assert all(not v["drift"] for n in report["nodes"] for v in n["row"]["versions"])


def test_a_tie_takes_the_highest_version_as_reference(records):
    report = fleet_report.build({"records": [records[0], records[2]]})
    assert report["drift"]["driver"]["majority"] == "24.1.0"
    assert [v["value"] for v in report["drift"]["driver"]["values"]] == [
        "24.1.0",
        "23.0.7",
    ]
    assert report["drift"]["cann"]["majority"] == "8.5.0"
    records[0]["versions"]["driver"] = "9.0.0"
    records[2]["versions"]["driver"] = "10.0.0"
    report = fleet_report.build({"records": [records[0], records[2]]})
    assert report["drift"]["driver"]["majority"] == "10.0.0"


def test_allocatable_text(records):
    records[0]["kubernetes"].update(
        enabled=True, registered=True, allocatable_npus=7, allocatable_matches=False
    )
    records[1]["kubernetes"].update(enabled=True, registered=False)
    report = fleet_report.build({"records": records})
    rows = {n["host"]: n["row"] for n in report["nodes"]}
    assert rows["node-a"]["allocatable"] == "7 / 8"
    assert rows["node-a"]["allocatable_ok"] is False
    assert rows["node-b"]["allocatable"] == "not registered / 8"


def test_the_report_is_json(records):
    report = fleet_report.build({"records": records})
    assert json.loads(json.dumps(report)) == report


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([], "records must be a non-empty list"),
        ([{"host": "a"}], r"records\[0\] is not a node record .* \(no npu, health"),
        (["a"], r"records\[0\] is not a node record"),
    ],
)
def test_bad_input_is_a_clear_error(records, message):
    with pytest.raises(fleet_report.ReportError, match=message):
        fleet_report.build({"records": records})


def test_two_records_of_one_host(records):
    with pytest.raises(
        fleet_report.ReportError, match="the host node-a has two records"
    ):
        fleet_report.build({"records": [records[0], records[0]]})


def test_unreached_hosts_are_listed(records):
    report = fleet_report.build(
        {"records": records, "unreached": ["node-z", "node-a", "node-y"]}
    )
    assert report["unreached"] == ["node-y", "node-z"]
    assert report["totals"]["unreached"] == 2
    assert len(report["chips"]) == 24
    assert report["chips"][0]["host"] == "node-c"
    assert report["chips"][0]["health"] == "Alarm"
    assert [c["host"] for c in report["chips"][1:9]] == ["node-c"] * 7 + ["node-a"]


def test_renumbered_chips_are_named_per_node(records):
    moved = copy.deepcopy(records)
    moved[1]["chip_map"]["moved"] = [{"bus_id": "0000:c1:00.0"}]
    moved[1]["chip_map"]["moved_text"] = (
        "0000:c1:00.0 davinci0 -> davinci1 (NPU 0 -> 1)"
    )
    report = fleet_report.build({"records": moved})
    assert report["totals"]["renumbered_nodes"] == 1
    rows = {n["host"]: n["row"]["moved_chips"] for n in report["nodes"]}
    assert rows == {
        "node-a": "",
        "node-b": "0000:c1:00.0 davinci0 -> davinci1 (NPU 0 -> 1)",
        "node-c": "",
    }


MATRIX_FILE = Path(__file__).resolve().parents[5] / "data" / "version_matrix.yml"


def test_the_cann_of_the_images_on_each_node_and_the_refused_ones(ascend_node):
    """Per node the CANN versions of the images holding its NPUs (npu_container_facts through the
    node record), held against the node's driver by the matrix: refused under strict, not under
    tolerant; a versionless image is listed as unknown."""
    import yaml

    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
        validate_matrix,
    )

    matrix = validate_matrix(yaml.safe_load(MATRIX_FILE.read_text()))
    root, sysfs = ascend_node("full")
    facts = ascend_facts.gather(root, sysfs, None)
    facts["driver"]["version"] = "25.5.0"

    def container(name, image, **kw):
        item = {
            "engine": "containerd",
            "name": name,
            "pod": "default/" + name,
            "image": image,
            "devices": ["/dev/davinci0"],
            "all_devices": False,
            "visible_devices": "0",
            "env": {},
            "labels": {},
        }
        item.update(kw)
        return item

    containers = [
        container("old", "quay.io/ascend/cann:8.0.0-910b-ubuntu22.04-py3.10"),
        container("new", "registry.example.com/train:cann8.5.0-drv25.5.0-ascend"),
        container("plain", "docker.io/cubestudio/workload:latest"),
        container(
            "labelled",
            "registry.example.com/train:42",
            labels={"cubestudio.ascend/cann-version": "8.5.0"},
        ),
        container("plugin", "ascend-k8sdeviceplugin:v7.3.0", all_devices=True),
    ]
    records = []
    for host, policy in (("strict-node", "strict"), ("tolerant-node", "tolerant")):
        records.append(
            node_record.build(
                {
                    "host": host,
                    "ascend": facts,
                    "compat": {"ok": True, "policy": policy, "findings": []},
                    "containers": containers,
                }
            )
        )
    first = records[0]["images"]
    assert [(i["where"], i["cann"], i["source"]) for i in first] == [
        ("pod default/old container old", "8.0.0", "huawei"),
        ("pod default/new container new", "8.5.0", "field-guide"),
        ("pod default/plain container plain", None, None),
        ("pod default/labelled container labelled", "8.5.0", "label"),
    ]
    report = fleet_report.build({"records": records}, matrix)
    by_host = {n["host"]: n["row"]["images"] for n in report["nodes"]}
    strict = by_host["strict-node"]
    assert [(i["verdict"], i["refused"]) for i in strict] == [
        ("mismatch", True),
        ("ok", False),
        ("unknown", False),
        ("ok", False),
    ]
    assert (
        "CANN 8.0.0 of the image is not the matched set of driver 25.5.0"
        in strict[0]["message"]
    )
    assert strict[2]["message"].startswith("version unknown: the tag 'latest'")
    assert [i["refused"] for i in by_host["tolerant-node"]] == [False] * 4
    assert report["totals"]["refused_images"] == 1
    # Without the matrix: listed, not judged.
    unjudged = fleet_report.build({"records": records})["nodes"][0]["row"]["images"]
    assert {i["verdict"] for i in unjudged} == {"unchecked"}
