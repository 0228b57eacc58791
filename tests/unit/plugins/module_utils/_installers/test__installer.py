# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._installer import (
    build_command,
    diagnose,
    error_lines,
    is_damaged,
    needs_reboot,
)

OUTPUTS = Path(__file__).parents[1] / "fixtures" / "installer-output"


def test_driver_full_install_command_matches_huawei_deployer():
    argv = build_command("/pkgs/drv.run", "full", install_for_all=True)
    assert argv == [
        "/bin/bash",
        "/pkgs/drv.run",
        "--nox11",
        "--full",
        "--quiet",
        "--install-for-all",
    ]


def test_root_install_flags_and_paths():
    argv = build_command(
        "/p.run",
        "install",
        install_path="/opt/Ascend",
        install_username="root",
        install_usergroup="root",
        whitelist="nnrt",
        extra_args=["--force"],
    )
    assert argv[3:] == [
        "--install",
        "--quiet",
        "--install-path=/opt/Ascend",
        "--install-username=root",
        "--install-usergroup=root",
        "--whitelist=nnrt",
        "--force",
    ]


def test_check_has_no_quiet_and_no_install_for_all():
    assert build_command("/p.run", "check", install_for_all=True) == [
        "/bin/bash",
        "/p.run",
        "--nox11",
        "--check",
    ]


def test_runtime_without_makeself_flags():
    argv = build_command(
        "/rt.run", "install", quiet=False, nox11=False, install_scene="containerd"
    )
    assert argv == ["/bin/bash", "/rt.run", "--install", "--install-scene=containerd"]


def test_unknown_action_is_refused():
    with pytest.raises(ValueError, match="unknown action 'reinstall'"):
        build_command("/p.run", "reinstall")


def test_real_firmware_output_means_reboot():
    text = (OUTPUTS / "firmware-910b-7.7.0.1.231-full-install.txt").read_text()
    assert needs_reboot(0, text, []) is True


def test_real_fresh_driver_output_takes_effect_immediately():
    text = (OUTPUTS / "driver-910b-25.0.rc1.1-full-install.txt").read_text()
    assert needs_reboot(0, text, []) is False
    assert needs_reboot(2, text, [2]) is True


def test_engine_restart_hint_is_not_a_host_reboot():
    assert (
        needs_reboot(
            0, "[INFO] please reboot daemon and container engine to take effect", []
        )
        is False
    )


def test_missing_tools_diagnosis_names_the_tools_and_packages():
    found = diagnose(
        "[Driver] [2025-07-17 10:35:21] [ERROR]The list of missing tools: lspci,ifconfig\n"
    )
    assert found == {
        "cause": "the installer needs tools that are not installed: lspci,ifconfig",
        "fix": "install them (lspci is in pciutils, ifconfig in net-tools) and run again",
    }


def test_successful_dkms_line_is_not_a_dkms_failure():
    text = (OUTPUTS / "driver-910b-25.0.rc1.1-full-install.txt").read_text()
    assert diagnose(text) is None


def test_dkms_failure_is_recognised():
    found = diagnose("[Driver] [ERROR]dkms build failed, please check kernel headers")
    assert found is not None and "DKMS" in found["cause"]


def test_archive_integrity_ok_is_not_corruption_but_failure_is():
    assert (
        diagnose(
            "Verifying archive integrity...  100%   SHA256 checksums are OK. All good."
        )
        is None
    )
    assert diagnose(
        "Verifying archive integrity... Error in SHA256 checksums: checksums are not OK"
    )["cause"].startswith("the package is damaged")


@pytest.mark.parametrize(
    "text",
    [
        "Error in SHA256 checksums: 1a2b is different from 3c4d",
        " Unexpected archive size.",
    ],
)
def test_makeself_damage_texts(text):
    assert is_damaged(text) is True
    assert diagnose(text)["fix"] == "download the package again and check its sha256"


def test_success_output_is_not_damage():
    assert (
        is_damaged((OUTPUTS / "driver-910b-25.0.rc1.1-check.txt").read_text()) is False
    )


def test_error_lines_keeps_the_last_ones():
    text = "\n".join(["[INFO]a", "[ERROR]one", "[INFO]b", "[ERROR]two", "error: three"])
    assert error_lines(text, limit=2) == ["[ERROR]two", "error: three"]


def test_an_installed_uninstall_script_runs_with_its_own_arguments_only():
    assert build_command(
        "/usr/local/Ascend/driver/script/uninstall.sh",
        "uninstall",
        script=True,
        install_path="/ignored",
        extra_args=["--force"],
    ) == ["/bin/bash", "/usr/local/Ascend/driver/script/uninstall.sh", "--force"]


def test_an_installed_script_only_uninstalls():
    with pytest.raises(ValueError, match="only uninstall"):
        build_command("/x/script/uninstall.sh", "full", script=True)


def test_the_driver_uninstaller_asks_for_a_reboot():
    text = "Driver package uninstalled successfully! Reboot now to take effect."
    assert needs_reboot(0, text, [])
