# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated driver and firmware packages: flags, files, messages, exit codes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time

import pytest
from simutil import driver_pkg, firmware_pkg, read_fixture

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _npu_smi

STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DRIVER = driver_pkg("24.1.0")
FIRMWARE = firmware_pkg("7.5.0.2.220")


def normalized(text):
    """Timestamps masked and the ANSI colour codes removed (the real samples lost them)."""
    return ANSI.sub("", STAMP.sub("<t>", text))


def full(node, *extra, package=DRIVER):
    return node.run(package, "--nox11", "--full", "--quiet", *extra)


def test_fresh_install_prints_what_the_real_driver_prints(node):
    result = node.run(
        DRIVER,
        "--full",
        "--install-username=root",
        "--install-usergroup=root",
        "--install-for-all",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    real = read_fixture("installer-output", "driver-910b-25.0.rc1.1-full-install.txt")
    assert normalized(result.stdout) == normalized(real)


def test_fresh_install_writes_the_real_files(node):
    result = full(node, "--install-for-all")
    assert result.returncode == 0, result.stdout
    info = node.read("/usr/local/Ascend/driver/version.info")
    keys = [line.split("=", 1)[0] for line in info.splitlines()]
    real_keys = [
        line.split("=", 1)[0]
        for line in read_fixture(
            "installed-files", "driver-version.info.23.0.7"
        ).splitlines()
    ]
    assert keys == real_keys
    assert (
        "Version=24.1.0\n" in info and "compatible_version_fw=[7.0.0,7.5.99]\n" in info
    )
    assert node.read("/etc/ascend_install.info") == (
        "UserName=HwHiAiUser\nUserGroup=HwHiAiUser\nDriver_Install_Type=full\n"
        "Driver_Install_Path_Param=/usr/local/Ascend\nDriver_Install_For_All=yes\n"
        "Driver_Install_Mode=normal\nDriver_Install_Status=complete\n"
    )
    for path in (
        "/usr/local/Ascend/driver/tools/upgrade-tool",
        "/usr/local/Ascend/driver/tools/hccn_tool",
        "/usr/local/Ascend/driver/script/uninstall.sh",
        "/usr/local/Ascend/driver/lib64/driver/libascend_hal.so",
        "/usr/local/Ascend/driver/lib64/common/libc_sec.so",
        "/usr/local/dcmi/libdcmi.so",
        "/usr/local/sbin/npu-smi",
    ):
        assert node.exists(path), path
    for name in ["davinci%d" % i for i in range(8)] + [
        "davinci_manager",
        "devmm_svm",
        "hisi_hdc",
    ]:
        info = os.stat(node.p("/dev/" + name))
        assert stat.S_ISCHR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o666
        assert info.st_gid == 1000  # HwHiAiUser
    log = node.read("/var/log/ascend_seclog/ascend_install.log")
    assert "[Driver]" in log and "Driver package installed successfully!" in log
    assert "[Install] [success] %s" % DRIVER in node.read(
        "/var/log/ascend_seclog/operation.log"
    )
    smi = node.npu_smi("info")
    parsed = _npu_smi.parse_info(smi.stdout)
    assert (parsed["tool_version"], parsed["driver_version"], parsed["npu_count"]) == (
        "24.1.0",
        "24.1.0",
        8,
    )


def test_real_version_files_for_23_0_7_and_the_shared_install_info(node):
    assert full(node, "--install-for-all", package=driver_pkg("23.0.7")).returncode == 0
    assert node.read("/usr/local/Ascend/driver/version.info") == read_fixture(
        "installed-files", "driver-version.info.23.0.7"
    )
    result = node.run(firmware_pkg("7.1.0.11.220"), "--nox11", "--full", "--quiet")
    assert result.returncode == 2
    assert node.read("/usr/local/Ascend/firmware/version.info") == read_fixture(
        "installed-files", "firmware-version.info.7.1.0.11.220"
    )
    # The sample predates Driver_Install_Mode/_Status (written by today's scripts, last).
    lines = node.read("/etc/ascend_install.info").splitlines(True)
    assert lines[-2:] == [
        "Driver_Install_Mode=normal\n",
        "Driver_Install_Status=complete\n",
    ]
    assert "".join(lines[:-2]) == read_fixture(
        "installed-files", "etc-ascend_install.info"
    )


def test_missing_run_user_and_explicit_user(node):
    with open(node.p("/etc/passwd"), "w", encoding="utf-8") as handle:
        handle.write("root:x:0:0:root:/root:/bin/bash\n")
    with open(node.p("/etc/group"), "w", encoding="utf-8") as handle:
        handle.write("root:x:0:\n")
    result = full(node)
    assert result.returncode == 1
    assert (
        "[ERROR]ERR_NO:0x0091;ERR_DES:HwHiAiUser not exists! Please add HwHiAiUser\n"
        in result.stdout
    )
    assert not node.exists("/usr/local/Ascend/driver/version.info")
    half = full(node, "--install-username=root")
    assert half.returncode == 1
    assert (
        "[ERROR]ERR_NO:0x0004;ERR_DES:Username and usergroup are not specified at the "
        "same time." in half.stdout
    )
    ok = full(node, "--install-username=root", "--install-usergroup=root")
    assert ok.returncode == 0
    assert "set username and usergroup, root:root" in ok.stdout
    assert "UserName=root\nUserGroup=root\n" in node.read("/etc/ascend_install.info")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--full", "--full"],
            "only support one type: full/debug/run/docker/devel, operation failed!",
        ),
        (
            ["--full", "--upgrade"],
            "The parameter needs to be used with full/debug/run/docker/upgrade/devel.",
        ),
        (["--full", "--install-path"], "Unrecognized parameters: --install-path."),
        (["--full", "--install-path="], "ERR_NO:0x0003;ERR_DES:install path is null"),
    ],
)
def test_command_line_errors(node, args, message):
    result = node.run(DRIVER, *args)
    assert result.returncode == 1
    assert message in result.stdout
    assert not node.exists("/usr/local/Ascend")


