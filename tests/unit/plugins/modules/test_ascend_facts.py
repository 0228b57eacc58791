# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_facts on sandbox nodes built from the real installed files (see ../conftest.py)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts


def facts(module_runner, root, sysfs, **extra):
    result, calls = module_runner(
        ascend_facts.main, {"root": root, "sysfs_root": sysfs, **extra}, []
    )
    assert calls == [], "ascend_facts runs no command"
    assert "failed" not in result, result
    assert result["changed"] is False
    return result["ansible_facts"]["ascend"]


def test_full_node(module_runner, ascend_node):
    root, sysfs = ascend_node("full")
    fact = facts(module_runner, root, sysfs)
    assert fact["root"] == root
    assert fact["sysfs_root"] == sysfs
    assert fact["install_path"] == "/usr/local/Ascend"
    assert fact["install_info"]["Driver_Install_For_All"] == "yes"
    assert fact["npu_family"] == "910B"
    assert fact["npu_families"] == ["910B"]
    assert fact["npu_model"] == "Atlas 800T A2 / Atlas 900 A2 PoD"
    assert fact["pci_npu_count"] == 4
    assert [d["bus_id"] for d in fact["pci_devices"]] == [
        "0000:81:00.0",
        "0000:82:00.0",
        "0000:c1:00.0",
        "0000:c2:00.0",
    ]
    assert fact["davinci_devices"] == 4
    assert fact["davinci_ids"] == [0, 1, 2, 3]
    assert fact["device_nodes"] == {
        "davinci_manager": True,
        "devmm_svm": True,
        "hisi_hdc": True,
    }
    assert fact["npu_smi"]["present"] is True
    assert fact["driver"]["version"] == "23.0.7"
    assert fact["driver"]["compatible_firmware"] == "[7.0.0,7.1.99]"
    assert fact["driver"]["complete"] is True
    assert fact["firmware"]["version"] == "7.1.0.11.220"
    assert (
        fact["firmware"]["compatible_driver"] == "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"
    )
    assert fact["cann"]["version"] == "8.5.0"
    assert [p["version"] for p in fact["cann"]["packages"]] == [
        "7.0.T10",
        "8.1.RC1",
        "8.0.RC3",
        "8.5.0",
    ]
    assert fact["docker_runtime"]["version"] == "7.3.0"
    assert fact["docker_runtime"]["install_scene"] == "containerd"
    assert fact["hwhiaiuser"]["uid"] == 1000
    assert set(fact) == {
        "root",
        "sysfs_root",
        "kernel_cmdline",
        "install_path",
        "install_info",
        "pci_devices",
        "npu_families",
        "npu_family",
        "npu_model",
        "pci_npu_count",
        "davinci_devices",
        "davinci_ids",
        "device_nodes",
        "npu_smi",
        "driver",
        "firmware",
        "cann",
        "docker_runtime",
        "hwhiaiuser",
        "layers",
        "reboot",
        "installers_running",
    }
    assert fact["layers"] == {}  # no layer record on this node
    assert fact["reboot"]["pending"] is False


def test_bare_node_is_all_null(module_runner, ascend_node):
    root, sysfs = ascend_node("empty")
    fact = facts(module_runner, root, sysfs)
    assert fact["install_info"] is None
    assert fact["install_path"] == "/usr/local/Ascend"
    assert fact["pci_devices"] == []
    assert fact["npu_family"] is None
    assert fact["npu_families"] == []
    assert fact["npu_model"] is None
    assert fact["pci_npu_count"] == 0
    assert fact["davinci_devices"] == 0
    assert fact["device_nodes"] == {
        "davinci_manager": False,
        "devmm_svm": False,
        "hisi_hdc": False,
    }
    assert fact["npu_smi"]["present"] is False
    for key in ("driver", "firmware", "cann", "docker_runtime", "hwhiaiuser"):
        assert fact[key] is None, key
    assert fact["installers_running"] == []


def test_driver_only_node(module_runner, ascend_node):
    root, sysfs = ascend_node("driver-only")
    fact = facts(module_runner, root, sysfs)
    assert fact["driver"]["complete"] is True
    assert fact["firmware"] is None
    assert fact["cann"] is None
    assert fact["docker_runtime"] is None


