# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated NPU driver package (Ascend-hdk-<chip>-npu-driver_<ver>_linux-<arch>.run).

Follows the rules of Huawei's own driver scripts (driver-installer-rules.md): the parameter
checks of args_parse.sh (ERR_NO:0x0004), an upgrade that keeps the install path, user, group
and install-for-all recorded in /etc/ascend_install.info, and the exit codes of install.sh:
0 installed and the hot reset worked (the new version is live), 2 installed but the hot reset
failed or the kernel modules could not be removed (a reboot is needed; a busy NPU ends here), 1
failed. Whether the hot reset works is the simulator fault ``hot-reset-fails``.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from .. import catalog, dcmi, hardware
from . import common

# args_parse.sh: the flags it knows (the makeself layer rejects any other).
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
INSTALL_TYPES = ("--full", "--run", "--devel")
# check_tools.conf: one line per tool, "a,b" when either will do.
REQUIRED_TOOLS = (
    "which",
    "update-rc.d,chkconfig",
    "test",
    "groups",
    "awk",
    "chattr",
    "lsattr",
    "ldconfig",
    "wc",
    "lspci",
    "ifconfig",
    "chown",
    "chmod",
    "find",
    "sed",
    "ln",
    "modprobe",
    "cksum",
    "tail",
    "head",
    "udevadm",
    "modinfo",
    "useradd",
    "expr",
    "basename",
    "tty",
    "dirname",
    "rev",
    "id",
    "touch",
    "grep",
    "ps",
    "systemctl",
    "readlink",
)
DEFAULT_PATH = "/usr/local/Ascend"
NPU_SMI_PATHS = ("/usr/local/bin/npu-smi", "/usr/local/sbin/npu-smi")
# hicann/driver@ef377e95 scripts/package/driver/common/scripts/host_servers_setup.sh:125-127
HCCN_TOOL_LINK = "/usr/bin/hccn_tool"
LOCK_FILE = hardware.SIM_DIR + "/hdk-installer.lock"

GREEN, YELLOW, RED, RESET = "\033[32m", "\033[33m", "\033[31m", "\033[0m"