def test_unknown_flag_is_refused_by_the_makeself_layer(node):
    result = node.run(DRIVER, "--full", "--unknown-flag")
    assert result.returncode == 1
    assert (
        "Usage:" in result.stderr and "--install-username=<username>" in result.stderr
    )
    assert "Verifying archive integrity" not in result.stdout


def test_missing_tools_error_is_the_real_text(node):
    node.cli("fault", "set", "missing-tools")
    result = full(node)
    assert result.returncode == 1
    assert re.search(
        r"^\[Driver\] \[<t>\] \[ERROR\]The list of missing tools: lspci,ifconfig,$",
        normalized(result.stdout),
        re.M,
    )
    node.cli("fault", "clear", "missing-tools")
    assert full(node).returncode == 0


def test_only_ifconfig_missing(node):
    os.unlink(node.p("/usr/sbin/ifconfig"))
    result = full(node)
    assert "[ERROR]The list of missing tools: ifconfig,\n" in result.stdout


def test_kernel_headers_missing_fails_the_dkms_build(node):
    node.cli("fault", "set", "no-kernel-headers")
    result = full(node)
    assert result.returncode == 1
    assert (
        "DKMS build of the driver failed" in result.stdout
        and "kernel-headers" in result.stdout
    )
    assert not node.exists("/usr/local/Ascend/driver")
    node.cli("fault", "clear", "no-kernel-headers")
    assert full(node).returncode == 0


def test_wrong_chip_and_wrong_arch(node):
    other_chip = full(node, package=driver_pkg("24.1.0", chip="310p"))
    assert other_chip.returncode == 1
    assert (
        "[ERROR]The current installation package and environment is not match, please check."
        in other_chip.stdout
    )
    other_arch = full(node, package=driver_pkg("24.1.0", arch="aarch64"))
    assert other_arch.returncode == 1
    assert (
        "[ERROR]Arch mismatch, src package is aarch64, cur os is x86_64 "
        in normalized(other_arch.stdout)
    )
    as_arm = node.run(
        driver_pkg("24.1.0", arch="aarch64"),
        "--full",
        env={"ASCEND_SIM_ARCH": "aarch64"},
    )
    assert as_arm.returncode == 0


def test_no_hardware(sim):
    sim.add_hwhiaiuser()
    result = full(sim)
    assert result.returncode == 1 and "No Ascend device is found" in result.stdout


