# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated NPU driver package (Ascend-hdk-<chip>-npu-driver_<ver>_linux-<arch>.run).

Exit codes: 0 success (fresh install or same version again: "takes effect immediately");
2 success but a reboot is needed (another driver version was replaced, by --full or
--upgrade; GUESS, the meaning of 2 is undocumented); 1 failure.
"""

from __future__ import annotations

import os

from .. import catalog, dcmi, hardware
from . import common

FLAGS = (
    "--full",
    "--run",
    "--devel",
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
MODES = (
    "--full",
    "--run",
    "--devel",
    "--upgrade",
    "--uninstall",
    "--version",
    "--check",
)
REQUIRED_TOOLS = ("lspci", "ifconfig")

HELP = """\
  --full                            Install the driver in full mode (kernel modules and user space)
  --run                             Install the driver in run mode
  --devel                           Install the driver in devel mode (headers only)
  --upgrade                         Upgrade the installed driver
  --uninstall                       Uninstall the installed driver
  --version                         Print the version of the package
  --install-path=<path>             Install path, default /usr/local/Ascend
  --install-username=<username>     Running user, default HwHiAiUser
  --install-usergroup=<usergroup>   Running user group, default HwHiAiUser
  --install-for-all                 Make the driver usable by all users
  --force                           Force the installation
