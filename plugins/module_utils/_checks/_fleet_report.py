# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The fleet report of playbooks/report.yml, from the node records of
# module_utils._node._node_record: which versions differ across the fleet (drift), nodes and chips
# ordered unhealthy first, the totals. Pure: no I/O. The templates only format what this returns;
# the JSON file is this structure (documented in plugins/modules/ascend_fleet_report.py).

from __future__ import annotations

from collections import Counter

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    judge,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_record import (
    HEALTH_ORDER,
    health_rank,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    is_version,
    sort_key,
)

__all__ = ["ARGUMENT_SPEC", "SCHEMA", "VERSION_KEYS", "ReportError", "build"]

SCHEMA = 1
ARGUMENT_SPEC = {
    "records": {"type": "list", "elements": "dict", "required": True},
    "unreached": {"type": "list", "elements": "str", "default": []},
    "generated_at": {"type": "str", "default": ""},
    "title": {"type": "str", "default": "Ascend fleet report"},
    "matrix_file": {"type": "path"},
}
# (key of the record's versions, label)
VERSION_KEYS = (
    ("driver", "driver"),
    ("firmware", "firmware"),
    ("cann", "CANN"),
    ("runtime", "Docker runtime"),
    ("device_plugin", "device plugin"),
)
# Nodes: those that cannot say their health, then the unhealthy ones, before the healthy.
_STATE_ORDER = {
    "npu_smi_failed": 0,
    "unhealthy": 1,
    "no_npu_smi": 2,
    "no_npu": 3,
    "ok": 4,
}
_NEEDED = ("host", "npu", "health", "chips", "versions", "reboot", "kubernetes")


class ReportError(ValueError):
    """Records that are not node records."""


def _newest_key(value) -> tuple:
    """Absent < not a version < versions in Huawei's order (module_utils._version)."""
    if value is None:
        return (0, ())
    if is_version(value):
        return (2, sort_key(value))
    return (1, (str(value),))


def _drift(records: list) -> dict:
    drift = {}
    for key, label in VERSION_KEYS:
        values = {r["host"]: r["versions"].get(key) for r in records}
        if len(set(values.values())) < 2:
            continue
        counts = Counter(values.values())
        # The most common value; on a tie, the newest version is the reference.
        ranked = sorted(counts, key=lambda v: (counts[v], _newest_key(v)))
        majority = ranked[-1]
        drift[key] = {
            "label": label,
            "majority": majority,
            "values": [
                {
                    "value": value,
                    "hosts": sorted(h for h, v in values.items() if v == value),
                }
                for value in sorted(
                    counts,
                    key=lambda v: (v != majority, -counts[v], _newest_key(v)),
                )
            ],
        }
    return drift


def _node_key(record: dict) -> tuple:
    health = record["health"]
    worst = max((health_rank(c.get("health")) for c in record["chips"]), default=0)
    return (
        _STATE_ORDER.get(health.get("state"), 0),
        -worst,
        -len(health.get("unhealthy_chips") or []),
        record["host"],
    )


def _allocatable_text(record: dict) -> str:
    k8s = record["kubernetes"]
    chips = record["npu"].get("chip_count")
    chips_text = "-" if chips is None else str(chips)
    if not k8s.get("enabled"):
        return f"- / {chips_text}"
    if not k8s.get("registered"):
        return f"not registered / {chips_text}"
    return f"{k8s.get('allocatable_npus')} / {chips_text}"


def _images(record: dict, matrix) -> list:
    """The images of the containers holding the node's NPUs (the record's ``images``), each held
    against the node's driver by the matrix under the node's policy (module_utils/_checks/_images.py):
    ``{where, image, cann, driver, source, verdict, refused, message}``."""
    versions = record["versions"]
    node = {"driver": versions.get("driver"), "firmware": versions.get("firmware")}
    policy = (record.get("compat") or {}).get("policy") or "strict"
    rows = []
    for image in record.get("images") or []:
        if not isinstance(image, dict):
            raise ReportError(
                f"the images of {record['host']} are not those of a node record"
            )
        if matrix is None:
            verdict = {"verdict": "unchecked", "refused": False, "message": ""}
        else:
            verdict = judge(image, node, matrix, None, policy)
        rows.append(
            {
                "where": image.get("where"),
                "image": image.get("image"),
                "cann": image.get("cann"),
                "driver": image.get("driver"),
                "source": image.get("source"),
                "verdict": verdict["verdict"],
                "refused": bool(verdict["refused"]),
                "message": verdict["message"]
                or ("version unknown: " + str(image.get("reason") or "")),
            }
        )
    return rows