def test_must_be_root(packages):
    shared = tempfile.mkdtemp(prefix="ascend-sim-nobody-")
    try:
        os.chmod(shared, 0o777)
        path = packages.copy(DRIVER, shared)
        os.chmod(path, 0o755)
        env = dict(os.environ, ASCEND_SIM_ROOT=shared, HOME=shared, TMPDIR=shared)
        result = subprocess.run(
            ["bash", path, "--full", "--quiet"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            user="nobody",
            cwd=shared,
        )
    finally:
        shutil.rmtree(shared)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "[ERROR]ERR_NO:0x0093;ERR_DES:do not have root permission, operation failed, "
        "please use root permission!" in result.stdout
    )


def test_reinstall_same_version_is_idempotent(node):
    assert full(node, "--install-for-all").returncode == 0
    before = node.tree("/usr/local/Ascend")
    again = full(node, "--install-for-all")
    assert again.returncode == 0
    assert "The new version takes effect immediately." in again.stdout
    assert node.tree("/usr/local/Ascend") == before


def test_upgrade_with_a_working_hot_reset_is_live_at_once(node):
    assert full(node).returncode == 0
    upgraded = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert upgraded.returncode == 0, upgraded.stdout
    assert (
        "[INFO]\x1b[32mDriver package upgraded successfully! The new version takes effect "
        "immediately. \x1b[0m\n" in upgraded.stdout
    )
    assert "Reboot" not in upgraded.stdout
    assert "Version=25.5.0\n" in node.read("/usr/local/Ascend/driver/version.info")
    assert node.state()["pending_reboot"] == {}
    parsed = _npu_smi.parse_info(node.npu_smi("info").stdout)
    assert (parsed["tool_version"], parsed["driver_version"]) == ("25.5.0", "25.5.0")
    assert "[Upgrade] [success]" in node.read("/var/log/ascend_seclog/operation.log")
    log = node.read("/var/log/ascend_seclog/ascend_install.log")
    assert "[INFO]UserCommand: %s --upgrade --quiet\n" % driver_pkg("25.5.0") in log


def test_upgrade_needs_a_reboot_when_the_hot_reset_fails(node):
    assert full(node).returncode == 0
    node.cli("fault", "set", "hot-reset-fails")
    upgraded = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert upgraded.returncode == 2, upgraded.stdout
    text = normalized(upgraded.stdout)
    assert (
        "[WARNING]There are some chips not ready, please check after reboot\n" in text
    )
    assert (
        "[INFO]Driver package upgraded successfully! Reboot needed for installation/upgrade "
        "to take effect! \n" in text
    )
    assert "\x1b[31mReboot needed" in upgraded.stdout
    assert "Version=25.5.0\n" in node.read("/usr/local/Ascend/driver/version.info")
    assert node.state()["pending_reboot"] == {"driver": "25.5.0"}
    assert "reboot:       driver 25.5.0" in node.cli("state", "show").stdout
    assert node.cli("boot").returncode == 0
    assert node.state()["pending_reboot"] == {}
    # --full over another version is an install (not an upgrade) with the same outcome.
    back = full(node, package=driver_pkg("24.1.0"))
    assert back.returncode == 2
    assert "Driver package installed successfully! Reboot needed" in normalized(
        back.stdout
    )
    node.cli("fault", "clear", "hot-reset-fails")
    assert full(node, package=driver_pkg("24.1.0")).returncode == 0


def test_fresh_install_can_exit_2(node):
    node.cli("fault", "set", "hot-reset-fails")
    result = full(node)
    assert result.returncode == 2, result.stdout
    assert "Driver package installed successfully! Reboot needed" in normalized(
        result.stdout
    )
    # Installed all the same: files, status and (in the simulator) the device nodes.
    assert node.read("/etc/ascend_install.info").endswith(
        "Driver_Install_Status=complete\n"
    )
    assert node.exists("/dev/davinci0")


def test_upgrade_without_a_driver_is_a_fresh_install(node):
    result = node.run(DRIVER, "--nox11", "--upgrade", "--quiet")
    assert result.returncode == 0, result.stdout
    assert "Driver package installed successfully! The new version" in result.stdout
    info = node.read("/etc/ascend_install.info")
    assert (
        "Driver_Install_Type=full\n" in info and "Driver_Install_For_All=no\n" in info
    )