"""

LIBS = (
    "lib64/common/libc_sec.so",
    "lib64/common/libmmpa.so",
    "lib64/driver/libascend_hal.so",
    "lib64/driver/libdrvdsmi_host.so",
    "lib64/driver/libdcmi.so",
)


def _upgrade_tool(firmware_path):
    return (
        "#!/bin/bash\n"
        "# upgrade-tool of the simulated Ascend driver (ascend-sim).\n"
        "fw=$(sed -n 's/^Version=//p' %s 2>/dev/null)\n"
        'case "$*" in\n'
        '  *--system_version*) echo "{\\"device_id\\": -1, \\"system_version\\": \\"${fw:-NA}\\"}";'
        ' echo "Get system version succeed";;\n'
        '  *--version*) echo "{\\"device_id\\": -1, \\"component\\": -1, \\"version\\": \\"${fw:-NA}\\"}";'
        ' echo "Get component version succeed";;\n'
        '  *) echo "upgrade-tool (simulated): unsupported arguments: $*" >&2; exit 1;;\n'
        "esac\n" % common.rooted(firmware_path)
    )


def _layout(install_path):
    return install_path.rstrip("/") + "/driver"


def install(meta, opts, log):
    install_path = opts.get("--install-path", "/usr/local/Ascend")
    driver_dir = _layout(install_path)
    version = meta["version"]
    mode = next(m for m in ("--full", "--run", "--devel", "--upgrade") if m in opts)

    log.warning(
        "Do not power off or restart the system during the installation/upgrade"
    )
    state = hardware.load_state(required=False)
    if state is None or not state.get("npus"):
        log.error("No Ascend device is found in the system, please check the hardware")
        return 1
    if state["family"] != meta["chip"]:
        log.error(
            "The driver package (%s) does not match the NPU in this system (%s, device %s)"
            % (meta["chip"], state["family"], state["pci_device"])
        )
        return 1
    missing = common.missing_tools(REQUIRED_TOOLS)
    if missing:
        log.error("The list of missing tools: %s" % ",".join(missing))
        return 1

    user = opts.get("--install-username")
    group = opts.get("--install-usergroup")
    if (user is None) != (group is None):
        log.error("--install-username and --install-usergroup must be used together")
        return 1
    user = user or "HwHiAiUser"
    group = group or "HwHiAiUser"
    problem = common.check_run_user(user, group)
    if problem:
        log.error(problem)
        return 1
    log.info("set username and usergroup, %s:%s" % (user, group))

    previous = common.read_kv(driver_dir + "/version.info").get("Version")
    complete = _complete(driver_dir)
    if mode == "--upgrade":
        if previous is None:
            log.error("The driver is not installed, please install it with --full")
            return 1
        if not complete:
            log.error(
                "The installed driver is incomplete (%s/tools/upgrade-tool is missing), "
                "please uninstall it and install the driver again with --full"
                % driver_dir
            )
            return 1
    if previous is not None and previous != version and _busy(state):
        log.error(
            "The NPU is busy: processes are running on it, stop them and try again"
        )
        return 1

    build = hardware.kernel_build_dir()
    if not os.path.isdir(common.rooted(build)):
        log.error(
            "DKMS build of the driver failed: the kernel headers of %s are not installed "
            "(%s not found), please install dkms, gcc and kernel-headers-%s/kernel-devel-%s"
            % (
                hardware.kernel_release(),
                build,
                hardware.kernel_release(),
                hardware.kernel_release(),
            )
        )
        return 1
    log.info("driver install type: DKMS")
    log.info("upgradePercentage:10%")
    log.info("upgradePercentage:30%")

    info = catalog.DRIVER_VERSION_INFO[version]
    common.write(driver_dir + "/version.info", catalog.version_info_text(info), 0o444)
    if hardware.fault_active(state, "partial-driver"):
        log.error(
            "Driver package install failed, the installation was interrupted (see %s)"
            % log.logfile
        )
        common.operation_log("Driver", "Install", "failed", meta["file"])
        return 1
    log.info("upgradePercentage:40%")
    for lib in LIBS:
        common.write("%s/%s" % (driver_dir, lib), "# ascend-sim stub library\n", 0o444)
    # The simulated DCMI library (packages of the build host's architecture carry one).
    common.install_payload_file(
        dcmi.PAYLOAD_NAME, driver_dir + "/lib64/driver/libdcmi.so", 0o444
    )
    common.write(
        driver_dir + "/include/dsmi_common_interface.h", "/* ascend-sim */\n", 0o444
    )
    common.write(
        driver_dir + "/tools/upgrade-tool",
        _upgrade_tool(install_path.rstrip("/") + "/firmware/version.info"),
        0o550,
    )
    common.write(driver_dir + "/tools/hccn_tool", "#!/bin/sh\nexit 0\n", 0o550)
    common.install_uninstaller(driver_dir + "/script", meta)
    common.write("/usr/local/dcmi/libdcmi.so", "# ascend-sim stub library\n", 0o444)
    common.write("/usr/local/dcmi/dcmi_interface_api.h", "/* ascend-sim */\n", 0o444)
    npu_smi = hardware.program_text("npusmi", TOOL_VERSION=version)
    common.write("/usr/local/sbin/npu-smi", npu_smi, 0o755)
    for sub in ("slog", "profiling", "dump"):
        os.makedirs(common.rooted("/var/log/npu/" + sub), exist_ok=True)
    for_all = "--install-for-all" in opts
    install_type = {"--run": "run", "--devel": "devel"}.get(mode, "full")
    common.update_install_info(
        {
            "UserName": user,
            "UserGroup": group,
            "Driver_Install_Type": install_type,
            "Driver_Install_Path_Param": install_path,
            "Driver_Install_For_All": "yes" if for_all else "no",
        }
    )
    log.info("upgradePercentage:90%")

    reboot = previous is not None and previous != version
    state = hardware.load_state()
    if not reboot or "devices" not in state:
        log.info("Waiting for device startup...")
        gid = common.groups()[group][0]
        hardware.create_devices(state, None, gid, 0o666 if for_all else 0o660)
        log.info("Device startup success")
    if reboot:
        state.setdefault("pending_reboot", {})["driver"] = version
    hardware.save_state(state)
    log.info("upgradePercentage:100%")
    if not reboot:
        log.info(
            "Driver package installed successfully! The new version takes effect immediately. "
        )
        common.operation_log("Driver", "Install", "success", meta["file"])
        return 0
    word = "upgraded" if mode == "--upgrade" else "installed"
    log.info(
        "Driver package %s successfully! Reboot now or after firmware installation for the "
        "installation/upgrade to take effect." % word
    )
    common.operation_log(
        "Driver", mode.lstrip("-").capitalize(), "success", meta["file"]
    )
    return 2


def _complete(driver_dir):
    return os.path.isfile(common.rooted(driver_dir + "/tools/upgrade-tool"))


def _busy(state):
    return bool(state.get("processes")) or bool(hardware.fault_active(state, "busy"))


def uninstall(meta, install_path, log):
    driver_dir = _layout(install_path)
    if common.read_kv(driver_dir + "/version.info").get("Version") is None:
        log.error("The driver is not installed in %s" % install_path)
        return 1
    state = hardware.load_state(required=False)
    if state is not None:
        hardware.remove_devices(state)
        state.get("pending_reboot", {}).pop("driver", None)
        hardware.save_state(state)
    common.remove_tree(driver_dir)
    common.remove_tree("/usr/local/sbin/npu-smi")
    common.remove_tree("/usr/local/dcmi")
    common.update_install_info(
        {},
        remove=(
            "Driver_Install_Type",
            "Driver_Install_Path_Param",
            "Driver_Install_For_All",
        ),
    )
    log.info("Driver package uninstalled successfully! Reboot now to take effect.")
    common.operation_log("Driver", "Uninstall", "success", meta["file"])
    return 0


def main(args, meta, runfile):
    log = common.HdkLog("Driver")
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
        "Please specify an operation: --full, --run, --devel, --upgrade or --uninstall",
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
            log.error("Permission denied: the driver package must be installed by root")
            return 1
        if meta["arch"] != common.machine():
            log.error(
                "The architecture of the package (%s) does not match the system (%s)"
                % (meta["arch"], common.machine())
            )
            return 1
        if mode == "--uninstall":
            return uninstall(meta, opts.get("--install-path", "/usr/local/Ascend"), log)
        return install(meta, opts, log)
    finally:
        log.end()
