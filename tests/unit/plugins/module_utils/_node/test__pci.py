# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._pci import (
    classify,
    parse_lspci,
    scan_sysfs,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "npu-smi"


@pytest.mark.parametrize(
    ("device", "subsystem", "family", "chip", "model"),
    [
        ("0xd100", None, "310", "Ascend 310", None),
        ("d105", None, "310B", "Ascend 310B", None),
        ("0xD107", None, "310B", "Ascend 310B", None),
        ("0xd500", "0x0100", "310P", "Ascend 310P", "Atlas 300I Pro"),
        ("0xd500", "0x0110", "310P", "Ascend 310P", "Atlas 300I Duo"),
        ("0xd801", "0x0100", "910", "Ascend 910", None),
        ("0xD802", "0x3003", "910B", "Ascend 910B", "Atlas 800T A2 / Atlas 900 A2 PoD"),
        ("0xd802", "0x3412", "910B", "Ascend 910B", "Atlas 800T A2 / Atlas 900 A2 PoD"),
        ("0xd802", "0x3004", "910B", "Ascend 910B", "Atlas 800I A2"),
        ("0xd802", "0x4000", "910B", "Ascend 910B", "Atlas 300I A2"),
        ("0xd802", "0x6000", "910B", "Ascend 910B", "Atlas 300T A2"),
        ("0xd802", "0x9999", "910B", "Ascend 910B", None),
        ("0xd803", "0x3001", "A3", "Ascend 910_93", "Atlas 900 A3 PoD"),
        ("0xd803", "0x3003", "A3", "Ascend 910_93", "Atlas 800I A3"),
        ("0xd806", None, "A5", "Ascend 950", None),
        ("0x1822", None, None, None, None),
        ("garbage", "0x3003", None, None, None),
    ],
)
def test_classify(device, subsystem, family, chip, model):
    assert classify(device, subsystem) == {
        "family": family,
        "chip": chip,
        "model": model,
    }


def test_parse_lspci_fixture():
    devices = parse_lspci((FIXTURES / "lspci-grep-acce-910-d801.txt").read_text())
    assert [d["bus_id"] for d in devices] == [
        "3d:00.0",
        "3e:00.0",
        "60:00.0",
        "b1:00.0",
        "b2:00.0",
        "da:00.0",
        "db:00.0",
    ]
    assert {d["family"] for d in devices} == {"910"}
    assert devices[0] == {
        "bus_id": "3d:00.0",
        "device_id": "0xd801",
        "family": "910",
        "chip": "Ascend 910",
        "model": None,
    }


def test_parse_lspci_other_lines():
    text = "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d500 (rev 23)\n00:1f.0 ISA bridge: Intel Corporation Device 1234\n"
    assert parse_lspci(text) == [
        {
            "bus_id": "01:00.0",
            "device_id": "0xd500",
            "family": "310P",
            "chip": "Ascend 310P",
            "model": None,
        }
    ]
    assert parse_lspci("") == []
    assert parse_lspci(None) == []


def test_scan_sysfs(ascend_node):
    _root, sysfs = ascend_node("full")
    devices = scan_sysfs(sysfs)
    assert [d["bus_id"] for d in devices] == [
        "0000:81:00.0",
        "0000:82:00.0",
        "0000:c1:00.0",
        "0000:c2:00.0",
    ]
    assert devices[0] == {
        "bus_id": "0000:81:00.0",
        "vendor_id": "0x19e5",
        "device_id": "0xd802",
        "subsystem_vendor_id": "0x19e5",
        "subsystem_device_id": "0x3003",
        "class_id": "0x120000",
        "numa_node": 0,
        "driver": None,
        "sriov_numvfs": None,
        "sriov_totalvfs": None,
        "family": "910B",
        "chip": "Ascend 910B",
        "model": "Atlas 800T A2 / Atlas 900 A2 PoD",
    }


def _pci_function(sysfs, address, device_id, **files):
    """A Huawei accelerator function under <sysfs>/bus/pci/devices, with extra sysfs files."""
    path = sysfs / "bus" / "pci" / "devices" / address
    path.mkdir(parents=True)
    files = {"vendor": "0x19e5", "device": device_id, "class": "0x120000", **files}
    for name, value in files.items():
        (path / name).write_text("%s\n" % value)
    return path


def test_scan_sysfs_unknown_accelerator_and_bound_driver(tmp_path):
    base = _pci_function(tmp_path, "0000:01:00.0", "0xd9ff")
    (tmp_path / "drivers" / "devdrv_device_driver").mkdir(parents=True)
    (base / "driver").symlink_to(tmp_path / "drivers" / "devdrv_device_driver")
    (device,) = scan_sysfs(str(tmp_path))
    assert device["family"] is None
    assert device["device_id"] == "0xd9ff"
    assert device["driver"] == "devdrv_device_driver"
    assert device["subsystem_device_id"] is None
    assert device["numa_node"] is None
    assert device["sriov_numvfs"] is None


def test_scan_sysfs_missing_tree(tmp_path):
    assert scan_sysfs(str(tmp_path / "nothing")) == []


def test_scan_sysfs_sriov(tmp_path):
    _pci_function(tmp_path, "0000:c1:00.0", "0xd802", sriov_totalvfs=16, sriov_numvfs=4)
    (device,) = scan_sysfs(str(tmp_path))
    assert (device["sriov_numvfs"], device["sriov_totalvfs"]) == (4, 16)


def test_scan_sysfs_leaves_out_virtual_functions(tmp_path):
    card = _pci_function(
        tmp_path, "0000:c1:00.0", "0xd802", sriov_totalvfs=16, sriov_numvfs=2
    )
    for number in (1, 2):
        vf = _pci_function(tmp_path, "0000:c1:00.%d" % number, "0xd803")
        (vf / "physfn").symlink_to(card)
        (card / ("virtfn%d" % (number - 1))).symlink_to(vf)
    assert [d["bus_id"] for d in scan_sysfs(str(tmp_path))] == ["0000:c1:00.0"]
