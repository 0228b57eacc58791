# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The IOMMU and SR-IOV checks of an Ascend node (rows T45 and T46), as pure functions:
# the kernel command line and the NPUs' PCI functions (the fact of ascend_facts) and the rules
# of data/iommu.yml go in, findings come out. Read by the preflight role (filter
# cubestudio.ascend.iommu_checks) and by the doctor (module_utils/_checks/_doctor.py).

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)

__all__ = [
    "IommuError",
    "check",
    "parse_cmdline",
    "preflight_results",
    "validate_rules",
]


class IommuError(ValueError):
    """Rules or facts the checks cannot read; the message names the cause."""


_SEVERITIES = ("error", "warning", "info")


def _params(value, what: str) -> list:
    if not isinstance(value, list) or not all(
        isinstance(p, str) and "=" in p for p in value
    ):
        raise IommuError(f"{what} must be a list of key=value kernel parameters")
    return value


def validate_rules(data) -> dict:
    """data/iommu.yml as read from YAML, checked for the keys the checks use."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise IommuError("it must be a mapping with schema: 1, iommu and sriov")
    for name in ("iommu", "sriov"):
        rule = data.get(name)
        if not isinstance(rule, dict):
            raise IommuError(f"{name} must be a mapping")
        for key in ("row", "severity", "source", "cause", "fix"):
            if not isinstance(rule.get(key), str) or not rule[key].strip():
                raise IommuError(f"{name}.{key} must be a non-empty string")
        if rule["severity"] not in _SEVERITIES:
            raise IommuError(f"{name}.severity must be one of {', '.join(_SEVERITIES)}")
        if not isinstance(rule.get("assumption"), bool):
            raise IommuError(f"{name}.assumption must be true or false")
    _params(data["iommu"].get("translated"), "iommu.translated")
    _params(data["iommu"].get("passthrough"), "iommu.passthrough")
    return data


def parse_cmdline(text) -> dict:
    """``/proc/cmdline`` -> {parameter: set of its options}. A later occurrence of a parameter
    replaces an earlier one (as the kernel's own parsing of these parameters does); a value is
    split on commas (``intel_iommu=on,sm_on``, ``iommu=pt``); a bare flag has the option ``""``."""
    out = {}
    for word in (text or "").split():
        key, _sep, value = word.partition("=")
        out[key.replace("-", "_")] = set(value.split(",")) if value else {""}
    return out


def _matches(params: dict, wanted: list) -> list:
    hits = []
    for item in wanted:
        key, _sep, value = item.partition("=")
        if value in params.get(key.replace("-", "_"), ()):
            hits.append(item)
    return hits


def _text(rule: dict, key: str) -> str:
    return " ".join(rule[key].split())


def check(cmdline, devices, rules: dict) -> list:
    """The findings of one node: a list of {row, check, symptom, cause, fix, severity}, empty
    when the node is as the rules want.

    ``cmdline``: the text of ``/proc/cmdline`` (None when unreadable: no IOMMU finding).
    ``devices``: the ``pci_devices`` of ascend_facts (each with ``bus_id`` and
    ``sriov_numvfs``, an int or None where the function has no SR-IOV capability)."""
    if devices is not None and not isinstance(devices, list):
        raise IommuError("devices must be the list pci_devices of ascend_facts")
    findings = []
    iommu = rules["iommu"]
    if cmdline is not None:
        params = parse_cmdline(cmdline)
        translated = _matches(params, iommu["translated"])
        passthrough = _matches(params, iommu["passthrough"])
        if translated and not passthrough:
            findings.append(
                {
                    "row": iommu["row"],
                    "check": "iommu",
                    "symptom": "the kernel command line has "
                    + " ".join(translated)
                    + " and none of "
                    + ", ".join(iommu["passthrough"])
                    + ": the IOMMU translates the DMA of the NPUs",
                    "cause": _text(iommu, "cause"),
                    "fix": _text(iommu, "fix"),
                    "severity": iommu["severity"],
                }
            )
    sriov = rules["sriov"]
    with_vfs = []
    for device in devices or []:
        if not isinstance(device, dict):
            raise IommuError("each item of devices must be a dict")
        count = int_or_none(device.get("sriov_numvfs"))
        if count:
            with_vfs.append("%s (%d)" % (device.get("bus_id"), count))
    if with_vfs:
        findings.append(
            {
                "row": sriov["row"],
                "check": "sriov",
                "symptom": "SR-IOV virtual functions are enabled on %d NPU PCI function(s), "
                "sriov_numvfs: %s" % (len(with_vfs), ", ".join(with_vfs)),
                "cause": _text(sriov, "cause"),
                "fix": _text(sriov, "fix"),
                "severity": sriov["severity"],
            }
        )
    return findings


def preflight_results(cmdline, devices, rules: dict) -> list:
    """The two results of the preflight role, ``iommu`` and ``sriov``, in its shape
    {check, ok, severity, message, cause, fix}."""
    found = {f["check"]: f for f in check(cmdline, devices, rules)}
    params = parse_cmdline(cmdline) if cmdline is not None else {}
    shown = [
        p
        for p in rules["iommu"]["translated"] + rules["iommu"]["passthrough"]
        if _matches(params, [p])
    ]
    if cmdline is None:
        iommu_message = "the kernel command line could not be read"
    else:
        iommu_message = "kernel command line: " + (
            " ".join(shown) if shown else "no IOMMU parameter"
        )
    functions = [d for d in devices or [] if isinstance(d, dict)]
    capable = [d for d in functions if int_or_none(d.get("sriov_numvfs")) is not None]
    sriov_message = (
        "%d NPU PCI function(s), %d with SR-IOV, %d virtual function(s) enabled"
        % (
            len(functions),
            len(capable),
            sum(int_or_none(d.get("sriov_numvfs")) or 0 for d in capable),
        )
    )
    out = []
    for name, message in (("iommu", iommu_message), ("sriov", sriov_message)):
        finding = found.get(name)
        out.append(
            {
                "check": name,
                "ok": finding is None,
                "severity": "info" if finding is None else finding["severity"],
                "message": message if finding is None else finding["symptom"],
                "cause": ""
                if finding is None
                else "[%s] %s" % (finding["row"], finding["cause"]),
                "fix": "" if finding is None else finding["fix"],
            }
        )
    return out