UPGRADE_REFUSALS = [
    (
        ["--install-path=/opt/ascend"],
        "install-path param need used with full/debug/run/docker/devel.",
    ),
    (
        ["--install-for-all"],
        "install-for-all param need used with full/debug/run/devel.",
    ),
    (
        ["--install-username=root", "--install-usergroup=root"],
        "install-username and install-usergroup params need used with "
        "full/debug/run/docker/devel.",
    ),
]


@pytest.mark.parametrize(("extra", "message"), UPGRADE_REFUSALS)
def test_upgrade_refuses_path_user_and_for_all(node, extra, message):
    assert full(node).returncode == 0
    before = node.tree("/usr/local/Ascend"), node.read("/etc/ascend_install.info")
    result = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet", *extra)
    assert result.returncode == 1, result.stdout
    assert "[ERROR]ERR_NO:0x0004;ERR_DES:%s\n" % message in result.stdout
    assert (
        node.tree("/usr/local/Ascend"),
        node.read("/etc/ascend_install.info"),
    ) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--check", "--quiet"], "version/check can't use with other parameters."),
        (["--version", "--full"], "version/check can't use with other parameters."),
        (
            ["--uninstall", "--quiet"],
            "uninstall can't use with other parameters except force.",
        ),
        (
            ["--uninstall", "--install-path=/usr/local/Ascend"],
            "uninstall can't use with other parameters except force.",
        ),
        (
            ["--quiet", "--install-for-all"],
            "The parameter needs to be used with full/debug/run/docker/upgrade/devel.",
        ),
        (
            ["--install-usergroup=root", "--full"],
            "Username and usergroup are not specified at the same time.",
        ),
    ],
)
def test_parameter_refusals_change_nothing(node, args, message):
    assert full(node).returncode == 0
    before = node.tree("/usr/local/Ascend"), node.read("/etc/ascend_install.info")
    result = node.run(DRIVER, *args)
    assert result.returncode == 1, result.stdout
    assert "[ERROR]ERR_NO:0x0004;ERR_DES:%s\n" % message in result.stdout
    assert (
        node.tree("/usr/local/Ascend"),
        node.read("/etc/ascend_install.info"),
    ) == before


def test_uninstall_with_force_is_accepted(node):
    assert full(node).returncode == 0
    result = node.run(DRIVER, "--uninstall", "--force")
    assert result.returncode == 0, result.stdout
    assert not node.exists("/usr/local/Ascend/driver")


def test_upgrade_keeps_the_user_path_and_for_all_of_the_first_install(node):
    os.makedirs(node.p("/opt"), mode=0o755)
    first = full(
        node,
        "--install-path=/opt/ascend",
        "--install-username=root",
        "--install-usergroup=root",
        "--install-for-all",
    )
    assert first.returncode == 0, first.stdout
    upgraded = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert upgraded.returncode == 0, upgraded.stdout
    assert "set username and usergroup, root:root" in upgraded.stdout
    assert "Version=25.5.0\n" in node.read("/opt/ascend/driver/version.info")
    assert not node.exists("/usr/local/Ascend/driver")
    assert node.read("/etc/ascend_install.info") == (
        "UserName=root\nUserGroup=root\nDriver_Install_Type=full\n"
        "Driver_Install_Path_Param=/opt/ascend\nDriver_Install_For_All=yes\n"
        "Driver_Install_Mode=normal\nDriver_Install_Status=complete\n"
    )
    assert stat.S_IMODE(os.stat(node.p("/dev/davinci0")).st_mode) == 0o666


def test_a_node_first_installed_as_another_user(node):
    assert (
        full(node, "--install-username=root", "--install-usergroup=root").returncode
        == 0
    )
    # A fresh install as HwHiAiUser over it is refused: the user of the first install stays.
    other = full(
        node, "--install-username=HwHiAiUser", "--install-usergroup=HwHiAiUser"
    )
    assert other.returncode == 1
    assert (
        "[ERROR]ERR_NO:0x0095;ERR_DES:The user and group are not same with last "
        "installation,do not support overwriting installation" in other.stdout
    )
    # --full without user flags over a root install is refused too (env_check.sh).
    plain = full(node)
    assert plain.returncode == 1
    assert "ERR_NO:0x0091;ERR_DES:username not permission for root" in plain.stdout
    # The upgrade keeps root:root.
    upgraded = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert upgraded.returncode == 0, upgraded.stdout
    assert "UserName=root\nUserGroup=root\n" in node.read("/etc/ascend_install.info")


