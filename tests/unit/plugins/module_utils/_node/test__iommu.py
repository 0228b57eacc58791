# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The IOMMU and SR-IOV checks (rows T45, T46) on the collection's data/iommu.yml."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
    diagnose,
    validate_rows,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
    check,
    parse_cmdline,
    preflight_results,
    validate_rules,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    validate_catalogue,
)

COLLECTION = Path(__file__).resolve().parents[5]
RULES = validate_rules(yaml.safe_load((COLLECTION / "data" / "iommu.yml").read_text()))
TABLE = validate_rows(
    yaml.safe_load((COLLECTION / "data" / "troubleshooting.yml").read_text())
)
CATALOGUE = validate_catalogue(
    yaml.safe_load((COLLECTION / "data" / "catalogue.yml").read_text())
)

# Kernel command lines as servers print them (GRUB on Debian/Ubuntu, openEuler on Kunpeng).
DEBIAN = "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=3e1f6c2a-9b7d-4f0e-8c55-1d2a7b9e0c41 ro quiet"
UBUNTU_VT_D = (
    "BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro "
    "intel_iommu=on quiet splash vt.handoff=7"
)
UBUNTU_VT_D_PT = UBUNTU_VT_D.replace("intel_iommu=on", "intel_iommu=on iommu=pt")
OPENEULER_ARM = (
    "BOOT_IMAGE=/vmlinuz-5.10.0-182.0.0.95.oe2203sp3.aarch64 root=/dev/mapper/openeuler-root ro "
    "rd.lvm.lv=openeuler/root rd.lvm.lv=openeuler/swap video=VGA-1:640x480-32@60me "
    "cgroup_disable=files apparmor=0 crashkernel=1024M,high smmu.bypassdev=0x1000:0x17 "
    "smmu.bypassdev=0x1000:0x15 console=tty0"
)
OPENEULER_STRICT = OPENEULER_ARM + " iommu.passthrough=0 iommu.strict=1"
OPENEULER_PT = OPENEULER_ARM + " iommu.passthrough=1"


def _devices(*numvfs):
    return [
        {
            "bus_id": "0000:%02x:00.0" % (0xC1 + index),
            "sriov_numvfs": value,
            "sriov_totalvfs": None if value is None else 16,
        }
        for index, value in enumerate(numvfs)
    ]


def test_parse_cmdline_splits_values_and_keeps_the_last():
    params = parse_cmdline(UBUNTU_VT_D + " intel_iommu=off,sm_on iommu=pt")
    assert params["intel_iommu"] == {"off", "sm_on"}
    assert params["iommu"] == {"pt"}
    assert params["quiet"] == {""}
    assert parse_cmdline(None) == {}


@pytest.mark.parametrize(
    "cmdline", [DEBIAN, UBUNTU_VT_D_PT, OPENEULER_ARM, OPENEULER_PT, None]
)
def test_no_iommu_finding(cmdline):
    assert check(cmdline, _devices(0, 0), RULES) == []


@pytest.mark.parametrize(
    ("cmdline", "named"),
    [
        (UBUNTU_VT_D, "intel_iommu=on"),
        (OPENEULER_STRICT, "iommu.passthrough=0"),
        (
            OPENEULER_PT + " iommu.passthrough=0",
            "iommu.passthrough=0",
        ),  # the last one counts
        ("ro intel_iommu=on,sm_on", "intel_iommu=on"),
    ],
)
def test_translated_iommu_is_t45(cmdline, named):
    (finding,) = check(cmdline, _devices(0), RULES)
    assert finding["row"] == "T45"
    assert finding["severity"] == "warning"
    assert named in finding["symptom"]
    assert "iommu=pt" in finding["fix"]
    assert "assumption" in finding["cause"]


def test_sriov_is_t46_naming_the_functions():
    (finding,) = check(DEBIAN, _devices(0, 4, None, 2), RULES)
    assert finding["row"] == "T46"
    assert finding["severity"] == "warning"
    assert "on 2 NPU PCI function(s)" in finding["symptom"]
    assert "0000:c2:00.0 (4), 0000:c4:00.0 (2)" in finding["symptom"]
    assert "destroy-vnpu" in finding["fix"]


def test_preflight_results_ok_and_failed():
    ok = preflight_results(UBUNTU_VT_D_PT, _devices(0, 0), RULES)
    assert [r["check"] for r in ok] == ["iommu", "sriov"]
    assert all(r["ok"] and r["severity"] == "info" and not r["cause"] for r in ok)
    assert ok[0]["message"] == "kernel command line: intel_iommu=on iommu=pt"
    assert ok[1]["message"] == (
        "2 NPU PCI function(s), 2 with SR-IOV, 0 virtual function(s) enabled"
    )
    bad = preflight_results(UBUNTU_VT_D, _devices(8, None), RULES)
    assert [(r["check"], r["ok"], r["severity"]) for r in bad] == [
        ("iommu", False, "warning"),
        ("sriov", False, "warning"),
    ]
    assert bad[0]["cause"].startswith("[T45] ")
    assert bad[1]["cause"].startswith("[T46] ")
    unread = preflight_results(None, [], RULES)
    assert unread[0]["message"] == "the kernel command line could not be read"
    assert unread[0]["ok"]


def test_severity_comes_from_the_data():
    rules = copy.deepcopy(RULES)
    rules["sriov"]["severity"] = "error"
    (finding,) = check(DEBIAN, _devices(1), rules)
    assert finding["severity"] == "error"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(schema=2), "schema: 1"),
        (lambda r: r["iommu"].update(severity="fatal"), "iommu.severity"),
        (lambda r: r["sriov"].pop("source"), "sriov.source"),
        (lambda r: r["iommu"].update(assumption="yes"), "assumption"),
        (lambda r: r["iommu"].update(translated=["intel_iommu"]), "iommu.translated"),
    ],
)
def test_bad_rules_are_refused(mutate, message):
    rules = copy.deepcopy(RULES)
    mutate(rules)
    with pytest.raises(IommuError, match=message):
        validate_rules(rules)


def test_bad_devices_are_refused():
    with pytest.raises(IommuError, match="pci_devices"):
        check(DEBIAN, "0000:c1:00.0", RULES)


def test_rules_name_rows_of_the_table():
    for name in ("iommu", "sriov"):
        row = TABLE[RULES[name]["row"]]
        assert row["doctor"] is True
        assert row["severity"] == RULES[name]["severity"]


def test_the_doctor_reports_t45_and_t46(ascend_node):
    from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

    root, sysfs = ascend_node("full")
    facts = ascend_facts.gather(root, sysfs, None)
    facts["kernel_cmdline"] = UBUNTU_VT_D
    facts["pci_devices"][1]["sriov_numvfs"] = 3
    params = {"ascend": facts, "npu_smi_error": "", "compat_findings": []}
    found = {f["row"]: f for f in diagnose(TABLE, params, CATALOGUE, RULES)}
    assert {"T45", "T46"} <= set(found)
    assert found["T46"]["severity"] == "warning"
    assert facts["pci_devices"][1]["bus_id"] in found["T46"]["symptom"]
    # Without the rules (a caller that does not load them) the rows are not checked.
    without = {f["row"] for f in diagnose(TABLE, params, CATALOGUE)}
    assert not {"T45", "T46"} & without
