# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""npu_driver's bookkeeping between steps: options by component, reboot reasons and the
npu_driver_reboot_required fact, what uninstall removes."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers import (
    _ascend_files as files,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    options_by_component,
    reboot_now,
    reboot_reason,
    reboot_reasons,
    reboot_required,
    removals,
)

FIRMWARE = {
    "component": "firmware",
    "action": "upgrade",
    "version": "7.7.0.1.231",
    "file": "Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run",
    "previous": "7.5.0.1.129",
}
DRIVER_UPGRADE = {
    "component": "driver",
    "action": "upgrade",
    "version": "25.2.0",
    "file": "Ascend-hdk-910b-npu-driver_25.2.0_linux-aarch64.run",
    "previous": "24.1.rc2",
}
DRIVER_FRESH = dict(DRIVER_UPGRADE, action="install", previous=None)


def test_options_by_component_leaves_refused_results_out():
    options = {"install_path": "/usr/local/Ascend", "install_for_all": True}
    results = [
        {"__npu_driver_step": {"component": "driver"}, "options": options},
        # A refused upgrade (failed_when: false): no options.
        {"__npu_driver_step": {"component": "firmware"}, "msg": "refused"},
    ]
    assert options_by_component(results) == {"driver": options}
    assert options_by_component([]) == {}


def test_reboot_reason_per_package():
    assert reboot_reason(FIRMWARE) == (
        "firmware 7.7.0.1.231 flashed (Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run): the NPUs run it after a reboot"
    )
    assert reboot_reason(DRIVER_UPGRADE) == (
        "driver 24.1.rc2 replaced by 25.2.0 (Ascend-hdk-910b-npu-driver_25.2.0_linux-aarch64.run): the installer "
        "could not reload the kernel modules, the old driver runs until a reboot"
    )
    assert reboot_reason(DRIVER_FRESH) == (
        "driver 25.2.0 installed (Ascend-hdk-910b-npu-driver_25.2.0_linux-aarch64.run): the installer asks for a reboot"
    )


def test_reboot_reasons_from_the_installer_and_predicted_in_check_mode():
    # The installer's exit code 2 (outcome reboot) adds the reason; 0 (installed) does not.
    assert reboot_reasons([], DRIVER_FRESH, "reboot", False) == [
        reboot_reason(DRIVER_FRESH)
    ]
    assert reboot_reasons([], DRIVER_FRESH, "installed", False) == []
    # Check mode runs nothing: a flash or a replaced driver is predicted to need one.
    first = reboot_reasons([], FIRMWARE, "skipped", True)
    assert reboot_reasons(first, DRIVER_UPGRADE, "skipped", True) == [
        reboot_reason(FIRMWARE),
        reboot_reason(DRIVER_UPGRADE),
    ]
    assert reboot_reasons(first, DRIVER_FRESH, "skipped", True) == first
    assert reboot_reasons(first, FIRMWARE, "installed", False) == first


def test_reboot_required_before_and_after_the_decision():
    assert reboot_required(True, []) is True
    assert reboot_required(False, ["x"]) is True
    assert reboot_required(False, []) is False
    # After: the marker decides; a reason only counts in check mode under reboot=never.
    assert reboot_required(False, ["x"], after=True) is False
    assert reboot_required(True, [], after=True) is True
    assert (
        reboot_required(False, ["x"], after=True, check_mode=True, reboot="never")
        is True
    )
    assert (
        reboot_required(False, ["x"], after=True, check_mode=True, reboot="if_needed")
        is False
    )
    assert (
        reboot_required(False, [], after=True, check_mode=True, reboot="never") is False
    )


def test_removals_on_a_real_install(ascend_node):
    root, _sysfs = ascend_node("full")
    facts = {
        "driver": files.driver(root, "/usr/local/Ascend"),
        "firmware": files.firmware(root, "/usr/local/Ascend"),
    }
    steps = removals(facts, ["driver", "firmware"])
    # Firmware first whatever the order asked for.
    assert [s["component"] for s in steps] == ["firmware", "driver"]
    assert (
        steps[0]["script"] == facts["firmware"]["install_path"] + "/script/uninstall.sh"
    )
    assert steps[1]["version"] == facts["driver"]["version"]
    assert [s["component"] for s in removals(facts, ["driver"])] == ["driver"]


def test_removals_of_nothing_installed():
    assert (
        removals(
            {"driver": None, "firmware": {"version": None}}, ["driver", "firmware"]
        )
        == []
    )
    with pytest.raises(ValueError, match="components must be of firmware, driver"):
        removals({}, ["toolkit"])


@pytest.mark.parametrize(
    ("reboot", "required", "steps", "now"),
    [
        ("never", True, ["x"], False),
        ("if_needed", True, [], True),
        ("if_needed", False, ["x"], False),
        ("always", False, ["x"], True),
        ("always", True, [], True),
        ("always", False, [], False),
    ],
)
def test_reboot_now_as_npu_driver_reboot_says(reboot, required, steps, now):
    assert reboot_now(reboot, required, steps, [])["now"] is now


def test_reboot_now_says_why():
    assert reboot_now("if_needed", True, [], ["a", "b"])["why"] == "a; b"
    assert (
        reboot_now("if_needed", True, [], [])["why"]
        == "a reboot pending since an earlier run"
    )
    assert reboot_now("always", False, ["x"], [])["why"] == "packages were installed"
