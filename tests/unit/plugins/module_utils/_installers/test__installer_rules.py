# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The driver installer's rules (driver-installer-rules.md): exit codes, reboot texts with
their ANSI colour codes, and the options of an upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._installer import (
    InstallOptionsError,
    install_options,
    needs_reboot,
    outcome,
    recorded_settings,
    strip_ansi,
)

OUTPUTS = Path(__file__).parents[1] / "fixtures" / "installer-output"
INSTALLED = Path(__file__).parents[1] / "fixtures" / "installed-files"

# The completion lines of driver_install.sh (installationCompletionMessage), as drvColorEcho
# prints them: "[Driver] [date] " + the text with its colour codes.
PREFIX = "[Driver] [2025-07-17 10:36:24] "
LIVE = PREFIX + (
    "[INFO]\x1b[32mDriver package upgraded successfully! The new version takes effect "
    "immediately. \x1b[0m\n"
)
REBOOT = (
    PREFIX + "[WARNING]There are some chips not ready, please check after reboot\n"
    "" + PREFIX + "[INFO]\x1b[32mDriver package upgraded successfully! \x1b[0m\x1b[31m"
    "Reboot needed for installation/upgrade to take effect! \x1b[0m\n"
)
KO_ABORT = (
    PREFIX + "[INFO]\x1b[32mDriver package upgraded finished! \x1b[0m\n"
    ""
    + PREFIX
    + "[WARNING]\x1b[33mKernel modules can not be removed, reboot needed for "
    "installation/upgrade to take effect! \x1b[0m\n"
)
DRIVER_RC = dict(success_rcs=[0, 2], reboot_rcs=[2])


def test_strip_ansi_leaves_the_text():
    assert strip_ansi(LIVE) == PREFIX + (
        "[INFO]Driver package upgraded successfully! The new version takes effect immediately. \n"
    )


def test_real_fresh_install_is_live():
    text = (OUTPUTS / "driver-910b-25.0.rc1.1-full-install.txt").read_text()
    assert outcome(0, text, **DRIVER_RC) == "live"
    assert not needs_reboot(0, text, [2])


def test_upgrade_exit_0_is_live_without_reboot():
    assert outcome(0, LIVE, **DRIVER_RC) == "live"


@pytest.mark.parametrize("text", [REBOOT, KO_ABORT])
def test_exit_2_needs_a_reboot(text):
    assert outcome(2, text, **DRIVER_RC) == "reboot"


@pytest.mark.parametrize("text", [REBOOT, KO_ABORT])
def test_reboot_texts_are_read_through_the_colour_codes(text):
    # Even when a caller does not declare 2 a reboot code, the words say it.
    assert needs_reboot(0, text, [])
    assert needs_reboot(0, strip_ansi(text), [])


def test_real_firmware_flash_needs_a_reboot():
    text = (OUTPUTS / "firmware-910b-7.7.0.1.231-full-install.txt").read_text()
    assert outcome(2, text, **DRIVER_RC) == "reboot"


def test_exit_1_and_damaged_packages_fail():
    refusal = PREFIX + (
        "[ERROR]ERR_NO:0x0004;ERR_DES:install-path param need used with "
        "full/debug/run/docker/devel.\n"
    )
    assert outcome(1, refusal, **DRIVER_RC) == "failed"
    assert (
        outcome(2, "Error in SHA256 checksums: a is different from b\n", **DRIVER_RC)
        == "failed"
    )


def info(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


REAL_INFO = info((INSTALLED / "etc-ascend_install.info").read_text())
ROOT_INFO = {
    "UserName": "root",
    "UserGroup": "root",
    "Driver_Install_Type": "full",
    "Driver_Install_Path_Param": "/opt/ascend/",
    "Driver_Install_For_All": "no",
    "Driver_Install_Mode": "normal",
    "Driver_Install_Status": "complete",
}
LABELS = {
    "install_path": "npu_driver_install_path",
    "install_for_all": "npu_driver_install_for_all",
    "install_username": "the run user",
}
NONE = {
    "install_path": None,
    "install_username": None,
    "install_usergroup": None,
    "install_for_all": False,
}


def test_recorded_settings_of_the_real_file():
    assert recorded_settings("driver", REAL_INFO) == {
        "install_path": "/usr/local/Ascend",
        "install_username": "HwHiAiUser",
        "install_usergroup": "HwHiAiUser",
        "install_for_all": True,
    }
    assert recorded_settings("firmware", REAL_INFO)["install_for_all"] is None


def test_fresh_install_passes_what_is_asked():
    asked = {
        "install_path": "/opt/ascend",
        "install_username": "root",
        "install_usergroup": "root",
        "install_for_all": True,
    }
    assert install_options("driver", "full", asked, None) == asked


def test_upgrade_passes_nothing_when_the_record_agrees():
    asked = {"install_path": "/usr/local/Ascend/", "install_for_all": True}
    assert install_options("driver", "upgrade", asked, REAL_INFO) == NONE
    assert install_options("firmware", "upgrade", asked, REAL_INFO) == NONE


def test_upgrade_without_a_record_uses_the_defaults():
    asked = {
        "install_path": "/usr/local/Ascend",
        "install_username": "HwHiAiUser",
        "install_usergroup": "HwHiAiUser",
        "install_for_all": True,
    }
    assert install_options("driver", "upgrade", asked, None) == NONE


def test_upgrade_of_a_node_first_installed_as_another_user_fails_clearly():
    asked = {
        "install_path": "/usr/local/Ascend",
        "install_username": "HwHiAiUser",
        "install_usergroup": "HwHiAiUser",
        "install_for_all": True,
    }
    with pytest.raises(InstallOptionsError) as error:
        install_options("driver", "upgrade", asked, ROOT_INFO, labels=LABELS)
    message = str(error.value)
    assert message.startswith("Cause: ")
    assert (
        "npu_driver_install_path is /usr/local/Ascend but the installed driver was "
        "installed with Driver_Install_Path_Param=/opt/ascend" in message
    )
    assert "the run user is HwHiAiUser but" in message and "UserName=root" in message
    assert (
        "install_usergroup is HwHiAiUser but" in message and "UserGroup=root" in message
    )
    assert (
        "npu_driver_install_for_all is true but the installed driver was installed with "
        "Driver_Install_For_All=no" in message
    )
    assert "/etc/ascend_install.info" in message and "Fix: " in message
    assert "/opt/ascend/driver/script/uninstall.sh" in message


def test_firmware_upgrade_compares_the_firmware_path_only():
    recorded = dict(REAL_INFO, Firmware_Install_Path_Param="/opt/fw")
    with pytest.raises(
        InstallOptionsError, match="Firmware_Install_Path_Param=/opt/fw"
    ):
        install_options(
            "firmware", "upgrade", {"install_path": "/usr/local/Ascend"}, recorded
        )
    assert (
        install_options(
            "firmware",
            "upgrade",
            {"install_path": "/opt/fw", "install_for_all": False},
            recorded,
        )
        == NONE
    )


def test_user_without_group_is_refused():
    with pytest.raises(InstallOptionsError, match="must be given together"):
        install_options("driver", "full", {"install_username": "root"}, None)


@pytest.mark.parametrize(
    ("component", "action"), [("cann", "full"), ("driver", "install")]
)
def test_bad_arguments(component, action):
    with pytest.raises(ValueError):
        install_options(component, action, {}, None)