def test_half_install_has_no_status_and_npu_smi_warns(node):
    assert full(node).returncode == 0
    assert "Warning" not in node.npu_smi("info").stdout
    node.cli("fault", "set", "partial-driver")
    broken = node.run(driver_pkg("25.5.0"), "--nox11", "--full", "--quiet")
    assert broken.returncode == 1
    info = node.read("/etc/ascend_install.info")
    assert "Driver_Install_Status" not in info and "Driver_Install_Type=full\n" in info
    smi = node.npu_smi("info")
    assert "The driver package may not be completely installed" in smi.stdout
    assert _npu_smi.parse_info(smi.stdout)["npu_count"] == 8
    node.cli("fault", "clear", "partial-driver")
    assert full(node).returncode == 0
    assert node.read("/etc/ascend_install.info").endswith(
        "Driver_Install_Status=complete\n"
    )
    assert "may not be completely installed" not in node.npu_smi("info").stdout


def test_parent_folders_must_be_root_owned_755(node):
    os.makedirs(node.p("/opt/shared"), mode=0o755)
    os.chmod(node.p("/opt/shared"), 0o777)
    os.chmod(node.p("/opt"), 0o700)
    small = full(node, "--install-path=/opt/shared/ascend")
    assert small.returncode == 1
    assert (
        "[ERROR]The given directory, or its parents, permission is too small, details in : "
        "/var/log/ascend_seclog/ascend_install.log " in normalized(small.stdout)
    )
    os.chmod(node.p("/opt"), 0o755)
    os.chown(node.p("/opt/shared"), 65534, 65534)
    owner = full(node, "--install-path=/opt/shared/ascend")
    assert owner.returncode == 1
    assert (
        "[ERROR]The given directory, including its parents, should belong to root"
        in normalized(owner.stdout)
    )
    assert not node.exists("/opt/shared/ascend/driver")
    os.chown(node.p("/opt/shared"), 0, 0)
    os.chmod(node.p("/opt"), 0o750)  # 750 is enough with --install-for-all
    assert (
        full(node, "--install-path=/opt/shared/ascend", "--install-for-all").returncode
        == 0
    )


