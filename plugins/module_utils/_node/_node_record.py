# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. One record per Ascend node, built from the fact modules (ascend_facts, npu_smi_facts,
# ascend_compat) and what the Kubernetes API says of the node: the facts and verdicts that the
# summary, the doctor and the fleet report print. Pure: no I/O. The keys are documented in
# plugins/modules/ascend_node_record.py (RETURN) and docs/report.md.

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    workloads,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._image_versions import (
    image_versions,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _chip_map
from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)

__all__ = [
    "ARGUMENT_SPEC",
    "HEALTH_ORDER",
    "RecordError",
    "build",
    "from_cluster",
    "health_rank",
    "image_version",
    "summary_lines",
]

ARGUMENT_SPEC = {
    "host": {"type": "str", "required": True},
    "ascend": {"type": "dict", "required": True},
    "npu_smi": {"type": "dict"},
    "npu_smi_error": {"type": "str"},
    "compat": {"type": "dict"},
    "kubernetes": {"type": "bool", "default": False},
    "k8s_node": {"type": "dict"},
    "k8s_error": {"type": "str"},
    "cluster": {"type": "raw"},
    "node_name": {"type": "str"},
    "device_plugin_pods": {"type": "list", "elements": "dict", "default": []},
    "smoke_npu_count": {"type": "int"},
    "layer_results": {"type": "list", "elements": "str", "default": []},
    "chip_map_record": {"type": "str"},
    "metrics_url": {"type": "str", "default": ""},
    "containers": {"type": "list", "elements": "dict", "default": []},
}

# npu_smi_facts' order of health (module_utils._node._npu_smi): anything else is worse than Critical.
HEALTH_ORDER = ("OK", "Warning", "Alarm", "Critical")
_NPU_RESOURCE = re.compile(r"huawei\.com/Ascend[0-9A-Za-z]+")
_ASCEND_KEYS = ("pci_npu_count", "npu_family", "driver", "firmware", "cann")


class RecordError(ValueError):
    """Input that is not what the fact modules return."""


def health_rank(health) -> int:
    """0 for OK, 1 Warning, 2 Alarm, 3 Critical, 4 for any other string (or none)."""
    try:
        return HEALTH_ORDER.index(health)
    except ValueError:
        return len(HEALTH_ORDER)


def image_version(image) -> str | None:
    """``registry:5000/ascend-k8sdeviceplugin:v7.3.0`` -> ``7.3.0``; None without a tag."""
    if not isinstance(image, str) or not image:
        return None
    name = image.split("@", maxsplit=1)[0].rsplit("/", maxsplit=1)[-1]
    if ":" not in name:
        return None
    tag = name.rsplit(":", maxsplit=1)[-1]
    return tag[1:] if tag[:1] in ("v", "V") and tag[1:2].isdigit() else tag


def _dict(value, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"{what} must be a dict, got {type(value).__name__}")
    return value