HELP = """\
  --full                            Install the driver in full mode (kernel modules and user space)
  --run                             Install the driver in run mode
  --devel                           Install the driver in devel mode (headers only)
  --upgrade                         Upgrade the installed driver (path, user, group and
                                    install-for-all are those of the first install)
  --uninstall                       Uninstall the installed driver
  --version                         Print the version of the package
  --check                           Check the package
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


class Refused(Exception):
    """A refusal of the installer: message already complete, exit status 1."""


def _err(text):
    return "[ERROR]ERR_NO:0x0004;ERR_DES:%s" % text


def parse(args):
    """args_parse.sh: ({option: True|value}, operation); Refused on a bad combination."""
    opts = {}
    i = j = 0  # i: parameters that count; j: install types (args_parse.sh)
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name == "--nox11":
            continue  # makeself's flag, never seen by the driver's scripts
        if name in VALUES and not has_value:
            raise Refused(
                _err(
                    " Unrecognized parameters: %s. Try './xxx.run --help' for more "
                    "information." % arg
                )
            )
        if name in INSTALL_TYPES:
            if any(t in opts for t in INSTALL_TYPES):
                raise Refused(
                    _err(
                        "only support one type: full/debug/run/docker/devel, operation failed!"
                    )
                )
            i, j = i + 1, j + 1
        elif name == "--upgrade":
            i, j = i + 1, j + 1
        elif name == "--install-path":
            if not value:
                raise Refused(
                    "[ERROR]ERR_NO:0x0003;ERR_DES:install path is null, install failed"
                )
            i += 1
        elif name != "--install-for-all":  # it alone does not count (args_parse.sh)
            i += 1
        opts[name] = value if name in VALUES else True
    if "--uninstall" in opts:
        if i == 1 or (i == 2 and "--force" in opts):
            return opts, "--uninstall"
        raise Refused(_err("uninstall can't use with other parameters except force."))
    if "--version" in opts or "--check" in opts:
        # The spec is stricter than args_parse.sh, which does not count --install-for-all.
        if len(opts) > 1:
            raise Refused(_err("version/check can't use with other parameters."))
        return opts, "--version" if "--version" in opts else "--check"
    if j != 1:
        if "--force" in opts:
            raise Refused(
                _err(
                    "The parameter needs to be used with full/debug/run/upgrade/uninstall."
                )
            )
        raise Refused(
            _err(
                "The parameter needs to be used with full/debug/run/docker/upgrade/devel."
            )
        )
    upgrade = "--upgrade" in opts
    if upgrade and "--install-for-all" in opts:
        raise Refused(
            _err("install-for-all param need used with full/debug/run/devel.")
        )
    if upgrade and "--install-path" in opts:
        raise Refused(
            _err("install-path param need used with full/debug/run/docker/devel.")
        )
    user = "--install-username" in opts
    group = "--install-usergroup" in opts
    if user and group and upgrade:
        raise Refused(
            _err(
                "install-username and install-usergroup params need used with "
                "full/debug/run/docker/devel."
            )
        )
    if user != group:
        raise Refused(
            _err("Username and usergroup are not specified at the same time.")
            + "\n[ERROR]Please input the right params and try again."
        )
    return opts, "--upgrade" if upgrade else next(t for t in INSTALL_TYPES if t in opts)


def missing_tools():
    """check_tools.conf lines of which no tool is installed."""
    return [
        line
        for line in REQUIRED_TOOLS
        if len(common.missing_tools(line.split(","))) == len(line.split(","))
    ]


def check_user(user, group):
    """env_check.sh checkUserAndGroup: None, or the refusal."""
    users = common.users()
    groups = common.groups()
    if user not in users:
        return "[ERROR]ERR_NO:0x0091;ERR_DES:%s not exists! Please add %s" % (
            user,
            user,
        )
    if group not in groups:
        return (
            "[ERROR]ERR_NO:0x0091;ERR_DES:%s group not exists! Please add %s group"
            % (
                group,
                group,
            )
        )
    gid, members = groups[group]
    if users[user][1] != gid and user not in members:
        return (
            "[ERROR]ERR_NO:0x0096;ERR_DES:%s not right! Please check the relatianship of %s and %s"
            % (group, user, group)
        )
    return None


def parent_dirs_problem(path, for_all):
    """driver_install.sh parent_dirs_permision_check: None, 'owner' or 'mode'."""
    current = path.rstrip("/") or "/"
    while current != "/":
        full = common.rooted(current)
        if os.path.isdir(full):
            info = os.stat(full)
            if info.st_uid != 0:
                return "owner"
            mode = int(oct(stat.S_IMODE(info.st_mode))[-3:])
            if mode < (750 if for_all else 755):
                return "mode"
        current = os.path.dirname(current)
    return None


def install(meta, opts, mode, log):
    version = meta["version"]
    info = common.read_kv(common.INSTALL_INFO)
    recorded_path = info.get("Driver_Install_Path_Param")
    old_path = recorded_path or DEFAULT_PATH
    previous = common.read_kv(_layout(old_path) + "/version.info").get("Version")
    upgrade = mode == "--upgrade"
    if upgrade and previous is None:
        # driver_install.sh: --upgrade without a driver is a fresh install.
        log.info("The driver is not installed, it will be installed in full mode")
        upgrade, mode = False, "--full"
        fresh_upgrade = True
    else:
        fresh_upgrade = False
    install_path = old_path if upgrade else opts.get("--install-path", old_path)
    driver_dir = _layout(install_path)
    if install_path != old_path:
        previous = common.read_kv(driver_dir + "/version.info").get("Version")

    log.warning(
        "Do not power off or restart the system during the installation/upgrade"
    )
    state = hardware.load_state(required=False)
    if state is None or not state.get("npus"):
        log.error("No Ascend device is found in the system, please check the hardware")
        return 1
    if state["family"] != meta["chip"]:
        log.file_only(
            "[INFO] Driver expected the %s package's devices, device actual is %s (%s)"
            % (meta["chip"], state["pci_device"], state["family"])
        )
        log.echo(
            "[ERROR]The current installation package and environment is not match, "
            "please check."
        )
        return 1
    missing = missing_tools()
    if missing:
        log.error("The list of missing tools: %s" % "".join(m + "," for m in missing))
        return 1

    # env_check.sh getUserInfo: the user of the first install is kept.
    user = opts.get("--install-username")
    group = opts.get("--install-usergroup")
    for_all = "--install-for-all" in opts
    if user is not None:
        if (info.get("UserName") and user != info["UserName"]) or (
            info.get("UserGroup") and group != info["UserGroup"]
        ):
            log.echo(
                "[ERROR]ERR_NO:0x0095;ERR_DES:The user and group are not same with last "
                "installation,do not support overwriting installation"
            )
            return 1
    else:
        user = info.get("UserName") or "HwHiAiUser"
        group = info.get("UserGroup") or "HwHiAiUser"
        if not upgrade and "root" in (info.get("UserName"), info.get("UserGroup")):
            which = "username" if info.get("UserName") == "root" else "usergroup"
            log.echo(
                "[ERROR]ERR_NO:0x0091;ERR_DES:%s not permission for root, check "
                "/etc/ascend_install.info" % which
            )
            return 1
        if upgrade and info.get("Driver_Install_For_All") == "yes":
            for_all = True
    problem = check_user(user, group)
    if problem:
        log.echo(problem)
        return 1
    log.echo("[INFO]set username and usergroup, %s:%s" % (user, group))

    if previous is None or fresh_upgrade:
        if install_path == DEFAULT_PATH:
            os.makedirs(common.rooted(install_path), mode=0o755, exist_ok=True)
            os.chmod(common.rooted(install_path), 0o755)
        problem = parent_dirs_problem(install_path, for_all)
        if problem == "owner":
            log.color(
                "[ERROR]%sThe given directory, including its parents, should belong to root, "
                "details in : %s %s" % (RED, log.logfile, RESET)
            )
            return 1
        if problem == "mode":
            log.color(
                "[ERROR]%sThe given directory, or its parents, permission is too small, "
                "details in : %s %s" % (RED, log.logfile, RESET)
            )
            return 1

    complete = _complete(driver_dir)
    if upgrade and not complete:
        log.error(
            "The installed driver is incomplete (%s/tools/upgrade-tool is missing), "
            "please uninstall it and install the driver again with --full" % driver_dir
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

    # From here on the install is under way: no status until it ends (a half install has none).
    common.update_install_info({}, remove=("Driver_Install_Status",))
    info_text = catalog.version_info_text(catalog.DRIVER_VERSION_INFO[version])
    common.write(driver_dir + "/version.info", info_text, 0o444)
    for slow in hardware.fault_active(state, "slow-install"):
        # The window in which a dropped connection or a reboot interrupts the install.
        log.info("upgradePercentage:35%")
        time.sleep(slow.get("seconds", 30))
    if hardware.fault_active(state, "partial-driver") or hardware.fault_active(
        state, "install-interrupted"
    ):
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
    # driver.xml: hccn_tool, a regular file root:root 555 (MindCluster refuses a symlink). A
    # POSIX sh front (dcmi.hccn_tool_text): the faithful tool (hccn_tool.py beside it) where
    # python3 runs, the device view's reads in a pod whose image has no python (the device plugin's).
    common.write(driver_dir + "/tools/hccn_tool", dcmi.hccn_tool_text(), 0o555)
    common.write(
        driver_dir + "/tools/hccn_tool.py",
        hardware.program_text("hccn_tool", TOOL_VERSION=version),
        0o555,
    )
    # host_servers_setup.sh bin_config: `ln -sf <install>/driver/tools/hccn_tool
    # /usr/bin/hccn_tool` when the tool exists (hccn.md 1.1), so an operator or a script finds
    # the bare name on PATH (MindCluster itself runs the absolute path, never the link).
    common.symlink(driver_dir + "/tools/hccn_tool", HCCN_TOOL_LINK)
    if not os.path.exists(common.rooted("/etc/hccn.conf")):
        # run_driver_install.sh changeMode: touch /etc/hccn.conf, chmod 644, root:root
        common.write("/etc/hccn.conf", "", 0o644)
    common.install_uninstaller(driver_dir + "/script", meta)
    common.write("/usr/local/dcmi/libdcmi.so", "# ascend-sim stub library\n", 0o444)
    common.write("/usr/local/dcmi/dcmi_interface_api.h", "/* ascend-sim */\n", 0o444)
    npu_smi = hardware.program_text("npusmi", TOOL_VERSION=version)
    for path in NPU_SMI_PATHS:  # driver_atlas.xml: both places, mode 555
        common.write(path, npu_smi, 0o555)
    for sub in ("slog", "profiling", "dump"):
        os.makedirs(common.rooted("/var/log/npu/" + sub), exist_ok=True)
    install_type = (
        info.get("Driver_Install_Type", "full")
        if upgrade
        else {"--run": "run", "--devel": "devel"}.get(mode, "full")
    )
    mode_before = info.get("Driver_Install_Mode")
    common.update_install_info(
        {
            "UserName": user,
            "UserGroup": group,
            "Driver_Install_Type": install_type,
            "Driver_Install_Path_Param": install_path,
            "Driver_Install_For_All": "yes" if for_all else "no",
            "Driver_Install_Mode": mode_before
            if upgrade and mode_before not in (None, "", "debug")
            else "normal",
        }
    )
    log.info("upgradePercentage:90%")

    # The hot reset: the old kernel modules are removed and the new ones loaded. A process on
    # the NPU keeps them in use (ko_abort); the fault hot-reset-fails stands for the rest.
    state = hardware.load_state()
    loaded = previous is not None or bool(state.get("pending_reboot", {}).get("driver"))
    if loaded and _busy(state):
        outcome = "ko_abort"
    elif hardware.fault_active(state, "hot-reset-fails"):
        outcome = "failed"
    else:
        outcome = "success"
    if outcome == "success" or "devices" not in state:
        log.info("Waiting for device startup...")
        gid = common.groups()[group][0]
        hardware.create_devices(state, None, gid, 0o666 if for_all else 0o660)
        log.info("Device startup success")
    pending = state.setdefault("pending_reboot", {})
    if outcome == "success":
        pending.pop("driver", None)
    else:
        pending["driver"] = version
    hardware.save_state(state)
    log.info("upgradePercentage:100%")
    word = "upgraded" if upgrade else "installed"
    operation = "Upgrade" if upgrade else "Install"
    common.operation_log("Driver", operation, "success", meta["file"])
    # install.sh statusUpdate: the last line of a finished install.
    common.update_install_info({"Driver_Install_Status": "complete"})
    if outcome == "success":
        log.color(
            "[INFO]%sDriver package %s successfully! The new version takes effect "
            "immediately. %s" % (GREEN, word, RESET)
        )
        return 0
    if outcome == "ko_abort":
        log.color("[INFO]%sDriver package %s finished! %s" % (GREEN, word, RESET))
        log.color(
            "[WARNING]%sKernel modules can not be removed, reboot needed for "
            "installation/upgrade to take effect! %s" % (YELLOW, RESET)
        )
        return 2
    log.echo("[WARNING]There are some chips not ready, please check after reboot")
    log.color(
        "[INFO]%sDriver package %s successfully! %s%sReboot needed for installation/upgrade "
        "to take effect! %s" % (GREEN, word, RESET, RED, RESET)
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
    # host_servers_remove.sh remove_bin_conf: rm -f /usr/bin/hccn_tool
    common.remove_tree(HCCN_TOOL_LINK)
    for path in NPU_SMI_PATHS:
        common.remove_tree(path)
    common.remove_tree("/usr/local/dcmi")
    common.update_install_info(
        {},
        remove=(
            "Driver_Install_Type",
            "Driver_Install_Path_Param",
            "Driver_Install_For_All",
            "Driver_Install_Mode",
            "Driver_Install_Status",
        ),
    )
    log.info("Driver package uninstalled successfully! Reboot now to take effect.")
    common.operation_log("Driver", "Uninstall", "success", meta["file"])
    return 0


def _locked():
    """args_parse.sh checkProcess: an open lock file, or None when another installer runs."""
    path = common.rooted(LOCK_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle = open(path, "a")  # noqa: SIM115 - held until the installer ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def main(args, meta, runfile):
    del runfile  # the real scripts print no usage line
    log = common.HdkLog("Driver")
    args = list(args)
    if not [a for a in args if a != "--nox11"]:
        log.echo(
            "[ERROR]ERR_NO:0x0004;ERR_DES: Unrecognized parameters. Try './xxx.run --help' "
            "for more information."
        )
        return 1
    if args == ["--version"] or args == ["--nox11", "--version"]:
        common.out("%s\n" % meta["version"])
        return 0
    log.start()
    try:
        if common.euid() != 0:
            log.echo(
                "[ERROR]ERR_NO:0x0093;ERR_DES:do not have root permission, operation failed, "
                "please use root permission!"
            )
            return 1
        log.file_only(
            "[INFO]UserCommand: %s %s"
            % (meta["file"], " ".join(a for a in args if a != "--nox11"))
        )
        try:
            opts, mode = parse(args)
        except Refused as refusal:
            for line in str(refusal).splitlines():
                log.echo(line)
            return 1
        if mode == "--version":
            common.out("%s\n" % meta["version"])
            return 0
        if mode == "--check":
            return 0
        if meta["arch"] != common.machine():
            log.color(
                "[ERROR]%sArch mismatch, src package is %s, cur os is %s %s"
                % (RED, meta["arch"], common.machine(), RESET)
            )
            return 1
        lock = _locked()
        if lock is None:
            log.echo(
                "[ERROR]ERR_NO:0x0094;ERR_DES:There is already a process being executed,"
                "please do not execute multiple tasks at the same time"
            )
            return 1
        try:
            if mode == "--uninstall":
                recorded = common.read_kv(common.INSTALL_INFO)
                return uninstall(
                    meta, recorded.get("Driver_Install_Path_Param", DEFAULT_PATH), log
                )
            return install(meta, opts, mode, log)
        finally:
            lock.close()
    finally:
        log.end()
