# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Device numbering drift (T47) on real npu-smi outputs: the 8-card 910B3 table (Device column,
no Phy-ID), the A3 table (Phy-ID column, two dies per NPU) and a SoC board (bus id NA)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
    _Findings,
    check_chip_map,
    validate_rows,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
    _chip_map as chip_map,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)

HERE = Path(__file__).resolve().parents[1]
NPU_SMI = HERE / "fixtures" / "npu-smi"
COLLECTION = HERE.parents[3]
TABLE = validate_rows(
    yaml.safe_load((COLLECTION / "data" / "troubleshooting.yml").read_text())
)
SMI_910B3 = parse_info((NPU_SMI / "910b3-8card-23.0.7-with-processes.txt").read_text())
SMI_A3 = parse_info(
    (NPU_SMI / "a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt").read_text()
)
SMI_SOC = parse_info((NPU_SMI / "310b1-soc-23.0.rc3.txt").read_text())


def renumbered(smi: dict, first: int, second: int) -> dict:
    """What the simulator's renumber knob does after a boot: two cards swap their numbers (NPU id,
    Device, Phy-ID), each keeping its PCI bus id: as printed, their bus ids swap."""
    smi = copy.deepcopy(smi)
    a = smi["npus"][first]["chips"]
    b = smi["npus"][second]["chips"]
    for x, y in zip(a, b):
        x["bus_id"], y["bus_id"] = y["bus_id"], x["bus_id"]
    return smi


def test_the_910b3_map_has_every_chip_by_bus_id():
    now = chip_map.current(SMI_910B3)
    assert len(now) == 8
    assert [c["bus_id"] for c in now] == sorted(c["bus_id"] for c in now)
    assert all(c["bus_id"] == c["bus_id"].lower() for c in now)
    first = next(c for c in now if c["npu"] == 0)
    # no Phy-ID nor Device column on 910B: the davinci node is the NPU id of the one-chip card
    assert first == {
        "bus_id": "0000:c1:00.0",
        "npu": 0,
        "chip": 0,
        "phy_id": None,
        "logic_id": None,
        "davinci": 0,
    }
    assert sorted(c["davinci"] for c in now) == list(range(8))


def test_the_a3_map_takes_the_davinci_node_from_the_phy_id():
    now = chip_map.current(SMI_A3)
    assert len(now) == 16
    assert all(c["davinci"] == c["phy_id"] for c in now)
    assert {c["chip"] for c in now} == {0, 1}


def test_a_soc_board_has_no_bus_id_and_no_map():
    assert chip_map.current(SMI_SOC) == []
    assert chip_map.current({}) == []


def test_the_record_round_trips_and_is_stable():
    now = chip_map.current(SMI_910B3)
    text = chip_map.record(now)
    assert text == chip_map.record(chip_map.current(copy.deepcopy(SMI_910B3)))
    assert chip_map.load(text)["chips"] == now
    assert chip_map.load(None) is None
    assert chip_map.load("  \n") is None


def test_an_unchanged_node_has_nothing_moved():
    now = chip_map.current(SMI_910B3)
    diff = chip_map.compare(chip_map.load(chip_map.record(now)), now)
    assert diff == {"recorded": True, "moved": [], "missing": [], "added": []}
    assert chip_map.moved_text(diff) == ""


def test_two_swapped_cards_are_named_by_bus_id():
    recorded = chip_map.load(chip_map.record(chip_map.current(SMI_910B3)))
    now = chip_map.current(renumbered(SMI_910B3, 1, 5))
    diff = chip_map.compare(recorded, now)
    bus = {c["npu"]: c["bus_id"] for c in chip_map.current(SMI_910B3)}
    assert [m["bus_id"] for m in diff["moved"]] == sorted([bus[1], bus[5]])
    moved = {m["bus_id"]: m for m in diff["moved"]}
    assert moved[bus[1]]["was"]["davinci"] == 1
    assert moved[bus[1]]["now"]["davinci"] == 5
    assert moved[bus[1]]["fields"] == ["npu", "davinci"]
    text = chip_map.moved_text(diff)
    assert f"{bus[1]} davinci1 -> davinci5 (NPU 1 -> 5)" in text
    assert f"{bus[5]} davinci5 -> davinci1 (NPU 5 -> 1)" in text
    assert diff["missing"] == [] and diff["added"] == []