def _row(record: dict, drift: dict, matrix=None) -> dict:
    versions = []
    for key, label in VERSION_KEYS:
        value = record["versions"].get(key)
        info = drift.get(key)
        versions.append(
            {
                "key": key,
                "label": label,
                "value": value,
                "drift": info is not None,
                "odd": info is not None and value != info["majority"],
            }
        )
    compat = record.get("compat")
    k8s = record["kubernetes"]
    npu = record["npu"]
    # npu-smi's NPU count where it answered (an A3 NPU is two PCI functions), else the PCI count.
    count = (
        npu.get("npu_count")
        if npu.get("npu_count") is not None
        else npu.get("pci_count")
    )
    return {
        "host": record["host"],
        "npus": f"{count or 0} x {npu.get('family') or '-'}"
        + (f" ({npu['chip_name']})" if npu.get("chip_name") else ""),
        "versions": versions,
        "drift": [v["key"] for v in versions if v["odd"]],
        "allocatable": _allocatable_text(record),
        "allocatable_ok": k8s.get("allocatable_matches"),
        "compat": (
            "not checked"
            if not compat
            else ("OK" if compat.get("ok") else "NOT OK") + f" ({compat.get('policy')})"
        ),
        "compat_ok": None if not compat else bool(compat.get("ok")),
        # T47: chips renumbered since the chip map recorded at the end of the last converge.
        "moved_chips": (record.get("chip_map") or {}).get("moved_text") or "",
        # The CANN of the images holding the node's NPUs; `refused` where the matrix refuses it.
        "images": _images(record, matrix),
    }


def build(params: dict, matrix=None) -> dict:
    """The fleet report of ``params['records']``; ReportError on anything not a node record.
    ``matrix``: data/version_matrix.yml (validated) to judge the images running on the nodes;
    None leaves them unchecked."""
    records = params.get("records")
    if not isinstance(records, list) or not records:
        raise ReportError(
            "records must be a non-empty list of node records (cubestudio.ascend.ascend_node_record)"
        )
    hosts = set()
    for index, record in enumerate(records):
        missing = (
            [key for key in _NEEDED if key not in record]
            if isinstance(record, dict)
            else list(_NEEDED)
        )
        if missing:
            raise ReportError(
                f"records[{index}] is not a node record of cubestudio.ascend.ascend_node_record"
                f" (no {', '.join(missing)})"
            )
        if record["host"] in hosts:
            raise ReportError(f"the host {record['host']} has two records")
        hosts.add(record["host"])
    drift = _drift(records)
    ordered = sorted(records, key=_node_key)
    nodes = [dict(r, row=_row(r, drift, matrix)) for r in ordered]
    chips = [
        dict(chip, host=record["host"])
        for record in ordered
        for chip in record["chips"]
    ]
    chips.sort(key=lambda c: -health_rank(c.get("health")))  # stable: node order kept
    unhealthy = [c for c in chips if c.get("health") != "OK"]
    unreached = sorted(set(params.get("unreached") or []) - hosts)
    return {
        "schema": SCHEMA,
        "title": params.get("title") or "Ascend fleet report",
        "generated_at": params.get("generated_at") or "",
        "health_order": list(HEALTH_ORDER),
        "totals": {
            "nodes": len(records),
            "unreached": len(unreached),
            "chips": sum(len(r["chips"]) for r in records),
            "unhealthy_chips": len(unhealthy),
            "unhealthy_nodes": sum(
                1 for r in records if r["health"].get("state") != "ok"
            ),
            "reboot_pending": sum(1 for r in records if r["reboot"].get("pending")),
            "compat_not_ok": sum(
                1 for r in records if r.get("compat") and not r["compat"].get("ok")
            ),
            "drifting": list(drift),
            "renumbered_nodes": sum(
                1 for r in records if (r.get("chip_map") or {}).get("moved")
            ),
            "refused_images": sum(
                1 for n in nodes for i in n["row"]["images"] if i["refused"]
            ),
        },
        "version_keys": [{"key": k, "label": label} for k, label in VERSION_KEYS],
        "drift": drift,
        "nodes": nodes,
        "unhealthy_chips": unhealthy,
        "chips": chips,
        "unreached": unreached,
    }
