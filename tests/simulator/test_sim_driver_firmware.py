# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated driver and firmware packages: flags, files, messages, exit codes."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile

import pytest
from simutil import driver_pkg, firmware_pkg, read_fixture

from ansible_collections.cubestudio.ascend.plugins.module_utils import _npu_smi

STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
DRIVER = driver_pkg("24.1.0")
FIRMWARE = firmware_pkg("7.5.0.2.220")


def normalized(text):
    return STAMP.sub("<t>", text)


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
    assert node.read("/etc/ascend_install.info") == read_fixture(
        "installed-files", "etc-ascend_install.info"
    )


def test_missing_run_user_and_explicit_user(node):
    with open(node.p("/etc/passwd"), "w", encoding="utf-8") as handle:
        handle.write("root:x:0:0:root:/root:/bin/bash\n")
    with open(node.p("/etc/group"), "w", encoding="utf-8") as handle:
        handle.write("root:x:0:\n")
    result = full(node)
    assert result.returncode == 1
    assert "[ERROR]The user HwHiAiUser does not exist" in result.stdout
    assert not node.exists("/usr/local/Ascend/driver/version.info")
    half = full(node, "--install-username=root")
    assert half.returncode == 1 and "must be used together" in half.stdout
    ok = full(node, "--install-username=root", "--install-usergroup=root")
    assert ok.returncode == 0
    assert "set username and usergroup, root:root" in ok.stdout
    assert "UserName=root\nUserGroup=root\n" in node.read("/etc/ascend_install.info")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--full", "--full"], "parameter --full is repeated"),
        (
            ["--full", "--upgrade"],
            "Unsupported parameters combination: --full --upgrade",
        ),
        (["--full", "--install-path"], "parameter --install-path needs a value"),
        (["--install-for-all"], "Please specify an operation"),
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
        r"^\[Driver\] \[<t>\] \[ERROR\]The list of missing tools: lspci,ifconfig$",
        normalized(result.stdout),
        re.M,
    )
    node.cli("fault", "clear", "missing-tools")
    assert full(node).returncode == 0


def test_only_ifconfig_missing(node):
    os.unlink(node.p("/usr/sbin/ifconfig"))
    result = full(node)
    assert "[ERROR]The list of missing tools: ifconfig\n" in result.stdout


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
        "does not match the NPU in this system (910b, device d802)" in other_chip.stdout
    )
    other_arch = full(node, package=driver_pkg("24.1.0", arch="aarch64"))
    assert other_arch.returncode == 1
    assert (
        "architecture of the package (aarch64) does not match the system (x86_64)"
        in other_arch.stdout
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
        "[ERROR]Permission denied: the driver package must be installed by root"
        in result.stdout
    )


def test_reinstall_same_version_is_idempotent(node):
    assert full(node, "--install-for-all").returncode == 0
    before = node.tree("/usr/local/Ascend")
    again = full(node, "--install-for-all")
    assert again.returncode == 0
    assert "The new version takes effect immediately." in again.stdout
    assert node.tree("/usr/local/Ascend") == before


def test_upgrade_needs_a_reboot_and_boot_completes_it(node):
    assert full(node).returncode == 0
    upgraded = node.run(driver_pkg("25.5.0"), "--nox11", "--upgrade", "--quiet")
    assert upgraded.returncode == 2, upgraded.stdout
    assert "Driver package upgraded successfully! Reboot now" in upgraded.stdout
    assert "Version=25.5.0\n" in node.read("/usr/local/Ascend/driver/version.info")
    assert node.state()["pending_reboot"] == {"driver": "25.5.0"}
    assert "reboot:       driver 25.5.0" in node.cli("state", "show").stdout
    parsed = _npu_smi.parse_info(node.npu_smi("info").stdout)
    assert parsed["driver_version"] == "25.5.0"
    assert node.cli("boot").returncode == 0
    assert node.state()["pending_reboot"] == {}
    # --full over another version is an overwrite that also needs a reboot.
    back = full(node, package=driver_pkg("24.1.0"))
    assert (
        back.returncode == 2
        and "Driver package installed successfully! Reboot now" in back.stdout
    )


def test_upgrade_without_driver(node):
    result = node.run(DRIVER, "--upgrade", "--quiet")
    assert result.returncode == 1 and "The driver is not installed" in result.stdout


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


def test_busy_npu_blocks_a_driver_change(node):
    assert full(node).returncode == 0
    node.cli("fault", "set", "busy", "--npu", "0")
    result = node.run(driver_pkg("25.5.0"), "--upgrade", "--quiet")
    assert result.returncode == 1 and "The NPU is busy" in result.stdout
    assert "Version=24.1.0\n" in node.read("/usr/local/Ascend/driver/version.info")


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
    assert full(node, package=driver_pkg("23.0.7")).returncode == 2
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
