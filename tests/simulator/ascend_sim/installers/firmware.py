# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated NPU firmware package (Ascend-hdk-<chip>-npu-firmware_<7.x.y.z.b>.run).

The firmware is flashed through the driver's upgrade-tool, so the driver must be installed
completely first (Huawei's order: driver then firmware on a fresh host). The new firmware is
active only after a reboot (``ascend-sim boot``): npu-smi's board view shows the old one until
then. Exit codes: 2 after a flash (success, reboot needed; GUESS), 0 when the same version is
already flashed (nothing to do) or for --check/--version/--uninstall, 1 on failure.
"""

from __future__ import annotations

import os

from .. import catalog, hardware
from . import common

FLAGS = (
    "--full",
    "--run",
    "--upgrade",
    "--uninstall",
    "--version",
    "--check",
    "--quiet",
    "--nox11",
    "--install-for-all",
    "--force",
)
VALUES = ("--install-path", "--install-username", "--install-usergroup")
MODES = ("--full", "--run", "--upgrade", "--uninstall", "--version", "--check")

HELP = """\
  --full                            Install (flash) the firmware
  --run                             Same as --full
  --upgrade                         Upgrade the firmware
  --uninstall                       Remove the firmware package record
  --version                         Print the version of the package
  --install-path=<path>             Install path, default /usr/local/Ascend
  --install-username=<username>     Running user, default HwHiAiUser
  --install-usergroup=<usergroup>   Running user group, default HwHiAiUser
  --install-for-all                 Accepted for symmetry with the driver package
  --force                           Force the upgrade even when the version is the same
"""


def install(meta, opts, log):
    recorded = common.read_kv(common.INSTALL_INFO).get("Firmware_Install_Path_Param")
    # An upgrade without --install-path keeps the recorded path (like the driver; GUESS).
    default = (recorded if "--upgrade" in opts else None) or "/usr/local/Ascend"
    install_path = opts.get("--install-path", default).rstrip("/")
    version = meta["version"]
    log.warning(
        "Do not power off or restart the system during the installation/upgrade"
    )
    state = hardware.load_state(required=False)
    if state is None or not state.get("npus"):
        log.error("No Ascend device is found in the system, please check the hardware")
        return 1
    if state["family"] != meta["chip"]:
        log.error(
            "The firmware package (%s) does not match the NPU in this system (%s, device %s)"
            % (meta["chip"], state["family"], state["pci_device"])
        )
        return 1
    driver_base = (
        common.read_kv(common.INSTALL_INFO)
        .get("Driver_Install_Path_Param", "/usr/local/Ascend")
        .rstrip("/")
    )
    tool = driver_base + "/driver/tools/upgrade-tool"
    if not os.path.isfile(
        common.rooted(driver_base + "/driver/version.info")
    ) or not os.path.isfile(common.rooted(tool)):
        log.error(
            "The driver is not installed or not installed completely (%s not found), "
            "install the driver first" % tool
        )
        return 1
    user = opts.get("--install-username")
    group = opts.get("--install-usergroup")
    if (user is None) != (group is None):
        log.error("--install-username and --install-usergroup must be used together")
        return 1
    if user is not None:
        problem = common.check_run_user(user, group)
        if problem:
            log.error(problem)
            return 1

    installed = common.read_kv(install_path + "/firmware/version.info").get("Version")
    flashed = (state.get("pending_reboot") or {}).get("firmware") or state.get(
        "firmware_active"
    )
    if installed == version and flashed == version and "--force" not in opts:
        log.info(
            "The firmware version %s is already installed, no need to upgrade" % version
        )
        common.operation_log("Firmware", "Install", "success", meta["file"])
        return 0

    chips = sum(len(npu["chips"]) for npu in state["npus"])
    log.info("upgradePercentage: 0%")
    common.write(
        install_path + "/firmware/version.info",
        catalog.version_info_text(catalog.FIRMWARE_VERSION_INFO[version]),
        0o444,
    )
    common.install_uninstaller(install_path + "/firmware/script", meta)
    for _report in range(3):  # the real flash reports 90% while the chips are written
        log.info("upgradePercentage: 90%")
    updates = {
        "Firmware_Install_Type": "full",
        "Firmware_Install_Path_Param": install_path,
    }
    if user is not None:
        updates.update(UserName=user, UserGroup=group)
    common.update_install_info(updates)
    state = hardware.load_state()
    state.setdefault("pending_reboot", {})["firmware"] = version
    hardware.save_state(state)
    log.info("upgradePercentage: 100%")
    log.info("The firmware of [%d] chips are successfully upgraded." % chips)
    word = "upgraded" if "--upgrade" in opts else "installed"
    log.info(
        "Firmware package %s successfully! Reboot now or after driver installation for the "
        "installation/upgrade to take effect." % word
    )
    common.operation_log("Firmware", "Install", "success", meta["file"])
    return 2


def uninstall(meta, install_path, log):
    install_path = install_path.rstrip("/")
    if not os.path.isfile(common.rooted(install_path + "/firmware/version.info")):
        log.error("The firmware package is not installed in %s" % install_path)
        return 1
    common.remove_tree(install_path + "/firmware")
    common.update_install_info(
        {}, remove=("Firmware_Install_Type", "Firmware_Install_Path_Param")
    )
    log.info(
        "Firmware package uninstalled successfully! The flashed firmware stays on the device."
    )
    common.operation_log("Firmware", "Uninstall", "success", meta["file"])
    return 0


def main(args, meta, runfile):
    log = common.HdkLog("Firmware")
    try:
        opts = common.parse_options(args, FLAGS, VALUES)
    except common.UsageError as err:
        log.error(str(err))
        return 1
    modes = [m for m in MODES if m in opts]
    mode = common.pick_mode(
        modes,
        log,
        runfile,
        HELP,
        "Please specify an operation: --full, --upgrade or --uninstall",
    )
    if mode is None:
        return 1
    if mode == "--version":
        common.out("%s\n" % meta["version"])
        return 0
    log.start()
    try:
        if mode == "--check":
            return 0
        if common.euid() != 0:
            log.error(
                "Permission denied: the firmware package must be installed by root"
            )
            return 1
        if mode == "--uninstall":
            return uninstall(meta, opts.get("--install-path", "/usr/local/Ascend"), log)
        return install(meta, opts, log)
    finally:
        log.end()
