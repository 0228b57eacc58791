# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Device numbering drift (troubleshooting row T47): the map of each chip's PCI bus id
# (the physical card, fixed by the slot) to its NPU id, physical id, logic id and /dev/davinci<N>
# node, as npu_smi_facts reads it; the summary at the end of a converge records it on the node
# (JSON, tasks/node_record.yml), the doctor and the fleet report compare the current map with
# the record and name the chips that moved. Pure: no I/O.
#
# The ids, from npu-smi's table (``npu-smi info -m`` is not read): the logic id is the Device
# column where the layout has one (310P, A3), else null. The davinci node N of /dev/davinci<N>
# (the device plugin mounts /dev/davinci<phy id>): the Phy-ID column where npu-smi prints one
# (A3); else the Device column; else, for an NPU with one chip (910B, 910A), the NPU id, which
# is the chip's phy id there. ASSUMPTION (not a Huawei statement): the Device column and the
# NPU id of a one-chip card name the same number as /dev/davinci<N> on a node without vNPUs.

from __future__ import annotations

import json

from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)

__all__ = [
    "SCHEMA",
    "ChipMapError",
    "compare",
    "current",
    "load",
    "moved_text",
    "record",
]

SCHEMA = 1
_FIELDS = ("npu", "phy_id", "logic_id", "davinci")


class ChipMapError(ValueError):
    """Input that is neither npu_smi_facts' result nor a recorded chip map."""


def current(npu_smi) -> list:
    """``[{bus_id, npu, chip, phy_id, logic_id, davinci}]`` from ansible_facts.ascend_npu_smi,
    sorted by bus id; chips without a PCI bus id (SoC boards print NA) are left out: a chip
    is known by its bus id, the one number a reboot does not change."""
    if not npu_smi:
        return []
    if not isinstance(npu_smi, dict) or not isinstance(npu_smi.get("npus", []), list):
        raise ChipMapError("npu_smi must be the fact ascend_npu_smi of npu_smi_facts")
    chips = []
    for npu in npu_smi.get("npus") or []:
        if not isinstance(npu, dict):
            raise ChipMapError("npu_smi.npus must be a list of dicts (npu_smi_facts)")
        own = npu.get("chips") or []
        for chip in own:
            if not isinstance(chip, dict):
                raise ChipMapError("npu_smi.npus[].chips must be a list of dicts")
            bus = chip.get("bus_id")
            if not isinstance(bus, str) or not bus.strip():
                continue
            phy = int_or_none(chip.get("phy_id"))
            logic = int_or_none(chip.get("device"))
            davinci = phy if phy is not None else logic
            if davinci is None and len(own) == 1:
                davinci = int_or_none(npu.get("id"))
            chips.append(
                {
                    "bus_id": bus.strip().lower(),
                    "npu": int_or_none(npu.get("id")),
                    "chip": int_or_none(chip.get("chip")),
                    "phy_id": phy,
                    "logic_id": logic,
                    "davinci": davinci,
                }
            )
    chips.sort(key=lambda c: c["bus_id"])
    return chips


def load(text) -> dict | None:
    """The recorded map from the file's text (``{schema, chips}``); None for no file or an
    empty one; ChipMapError for a file that is not a chip map."""
    if text is None or not str(text).strip():
        return None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ChipMapError(f"the chip map record is not JSON: {error}") from None
    if (
        not isinstance(data, dict)
        or data.get("schema") != SCHEMA
        or not isinstance(data.get("chips"), list)
        or not all(isinstance(c, dict) and c.get("bus_id") for c in data["chips"])
    ):
        raise ChipMapError(
            f"the chip map record is not a map of schema {SCHEMA} ({{schema, chips: [{{bus_id, ...}}]}})"
        )
    return data


def compare(recorded, now: list) -> dict:
    """What changed between the record and ``now`` (current()): ``moved`` (same bus id, another
    NPU id, phy id, logic id or davinci node: ``{bus_id, was, now, fields}``), ``missing`` (bus ids
    recorded and not seen now), ``added`` (seen now, not recorded). An empty result without a
    record."""
    result = {"recorded": recorded is not None, "moved": [], "missing": [], "added": []}
    if recorded is None:
        return result
    before = {str(c["bus_id"]).lower(): c for c in recorded.get("chips") or []}
    after = {c["bus_id"]: c for c in now}
    for bus, chip in sorted(after.items()):
        old = before.get(bus)
        if old is None:
            if before:
                result["added"].append(bus)
            continue
        fields = [f for f in _FIELDS if old.get(f) != chip.get(f)]
        if fields:
            result["moved"].append(
                {
                    "bus_id": bus,
                    "was": {f: old.get(f) for f in _FIELDS},
                    "now": {f: chip.get(f) for f in _FIELDS},
                    "fields": fields,
                }
            )
    if now:
        result["missing"] = sorted(set(before) - set(after))
    return result


def _node(value) -> str:
    return "-" if value is None else f"davinci{value}"


def moved_text(diff: dict, limit: int = 8) -> str:
    """``0000:c1:00.0 davinci0 -> davinci1 (logic 0 -> 1), ...``; empty when nothing moved."""
    parts = []
    for move in diff.get("moved") or []:
        was, now = move["was"], move["now"]
        text = f"{move['bus_id']} {_node(was['davinci'])} -> {_node(now['davinci'])}"
        extra = [
            f"{label} {was[key]} -> {now[key]}"
            for key, label in (("npu", "NPU"), ("logic_id", "logic"), ("phy_id", "phy"))
            if key in move["fields"]
        ]
        parts.append(text + (f" ({', '.join(extra)})" if extra else ""))
    more = len(parts) - limit
    return ", ".join(parts[:limit]) + (f" and {more} more" if more > 0 else "")


def record(now: list) -> str:
    """The text of the record file for the map ``now`` (stable: a second run writes the same)."""
    return json.dumps({"schema": SCHEMA, "chips": now}, indent=2, sort_keys=True) + "\n"
