# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Which Ascend NPU a PCI device is, read from sysfs (or from lspci output).
#
# Data (Huawei vendor id 0x19e5; device and subsystem ids as Huawei's ascend-deployer 26.0.0
# maps them, see docs/version-matrix.md "Hardware identification"):
#   d100 310, d105/d107 310B, d500 310P, d801 910, d802 910B (A2), d803 A3 (910_93), d806 A5.
# The subsystem device id names the product where that mapping is known; elsewhere the model
# is null. Huawei also makes NICs, RAID controllers and the Kunpeng SoC's own functions under
# 0x19e5: only the device ids above and devices of PCI class 0x1200 (processing accelerator)
# are reported.

from __future__ import annotations

import os
import re

__all__ = [
    "FAMILIES",
    "HUAWEI_VENDOR_ID",
    "classify",
    "parse_lspci",
    "scan_sysfs",
]

HUAWEI_VENDOR_ID = "0x19e5"
ACCELERATOR_CLASS_PREFIX = "0x1200"

# device id -> (family, chip)
FAMILIES = {
    "0xd100": ("310", "Ascend 310"),
    "0xd105": ("310B", "Ascend 310B"),
    "0xd107": ("310B", "Ascend 310B"),
    "0xd500": ("310P", "Ascend 310P"),
    "0xd801": ("910", "Ascend 910"),
    "0xd802": ("910B", "Ascend 910B"),
    "0xd803": ("A3", "Ascend 910_93"),
    "0xd806": ("A5", "Ascend 950"),
}

_ATLAS_A2_TRAINING = "Atlas 800T A2 / Atlas 900 A2 PoD"
_ATLAS_A3_POD = "Atlas 900 A3 PoD"

# (device id, subsystem device id) -> product
MODELS = {
    ("0xd500", "0x0100"): "Atlas 300I Pro",
    ("0xd500", "0x0110"): "Atlas 300I Duo",
    ("0xd802", "0x3000"): _ATLAS_A2_TRAINING,
    ("0xd802", "0x3001"): _ATLAS_A2_TRAINING,
    ("0xd802", "0x3003"): _ATLAS_A2_TRAINING,
    ("0xd802", "0x3002"): "Atlas 800I A2",
    ("0xd802", "0x3004"): "Atlas 800I A2",
    ("0xd802", "0x3005"): "Atlas 800I A2",
    ("0xd802", "0x4000"): "Atlas 300I A2",
    ("0xd802", "0x6000"): "Atlas 300T A2",
    ("0xd803", "0x3000"): _ATLAS_A3_POD,
    ("0xd803", "0x3001"): _ATLAS_A3_POD,
    ("0xd803", "0x3002"): _ATLAS_A3_POD,
    ("0xd803", "0x0100"): "Atlas 800I A3",
    ("0xd803", "0x3003"): "Atlas 800I A3",
}

# The 0x34xx subsystem ids of d802 are all Atlas 800T A2 / 900 A2 PoD boards.
_A2_TRAINING_RANGE = re.compile(r"0x34[0-9a-f]{2}")

_LSPCI_RE = re.compile(
    r"^(?P<bus>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+"
    r"(?P<class>[^:]+):\s+Huawei Technologies Co\., Ltd\.\s+Device\s+(?P<device>[0-9a-fA-F]{4})"
)


def _hex(value) -> str | None:
    """``0x19E5`` / ``19e5`` -> ``0x19e5``; None for anything that is not a hex id."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if not text.startswith("0x"):
        text = f"0x{text}"
    if not re.fullmatch(r"0x[0-9a-f]{1,8}", text):
        return None
    return f"0x{int(text, 16):04x}"


def classify(device_id, subsystem_device_id=None) -> dict:
    """Family, chip and (where the subsystem id tells it) product of an Ascend device id."""
    device = _hex(device_id)
    subsystem = _hex(subsystem_device_id)
    family, chip = FAMILIES.get(device, (None, None))
    model = MODELS.get((device, subsystem))
    if (
        model is None
        and device == "0xd802"
        and subsystem
        and _A2_TRAINING_RANGE.fullmatch(subsystem)
    ):
        model = _ATLAS_A2_TRAINING
    return {"family": family, "chip": chip, "model": model}


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _count(text):
    return int(text) if text and text.isdigit() else None


def scan_sysfs(sysfs_root: str = "/sys") -> list:
    """Ascend devices under ``<sysfs_root>/bus/pci/devices``, sorted by bus id.

    Each entry: bus_id, vendor_id, device_id, subsystem_vendor_id, subsystem_device_id,
    class_id, family, chip, model, numa_node (int or None), driver (bound kernel driver or None),
    sriov_numvfs and sriov_totalvfs (ints; None where the function has no SR-IOV capability).
    SR-IOV virtual functions (a ``physfn`` link to their physical function) are not chips and
    are left out: once VFs are enabled they sit beside their card with the same vendor and the
    accelerator class. A missing directory gives an empty list.
    """
    base = os.path.join(sysfs_root, "bus", "pci", "devices")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    devices = []
    for name in names:
        path = os.path.join(base, name)
        if _hex(_read(os.path.join(path, "vendor"))) != HUAWEI_VENDOR_ID:
            continue
        if os.path.lexists(os.path.join(path, "physfn")):
            continue
        device_id = _hex(_read(os.path.join(path, "device")))
        class_id = _read(os.path.join(path, "class"))
        class_id = class_id.lower() if class_id else None
        is_accelerator = bool(
            class_id and class_id.startswith(ACCELERATOR_CLASS_PREFIX)
        )
        if device_id not in FAMILIES and not is_accelerator:
            continue
        subsystem_device_id = _hex(_read(os.path.join(path, "subsystem_device")))
        numa = _read(os.path.join(path, "numa_node"))
        driver_link = os.path.join(path, "driver")
        driver = (
            os.path.basename(os.readlink(driver_link))
            if os.path.islink(driver_link)
            else None
        )
        entry = {
            "bus_id": name.lower(),
            "vendor_id": HUAWEI_VENDOR_ID,
            "device_id": device_id,
            "subsystem_vendor_id": _hex(_read(os.path.join(path, "subsystem_vendor"))),
            "subsystem_device_id": subsystem_device_id,
            "class_id": class_id,
            "numa_node": int(numa)
            if numa and re.fullmatch(r"-?[0-9]+", numa)
            else None,
            "driver": driver,
            "sriov_numvfs": _count(_read(os.path.join(path, "sriov_numvfs"))),
            "sriov_totalvfs": _count(_read(os.path.join(path, "sriov_totalvfs"))),
        }
        entry.update(classify(device_id, subsystem_device_id))
        devices.append(entry)
    return devices


def parse_lspci(text: str) -> list:
    """Huawei devices from plain ``lspci`` output: ``[{bus_id, device_id, family, chip}]``.

    Only lines naming ``Huawei Technologies Co., Ltd. Device <id>`` are read; the subsystem is
    not printed by plain lspci, so ``model`` is always None.
    """
    devices = []
    for line in (text or "").splitlines():
        match = _LSPCI_RE.match(line.strip())
        if not match:
            continue
        device_id = _hex(match.group("device"))
        entry = {"bus_id": match.group("bus").lower(), "device_id": device_id}
        entry.update(classify(device_id))
        devices.append(entry)
    return devices