def test_a_second_installer_at_the_same_time_is_refused(node):
    import fcntl  # pylint: disable=import-outside-toplevel

    lock = node.p("/var/lib/ascend-sim/hdk-installer.lock")
    with open(lock, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        result = full(node)
    assert result.returncode == 1
    assert (
        "[ERROR]ERR_NO:0x0094;ERR_DES:There is already a process being executed,please "
        "do not execute multiple tasks at the same time" in result.stdout
    )
    assert not node.exists("/usr/local/Ascend/driver")
    assert full(node).returncode == 0


def test_all_required_tools_are_checked(node):
    for tool in ("udevadm", "rev"):
        os.unlink(node.p("/usr/bin/" + tool))
    os.unlink(node.p("/usr/bin/update-rc.d"))
    result = full(node)
    assert result.returncode == 1
    assert (
        "[ERROR]The list of missing tools: update-rc.d,chkconfig,udevadm,rev,\n"
        in result.stdout
    )
    for tool in ("udevadm", "rev", "chkconfig"):  # chkconfig stands in for update-rc.d
        node.write("/usr/bin/" + tool, "#!/bin/sh\n", 0o755)
    assert full(node).returncode == 0


def test_npu_smi_in_both_places_mode_555(node):
    assert full(node).returncode == 0
    for path in ("/usr/local/bin/npu-smi", "/usr/local/sbin/npu-smi"):
        assert stat.S_IMODE(os.stat(node.p(path)).st_mode) == 0o555
    assert node.read("/usr/local/bin/npu-smi") == node.read("/usr/local/sbin/npu-smi")


def test_partial_driver(node):
    node.cli("fault", "set", "partial-driver")
    broken = full(node)
    assert broken.returncode == 1
    assert "Driver package install failed" in broken.stdout
    assert node.exists("/usr/local/Ascend/driver/version.info")
    assert not node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")
    node.cli("fault", "clear", "partial-driver")
    refused = node.run(driver_pkg("25.5.0"), "--upgrade", "--quiet")
    assert refused.returncode == 1 and "tools/upgrade-tool is missing" in refused.stdout
    firmware = node.run(FIRMWARE, "--full", "--quiet")
    assert firmware.returncode == 1 and "install the driver first" in firmware.stdout
    assert full(node).returncode == 0
    assert node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")


def test_partial_driver_on_an_installed_driver(node):
    assert full(node).returncode == 0
    node.cli("fault", "set", "partial-driver")
    assert not node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")
    node.cli("fault", "clear", "partial-driver")
    assert node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")


def test_busy_npu_is_not_refused_but_needs_a_reboot(node):
    assert full(node).returncode == 0
    node.cli("fault", "set", "busy", "--npu", "0")
    result = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert result.returncode == 2, result.stdout
    text = normalized(result.stdout)
    assert "[INFO]Driver package upgraded finished! \n" in text
    assert (
        "[WARNING]Kernel modules can not be removed, reboot needed for installation/upgrade "
        "to take effect! \n" in text
    )
    assert "Version=25.5.0\n" in node.read("/usr/local/Ascend/driver/version.info")
    assert node.state()["pending_reboot"] == {"driver": "25.5.0"}


def test_uninstall_script_removes_the_driver(node):
    assert full(node, "--install-for-all").returncode == 0
    assert node.run(FIRMWARE, "--full", "--quiet").returncode == 2
    result = subprocess.run(
        ["bash", node.p("/usr/local/Ascend/driver/script/uninstall.sh")],
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Driver package uninstalled successfully!" in result.stdout
    assert not node.exists("/usr/local/Ascend/driver")
    assert not node.exists("/usr/local/sbin/npu-smi")
    assert not node.exists("/usr/local/bin/npu-smi")
    assert not node.exists("/dev/davinci0")
    assert node.read("/etc/ascend_install.info") == (
        "UserName=HwHiAiUser\nUserGroup=HwHiAiUser\nFirmware_Install_Type=full\n"
        "Firmware_Install_Path_Param=/usr/local/Ascend\n"
    )
    again = node.run(DRIVER, "--uninstall")
    assert again.returncode == 1 and "not installed" in again.stdout


def test_custom_install_path(node):
    result = full(node, "--install-path=/opt/ascend")
    assert result.returncode == 0
    assert node.exists("/opt/ascend/driver/version.info")
    assert "Driver_Install_Path_Param=/opt/ascend\n" in node.read(
        "/etc/ascend_install.info"
    )
    parsed = _npu_smi.parse_info(node.npu_smi("info").stdout)
    assert parsed["driver_version"] == "24.1.0"


def test_firmware_prints_what_the_real_firmware_prints(node):
    assert full(node).returncode == 0
    result = node.run(FIRMWARE, "--full")
    assert result.returncode == 2
    real = read_fixture(
        "installer-output", "firmware-910b-7.7.0.1.231-full-install.txt"
    )
    assert normalized(result.stdout) == normalized(real)


def test_firmware_needs_the_driver_first(node):
    result = node.run(FIRMWARE, "--full", "--quiet")
    assert result.returncode == 1
    assert "install the driver first" in result.stdout
    assert not node.exists("/usr/local/Ascend/firmware")


def test_firmware_is_active_after_reboot_only(node):
    assert full(node).returncode == 0

    def board_firmware():
        out = node.npu_smi("info", "-t", "board", "-i", "0").stdout
        return _npu_smi.parse_board(out)

    assert board_firmware()["firmware_version"] == "7.1.0.11.220"  # factory firmware
    flashed = node.run(FIRMWARE, "--full", "--quiet")
    assert flashed.returncode == 2
    assert "Version=7.5.0.2.220\n" in node.read(
        "/usr/local/Ascend/firmware/version.info"
    )
    assert "Firmware_Install_Type=full\n" in node.read("/etc/ascend_install.info")
    assert board_firmware()["firmware_version"] == "7.1.0.11.220"
    node.cli("boot")
    board = board_firmware()
    assert (board["firmware_version"], board["compatibility"]) == ("7.5.0.2.220", "OK")
    same = node.run(FIRMWARE, "--full", "--quiet")
    assert (
        same.returncode == 0 and "already installed, no need to upgrade" in same.stdout
    )
    forced = node.run(FIRMWARE, "--full", "--quiet", "--force")
    assert forced.returncode == 2
    # Driver 23.0.7 accepts firmware [7.0.0,7.1.99] only.
    assert full(node, package=driver_pkg("23.0.7")).returncode == 0
    assert board_firmware()["compatibility"] == "NOT OK"


def test_firmware_for_another_chip(node):
    assert full(node).returncode == 0
    result = node.run(firmware_pkg("7.5.0.2.220", chip="910"), "--full", "--quiet")
    assert result.returncode == 1 and "does not match the NPU" in result.stdout


def test_upgrade_tool_reads_the_firmware_version(node):
    assert full(node).returncode == 0
    assert node.run(FIRMWARE, "--full", "--quiet").returncode == 2
    tool = subprocess.run(
        [
            node.p("/usr/local/Ascend/driver/tools/upgrade-tool"),
            "--device_index",
            "-1",
            "--system_version",
        ],
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )
    assert (
        tool.returncode == 0
        and "succeed" in tool.stdout
        and "7.5.0.2.220" in tool.stdout
    )


def test_npu_smi_without_the_driver_files_shows_its_own_version(node):
    """/usr/local/sbin/npu-smi is a file; without version.info it reports its own version."""
    assert full(node).returncode == 0
    assert os.path.isfile(node.p("/usr/local/sbin/npu-smi"))
    shutil.rmtree(node.p("/usr/local/Ascend/driver"))
    smi = node.npu_smi("info")
    parsed = _npu_smi.parse_info(smi.stdout)
    assert parsed["driver_version"] == "24.1.0"  # the tool's own version stands in


def test_slow_install_killed_mid_way_leaves_a_half_install(node):
    # The window of a dropped connection or a reboot: killed there, the install is half done.
    node.cli("fault", "set", "slow-install", "--seconds", "30")
    proc = subprocess.Popen(
        ["bash", node.packages.path(DRIVER), "--nox11", "--full", "--quiet"],
        env=node.env,
        cwd=node.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not node.exists("/usr/local/Ascend/driver/version.info"):
            assert time.monotonic() < deadline, "the install never got under way"
            assert proc.poll() is None, "the installer ended before its pause"
            time.sleep(0.2)
        time.sleep(0.5)
        assert proc.poll() is None
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")
    # A fresh install killed there: version.info without the rest, and no install record.
    assert node.exists("/usr/local/Ascend/driver/version.info")
    assert not node.exists("/etc/ascend_install.info")
    node.cli("fault", "clear", "slow-install")
    started = time.monotonic()
    assert full(node).returncode == 0
    assert time.monotonic() - started < 20  # no pause once the knob is cleared
    assert node.exists("/usr/local/Ascend/driver/tools/upgrade-tool")


def _script(node, path):
    return subprocess.run(
        ["bash", node.p(path)],
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )


def test_uninstall_firmware_then_driver_then_install_again_as_on_a_new_node(node):
    """What playbooks/uninstall.yml runs, and site.yml after it."""
    assert full(node, "--install-for-all").returncode == 0
    assert node.run(FIRMWARE, "--nox11", "--full", "--quiet").returncode == 2
    firmware = _script(node, "/usr/local/Ascend/firmware/script/uninstall.sh")
    assert firmware.returncode == 0, firmware.stdout + firmware.stderr
    assert "Firmware package uninstalled successfully!" in firmware.stdout
    assert not node.exists("/usr/local/Ascend/firmware")
    driver = _script(node, "/usr/local/Ascend/driver/script/uninstall.sh")
    assert driver.returncode == 0, driver.stdout + driver.stderr
    assert "Reboot now to take effect" in driver.stdout
    info = (
        node.read("/etc/ascend_install.info")
        if node.exists("/etc/ascend_install.info")
        else ""
    )
    assert "Driver_" not in info and "Firmware_" not in info
    assert not node.exists("/dev/davinci0")
    again = full(node, "--install-for-all")
    assert again.returncode == 0, again.stdout
    assert node.exists("/dev/davinci0") and node.exists("/dev/davinci7")
    assert node.run(FIRMWARE, "--nox11", "--full", "--quiet").returncode == 2
    assert "Version=7.5.0.2.220" in node.read("/usr/local/Ascend/firmware/version.info")