def test_a_swapped_a3_die_pair_shows_the_phy_id():
    recorded = chip_map.load(chip_map.record(chip_map.current(SMI_A3)))
    diff = chip_map.compare(recorded, chip_map.current(renumbered(SMI_A3, 0, 3)))
    assert len(diff["moved"]) == 4  # two NPUs of two dies each
    assert all(
        "phy_id" in m["fields"] and "davinci" in m["fields"] for m in diff["moved"]
    )
    assert "phy " in chip_map.moved_text(diff)


def test_a_card_that_did_not_come_up_is_missing_not_moved():
    recorded = chip_map.load(chip_map.record(chip_map.current(SMI_910B3)))
    smi = copy.deepcopy(SMI_910B3)
    gone = smi["npus"].pop(7)["chips"][0]["bus_id"].lower()
    diff = chip_map.compare(recorded, chip_map.current(smi))
    assert diff["moved"] == [] and diff["missing"] == [gone]


def test_no_record_no_comparison():
    diff = chip_map.compare(None, chip_map.current(SMI_910B3))
    assert diff == {"recorded": False, "moved": [], "missing": [], "added": []}


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        json.dumps({"schema": 2, "chips": []}),
        json.dumps({"schema": 1, "chips": [{"npu": 0}]}),
    ],
)
def test_a_file_that_is_not_a_chip_map_is_refused(text):
    with pytest.raises(chip_map.ChipMapError, match="chip map record"):
        chip_map.load(text)


def test_bad_npu_smi_input_is_refused():
    with pytest.raises(chip_map.ChipMapError):
        chip_map.current({"npus": ["0"]})


def test_numbers_are_read_as_int_or_none():
    """The ids go through _values.int_or_none: a fact whose numbers came back as text (a JSON
    fact cache written by hand, a template) gives the same map; a value that is no whole
    number (NA, a bool) is no id."""
    as_text = copy.deepcopy(SMI_A3)
    for npu in as_text["npus"]:
        npu["id"] = str(npu["id"])
        for chip in npu["chips"]:
            chip["chip"] = str(chip["chip"])
            chip["phy_id"] = str(chip["phy_id"])
    assert chip_map.current(as_text) == chip_map.current(SMI_A3)
    odd = copy.deepcopy(SMI_A3)
    odd["npus"][0]["chips"][0]["phy_id"] = "NA"
    odd["npus"][0]["chips"][1]["phy_id"] = True
    chips = {c["bus_id"]: c for c in chip_map.current(odd)}
    for chip in odd["npus"][0]["chips"][:2]:
        assert chips[chip["bus_id"].lower()]["phy_id"] is None


def test_the_doctor_names_the_moved_chips_in_a_t47_finding():
    record = chip_map.record(chip_map.current(SMI_910B3))
    out = _Findings(TABLE, [])
    check_chip_map(out, renumbered(SMI_910B3, 2, 3), record)
    assert [f["row"] for f in out.items] == ["T47"]
    finding = out.items[0]
    assert finding["severity"] == "warning"
    assert finding["symptom"].startswith("2 chip(s) renumbered")
    assert "davinci2 -> davinci3" in finding["symptom"]
    assert set(finding) == {"row", "symptom", "cause", "fix", "severity"}
    out = _Findings(TABLE, [])
    check_chip_map(out, SMI_910B3, record)
    check_chip_map(out, SMI_910B3, None)
    check_chip_map(out, {}, record)
    assert out.items == []
    out = _Findings(TABLE, [])
    check_chip_map(out, SMI_910B3, "{broken")
    assert out.items[0]["row"] == "T47" and "cannot be read" in out.items[0]["symptom"]