def _truncate(text: str, length: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= length else text[: length - 3].rstrip() + "..."


def _chips(smi: dict) -> list:
    chips = []
    for npu in smi.get("npus") or []:
        if not isinstance(npu, dict):
            raise RecordError("npu_smi.npus must be a list of dicts (npu_smi_facts)")
        for chip in npu.get("chips") or []:
            chips.append(
                {
                    "npu": npu.get("id"),
                    "chip": chip.get("chip"),
                    "name": npu.get("name"),
                    "health": chip.get("health"),
                    "temp_c": chip.get("temp_c"),
                    "power_w": chip.get("power_w"),
                    "aicore_pct": chip.get("aicore_pct"),
                    "hbm_used_mb": chip.get("hbm_used_mb"),
                    "hbm_total_mb": chip.get("hbm_total_mb"),
                    "memory_used_mb": chip.get("memory_used_mb"),
                    "memory_total_mb": chip.get("memory_total_mb"),
                }
            )
    chips.sort(
        key=lambda c: (
            -health_rank(c["health"]),
            c["npu"] if isinstance(c["npu"], int) else -1,
            c["chip"] if isinstance(c["chip"], int) else -1,
        )
    )
    return chips


def _health(ascend: dict, smi: dict, smi_error: str, chips: list) -> dict:
    unhealthy = [
        {"npu": c["npu"], "chip": c["chip"], "health": c["health"]}
        for c in chips
        if c["health"] != "OK"
    ]
    if smi:
        state = "ok" if not unhealthy and smi.get("healthy", True) else "unhealthy"
        worst = max((health_rank(c["health"]) for c in chips), default=0)
    elif smi_error:
        state, worst = "npu_smi_failed", len(HEALTH_ORDER)
    elif ascend.get("pci_npu_count"):
        state, worst = "no_npu_smi", 0
    else:
        state, worst = "no_npu", 0
    return {
        "state": state,
        "healthy": state == "ok" if smi else None,
        "worst": HEALTH_ORDER[worst] if worst < len(HEALTH_ORDER) else "Unknown",
        "unhealthy_chips": unhealthy,
        "unhealthy_npus": sorted(
            {n.get("id") for n in smi.get("npus") or [] if n.get("health") != "OK"},
            key=lambda i: i if isinstance(i, int) else -1,
        ),
        "error": _truncate(smi_error, 300) if smi_error and not smi else None,
    }


def _sum(chips: list, key: str):
    values = [c[key] for c in chips if isinstance(c[key], (int, float))]
    return sum(values) if values else None


def from_cluster(params: dict) -> tuple:
    """(node, pods, error) of this host from ``cluster``, the registered result of one
    ascend_k8s_read for the play (nodes and pods by node name), else from ``k8s_node``,
    ``device_plugin_pods`` and ``k8s_error`` (one host's reads)."""
    cluster = params.get("cluster")
    if cluster is None:
        return (
            _dict(params.get("k8s_node"), "k8s_node"),
            params.get("device_plugin_pods") or [],
            params.get("k8s_error") or None,
        )
    if not isinstance(cluster, dict):
        raise RecordError(
            "cluster must be the registered result of cubestudio.ascend.ascend_k8s_read, got %s"
            % type(cluster).__name__
        )
    if cluster.get("failed") or not isinstance(cluster.get("nodes"), dict):
        return {}, [], str(cluster.get("msg") or "the read of the cluster failed")
    name = params.get("node_name")
    if not name:
        raise RecordError(
            "node_name is required with cluster (the node's name in Kubernetes)"
        )
    node = _dict(cluster["nodes"].get(name), "cluster.nodes[%s]" % name)
    pods = (_dict(cluster.get("pods"), "cluster.pods")).get(name) or []
    if not isinstance(pods, list):
        raise RecordError("cluster.pods[%s] must be a list of pods" % name)
    error = None if node else "node %s is not registered with the cluster" % name
    return node, pods, error


def _pod_images(pod: dict) -> list:
    """The images of a pod: its containers, or the list ascend_k8s_read trims them to."""
    spec = _dict(pod.get("spec"), "pod spec")
    images = [
        c["image"]
        for c in spec.get("containers") or []
        if isinstance(c, dict) and c.get("image")
    ]
    return images or [i for i in spec.get("images") or [] if isinstance(i, str) and i]


def _kubernetes(params: dict, chips: list) -> dict:
    enabled = bool(params.get("kubernetes"))
    node, pods, error = from_cluster(params) if enabled else ({}, [], None)
    allocatable = {}
    status = _dict(node.get("status"), "k8s_node.status") if node else {}
    for key, value in sorted(_dict(status.get("allocatable"), "allocatable").items()):
        if key.startswith("huawei.com/"):
            allocatable[key] = (
                int_or_none(value) if int_or_none(value) is not None else value
            )
    npus = [v for k, v in allocatable.items() if _NPU_RESOURCE.fullmatch(k)]
    allocatable_npus = (
        sum(v for v in npus if isinstance(v, int)) if node and enabled else None
    )
    healthy = sum(1 for c in chips if c["health"] == "OK") if chips else None
    images = []
    for pod in pods:
        images.extend(_pod_images(_dict(pod, "pod")))
    metadata = _dict(node.get("metadata"), "k8s_node.metadata") if node else {}
    return {
        "enabled": enabled,
        "registered": bool(node) if enabled else None,
        "node_name": metadata.get("name"),
        "allocatable": allocatable,
        "allocatable_npus": allocatable_npus,
        "healthy_chips": healthy,
        "allocatable_matches": (
            allocatable_npus == healthy
            if allocatable_npus is not None and healthy is not None
            else None
        ),
        "device_plugin_image": images[0] if images else None,
        "smoke_npu_count": params.get("smoke_npu_count"),
        "metrics_url": params.get("metrics_url") or None,
        "error": _truncate(error, 300) if error and enabled and not node else None,
    }


def _compat(compat: dict) -> dict | None:
    if not compat:
        return None
    findings = compat.get("findings") or []
    if not isinstance(findings, list):
        raise RecordError("compat.findings must be a list (ascend_compat)")
    refused = compat.get("refused")
    return {
        "policy": compat.get("policy"),
        # Not OK when the policy refuses the versions (ascend_compat's `refused`, what preflight
        # and npu_driver refuse on); a result without that list: no error.
        "ok": not refused if isinstance(refused, list) else bool(compat.get("ok")),
        "problems": [
            {"severity": f.get("severity"), "message": f.get("message")}
            for f in findings
            if isinstance(f, dict) and f.get("severity") in ("error", "warning")
        ],
    }


def _chip_map_of(smi: dict, text) -> dict:
    """The chip map now, what moved since the record (T47) and the text to record."""
    now = _chip_map.current(smi) if smi else []
    error = None
    try:
        recorded = _chip_map.load(text)
    except _chip_map.ChipMapError as failure:
        recorded, error = None, str(failure)
    diff = _chip_map.compare(recorded, now)
    record_text = _chip_map.record(now) if now else None
    return dict(
        diff,
        chips=now,
        moved_text=_chip_map.moved_text(diff),
        record_text=record_text,
        # Whether the recorded map is to be (re)written: a map now that is not the one on record.
        record_changed=record_text is not None and record_text != text,
        error=error,
    )


def _images(containers) -> list:
    """The containers that hold the node's NPUs (npu_container_facts) and the versions their
    images carry (module_utils/_image_versions.py); the fleet report holds them against the
    matrix."""
    if not isinstance(containers, list):
        raise RecordError("containers must be a list (npu_container_facts)")
    images = []
    for workload in workloads(None, [c for c in containers if isinstance(c, dict)]):
        versions = image_versions(workload["image"], workload["labels"])
        images.append(
            {
                "where": workload["where"],
                "image": workload["image"],
                "labels": workload["labels"],
                "cann": versions["cann"],
                "driver": versions["driver"],
                "source": versions["source"],
                "known": versions["known"],
                "reason": versions["reason"],
            }
        )
    return images


def build(params: dict) -> dict:
    """The node record of one host; RecordError on input the fact modules never return."""
    host = params.get("host")
    if not host or not isinstance(host, str):
        raise RecordError("host must be the inventory host name")
    ascend = _dict(params.get("ascend"), "ascend")
    missing = [key for key in _ASCEND_KEYS if key not in ascend]
    if missing:
        raise RecordError(
            f"ascend is not the fact of cubestudio.ascend.ascend_facts (no {', '.join(missing)}): "
            "run ascend_facts first and pass ansible_facts['ascend']"
        )
    smi = _dict(params.get("npu_smi"), "npu_smi")
    chips = _chips(smi)
    driver = _dict(ascend.get("driver"), "ascend.driver")
    runtime = _dict(ascend.get("docker_runtime"), "ascend.docker_runtime")
    reboot = _dict(ascend.get("reboot"), "ascend.reboot")
    kubernetes = _kubernetes(params, chips)
    temps = [c for c in chips if isinstance(c["temp_c"], (int, float))]
    hottest = max(temps, key=lambda c: c["temp_c"], default=None)
    hbm_total = _sum(chips, "hbm_total_mb")
    record = {
        "host": host,
        "npu": {
            "family": ascend.get("npu_family"),
            "model": ascend.get("npu_model"),
            "pci_count": ascend.get("pci_npu_count") or 0,
            "npu_count": smi.get("npu_count") if smi else None,
            "chip_count": smi.get("chip_count") if smi else None,
            "chip_name": chips[0]["name"] if chips else None,
        },
        "health": _health(ascend, smi, params.get("npu_smi_error") or "", chips),
        "chips": chips,
        "temperature": {
            "max_c": hottest["temp_c"] if hottest else None,
            "hottest_npu": hottest["npu"] if hottest else None,
            "hottest_chip": hottest["chip"] if hottest else None,
        },
        "hbm": (
            {"used_mb": _sum(chips, "hbm_used_mb"), "total_mb": hbm_total}
            if hbm_total
            else None
        ),
        "versions": {
            "driver": driver.get("version"),
            "firmware": _dict(ascend.get("firmware"), "ascend.firmware").get("version"),
            "cann": _dict(ascend.get("cann"), "ascend.cann").get("version"),
            "runtime": runtime.get("version"),
            "device_plugin": image_version(kubernetes["device_plugin_image"]),
        },
        "driver_complete": driver.get("complete", True) if driver else None,
        "runtime_scene": (runtime.get("install_scene") or "docker")
        if runtime
        else None,
        "compat": _compat(_dict(params.get("compat"), "compat")),
        "reboot": {
            "pending": bool(reboot.get("pending")),
            "reasons": list(reboot.get("reasons") or []),
        },
        "kubernetes": kubernetes,
        # What each layer did in this run (skipped as unchanged, ran in full and verified, ...).
        "layers": [str(x) for x in params.get("layer_results") or [] if x],
        "chip_map": _chip_map_of(smi, params.get("chip_map_record")),
        "images": _images(params.get("containers") or []),
    }
    record["summary"] = summary_lines(record)
    return record


def _npus_text(record: dict) -> str:
    npu = record["npu"]
    if not npu["pci_count"]:
        return "no Ascend NPU on the PCI bus"
    family = (npu["family"] or "unknown").upper()
    model = f" ({npu['model']})" if npu["model"] else ""
    return f"{npu['pci_count']} x {family}{model}"


def _health_text(record: dict) -> str:
    health = record["health"]
    if health["state"] in ("ok", "unhealthy"):
        verdict = (
            "OK"
            if health["state"] == "ok"
            else "NOT OK: " + ", ".join(f"NPU {i}" for i in health["unhealthy_npus"])
        )
        return f"health {verdict}, {record['npu']['chip_count']} chips seen by npu-smi"
    if health["state"] == "npu_smi_failed":
        return "npu-smi failed: " + _truncate(health["error"] or "", 120)
    return "no npu-smi (driver not installed)"


def _kubernetes_text(record: dict) -> str:
    k8s = record["kubernetes"]
    if not k8s["enabled"]:
        return "Kubernetes layer: off (ascend_kubernetes)"
    if not k8s["registered"]:
        return "Kubernetes: " + _truncate(k8s["error"] or "node not registered", 120)
    allocatable = (
        ", ".join(f"{k}: {v}" for k, v in k8s["allocatable"].items())
        or "no huawei.com resource"
    )
    smoke = (
        f"saw {k8s['smoke_npu_count']} NPU"
        if k8s["smoke_npu_count"] is not None
        else "not run"
    )
    return (
        f"Kubernetes: node {k8s['node_name']}, allocatable {allocatable}"
        f" | smoke pod: {smoke}"
        + (f" | metrics: {k8s['metrics_url']}" if k8s.get("metrics_url") else "")
    )


def summary_lines(record: dict) -> list:
    """The lines site.yml's summary prints for the node."""
    versions = record["versions"]
    incomplete = "" if record["driver_complete"] in (None, True) else " (INCOMPLETE)"
    runtime = (
        f"{versions['runtime']} ({record['runtime_scene']})"
        if record["runtime_scene"]
        else "-"
    )
    compat = record["compat"]
    reboot = record["reboot"]
    lines = [
        f"{_npus_text(record)}, {_health_text(record)}",
        f"driver {versions['driver'] or '-'}{incomplete} | firmware {versions['firmware'] or '-'}"
        f" | CANN {versions['cann'] or '-'} | Ascend Docker Runtime {runtime}",
        (
            f"compatibility ({compat['policy']}): {'OK' if compat['ok'] else 'NOT OK'}"
            if compat
            else "compatibility: not checked"
        )
        + " | reboot required: "
        + (
            "YES ("
            + _truncate("; ".join(reboot["reasons"]) or "reason not recorded", 200)
            + ")"
            if reboot["pending"]
            else "no"
        ),
        _kubernetes_text(record),
    ]
    lines.extend("  " + _truncate(text, 300) for text in record.get("layers") or [])
    if compat:
        lines.extend("  ! " + str(p["message"]) for p in compat["problems"][:4])
    chip_map = record.get("chip_map") or {}
    if chip_map.get("moved"):
        lines.append(
            f"  ! [T47] {len(chip_map['moved'])} chip(s) renumbered since the recorded chip map: "
            + chip_map["moved_text"]
        )
    return lines