def test_the_real_record_of_an_older_complete_install_is_complete(
    module_runner, ascend_node
):
    # The copied /etc/ascend_install.info of a 23.0.7 node has no Driver_Install_Status.
    root, sysfs = ascend_node("driver-only")
    fact = facts(module_runner, root, sysfs)
    assert "Driver_Install_Status" not in fact["install_info"]
    assert fact["driver"]["unfinished"] is False and fact["driver"]["complete"] is True


@pytest.mark.parametrize(
    "status, unfinished",
    [(None, True), ("complete", False)],
    ids=["no-status", "status-complete"],
)
def test_a_newer_driver_install_without_its_final_status_is_unfinished(
    module_runner, ascend_node, status, unfinished
):
    # What an interrupted 25.x/26.x install leaves (driver-installer-rules.md): version.info
    # and upgrade-tool of the driver, the record without its last line.
    root, sysfs = ascend_node("driver-only")
    driver = os.path.join(root, "usr", "local", "Ascend", "driver", "version.info")
    with open(driver, "w", encoding="utf-8") as handle:
        handle.write("Version=26.1.0\n")
    if status:
        with open(os.path.join(root, "etc", "ascend_install.info"), "a") as handle:
            handle.write("Driver_Install_Status=%s\n" % status)
    fact = facts(module_runner, root, sysfs)
    assert fact["driver"]["unfinished"] is unfinished
    assert fact["driver"]["complete"] is (not unfinished)
    assert fact["driver"]["upgrade_tool"] is True


def test_install_path_from_ascend_install_info(module_runner, tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "ascend_install.info").write_text(
        "Driver_Install_Path_Param=/opt/ascend\nFirmware_Install_Path_Param=/opt/fw\n"
    )
    (root / "opt" / "ascend" / "driver").mkdir(parents=True)
    (root / "opt" / "ascend" / "driver" / "version.info").write_text("Version=24.1.0\n")
    (root / "opt" / "fw" / "firmware").mkdir(parents=True)
    (root / "opt" / "fw" / "firmware" / "version.info").write_text(
        "Version=7.5.0.2.220\n"
    )
    fact = facts(module_runner, str(root), str(tmp_path / "sys"))
    assert fact["install_path"] == "/opt/ascend"
    assert fact["driver"]["version"] == "24.1.0"
    assert fact["driver"]["install_path"] == "/opt/ascend/driver"
    assert fact["firmware"]["version"] == "7.5.0.2.220"


def test_install_path_option_overrides(module_runner, ascend_node):
    root, sysfs = ascend_node("full")
    fact = facts(module_runner, root, sysfs, install_path="/nowhere")
    assert fact["install_path"] == "/nowhere"
    assert fact["driver"] is None
    assert fact["cann"] is None


def test_relative_install_path_is_refused(module_runner, ascend_node):
    root, sysfs = ascend_node("empty")
    result, _calls = module_runner(
        ascend_facts.main,
        {"root": root, "sysfs_root": sysfs, "install_path": "usr/local"},
        [],
    )
    assert result == {
        "failed": True,
        "msg": "install_path must be absolute (as seen on the node), got usr/local",
    }


def test_mixed_families_pick_the_majority():
    assert ascend_facts._most_common(["310P", "910B", "910B", None]) == "910B"
    assert ascend_facts._most_common(["910B", "310P"]) == "310P"
    assert ascend_facts._most_common([None, None]) is None


def test_kernel_cmdline_from_proc_root(module_runner, ascend_node, tmp_path):
    root, sysfs = ascend_node("full")
    (tmp_path / "cmdline").write_text(
        "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/sda2 ro intel_iommu=on iommu=pt\n"
    )
    fact = facts(module_runner, root, sysfs, proc_root=str(tmp_path))
    assert fact["kernel_cmdline"] == (
        "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/sda2 ro intel_iommu=on iommu=pt"
    )
    missing = facts(module_runner, root, sysfs, proc_root=str(tmp_path / "none"))
    assert missing["kernel_cmdline"] is None
