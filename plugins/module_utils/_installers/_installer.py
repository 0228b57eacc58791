# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# PRIVATE to cubestudio.ascend: may change without notice. Pure helpers for running Huawei's
# .run packages: the command line, and what their output means.

import re

ACTIONS = ("check", "full", "install", "upgrade", "uninstall")

# Lines the installers print when a host reboot is needed (installer-output/ samples, the
# driver's driver_install.sh and ascend-deployer's warning). "please reboot daemon and container
# engine" from the Ascend Docker Runtime installer is about restarting the engine, not the host,
# and is excluded.
_REBOOT_PATTERNS = (
    re.compile(r"Reboot needed for installation/upgrade to take effect", re.IGNORECASE),
    re.compile(r"Kernel modules can not be removed, reboot needed", re.IGNORECASE),
    re.compile(r"some chips not ready, please check after reboot", re.IGNORECASE),
    re.compile(r"Reboot now or after driver installation", re.IGNORECASE),
    # The driver's uninstall.sh: "Driver package uninstalled successfully! Reboot now to take
    # effect." (the kernel modules stay loaded until then).
    re.compile(r"Reboot now to take effect", re.IGNORECASE),
    re.compile(r"need to reboot", re.IGNORECASE),
    re.compile(r"reboot the (system|host|server|os)", re.IGNORECASE),
    re.compile(r"takes? effect after (a )?(system )?reboot", re.IGNORECASE),
)

# Known failures: (pattern, cause, fix). The texts of the patterns are the installers' own
# messages (installer-cli.md, user-pain-points.md).
KNOWN_ERRORS = (
    (
        re.compile(r"list of missing tools:\s*(?P<tools>[\w, -]+)", re.IGNORECASE),
        "the installer needs tools that are not installed: {tools}",
        "install them (lspci is in pciutils, ifconfig in net-tools) and run again",
    ),
    (
        re.compile(
            r"(dkms|kernel[ -](headers|devel|source)).{0,80}(fail|error|not found|missing|no such)"
            r"|(fail|error).{0,80}(dkms|kernel[ -](headers|devel))",
            re.IGNORECASE,
        ),
        "the driver's kernel module could not be built with DKMS",
        "install dkms, gcc and the kernel headers/devel package for the running kernel "
        "(uname -r), remove /var/lib/dkms/davinci_ascend if a previous build left it, and run again",
    ),
    (
        re.compile(r"not installed completely|reinstall driver first", re.IGNORECASE),
        "a previous driver installation is incomplete",
        "run /usr/local/Ascend/driver/script/uninstall.sh, then install the driver again",
    ),
    (
        re.compile(
            r"(user|group)\b.{0,60}(does not exist|not exist|is not found)",
            re.IGNORECASE,
        ),
        "the run user or group of the package does not exist",
        "create HwHiAiUser (or pass install_username/install_usergroup) and run again",
    ),
    (
        re.compile(
            r"no space left|not enough (disk )?space|insufficient (disk )?space",
            re.IGNORECASE,
        ),
        "not enough free disk space",
        "free space under the install path and /tmp and run again",
    ),
    (
        re.compile(
            r"Error in (SHA256|MD5) checksums|Unexpected archive size|checksums? (are|is) not ok"
            r"|integrity check failed|(archive|package) (is )?corrupt",
            re.IGNORECASE,
        ),
        "the package is damaged (its embedded checksum or size does not match)",
        "download the package again and check its sha256",
    ),
)

# makeself's own refusals of a damaged archive. makeself exits 2 for them, the same code that
# Huawei's driver and firmware packages use for success, so they are recognised by their text.
_DAMAGED = re.compile(
    r"Error in (SHA256|MD5) checksums|Unexpected archive size", re.IGNORECASE
)

_ERROR_LINE = re.compile(r"\[ERROR\]|\bERROR\b|\berror:", re.IGNORECASE)


def build_command(
    path,
    action,
    quiet=True,
    nox11=True,
    install_for_all=False,
    install_path=None,
    install_username=None,
    install_usergroup=None,
    install_scene=None,
    whitelist=None,
    extra_args=None,
    shell="/bin/bash",
    script=False,
):
    """Return the argv that runs a .run package for an action.

    With ``script`` the path is the uninstall script a package left on the node
    (``<install_path>/driver/script/uninstall.sh``, CANN's ``script/uninstall.sh``): it takes no
    flag of the .run package, only ``extra_args``.
    """
    if action not in ACTIONS:
        raise ValueError(
            "unknown action %r (expected one of %s)" % (action, ", ".join(ACTIONS))
        )
    if script:
        if action != "uninstall":
            raise ValueError(
                "an installed script can only uninstall, not %s (use the .run package)"
                % action
            )
        return [shell, path] + list(extra_args or [])
    argv = [shell, path]
    if nox11:
        argv.append("--nox11")
    argv.append("--" + action)
    if quiet and action != "check":
        argv.append("--quiet")
    if install_for_all and action in ("full", "install", "upgrade"):
        argv.append("--install-for-all")
    if install_path:
        argv.append("--install-path=%s" % install_path)
    if install_username:
        argv.append("--install-username=%s" % install_username)
    if install_usergroup:
        argv.append("--install-usergroup=%s" % install_usergroup)
    if install_scene:
        argv.append("--install-scene=%s" % install_scene)
    if whitelist:
        argv.append("--whitelist=%s" % whitelist)
    argv.extend(extra_args or [])
    return argv


# The driver's colour codes (drvColorEcho: \033[32m ... \033[0m) and any other SGR sequence.
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text):
    """The installer's output without ANSI colour codes."""
    return _ANSI.sub("", text)


def needs_reboot(rc, output, reboot_rcs):
    """True when the exit code or the installer's words say the host must be rebooted."""
    if rc in reboot_rcs:
        return True
    plain = strip_ansi(output)
    return any(p.search(plain) for p in _REBOOT_PATTERNS)


def outcome(rc, output, success_rcs, reboot_rcs):
    """``live`` (done, nothing pending), ``reboot`` (done, the host must reboot) or ``failed``.

    The driver's install.sh: 0 installed and the hot reset worked, the new version is live;
    2 installed but the kernel modules could not be reloaded, a reboot is needed; 1 failed.
    A package makeself refuses as damaged has failed whatever its exit code.
    """
    if rc not in success_rcs or is_damaged(output):
        return "failed"
    return "reboot" if needs_reboot(rc, output, reboot_rcs) else "live"


# ----------------------------------------------------------------------------- upgrades

DEFAULT_INSTALL_PATH = "/usr/local/Ascend"
DEFAULT_RUN_USER = "HwHiAiUser"
INSTALL_INFO = "/etc/ascend_install.info"


class InstallOptionsError(Exception):
    """What is recorded on the node and what is asked for do not agree; the message says why."""


def recorded_settings(component, info):
    """What the first install recorded in /etc/ascend_install.info for ``component``.

    An upgrade of the driver reads UserName, UserGroup, Driver_Install_For_All and the install
    path back from this file (env_check.sh) and refuses the flags that would change them.
    """
    info = info or {}
    if component == "driver":
        path = info.get("Driver_Install_Path_Param")
        for_all = info.get("Driver_Install_For_All")
    else:
        path = info.get("Firmware_Install_Path_Param") or info.get(
            "Driver_Install_Path_Param"
        )
        for_all = None
    return {
        "install_path": (path or DEFAULT_INSTALL_PATH).rstrip("/") or "/",
        "install_username": info.get("UserName") or DEFAULT_RUN_USER,
        "install_usergroup": info.get("UserGroup") or DEFAULT_RUN_USER,
        "install_for_all": None if for_all is None else for_all == "yes",
    }


def install_options(component, action, requested, info, labels=None):
    """The installer options of one driver or firmware package run.

    ``requested`` holds install_path, install_username, install_usergroup and
    install_for_all (None or empty = not asked for). A fresh install (``full``) passes what
    is requested. An ``upgrade`` passes none of them (the real driver installer refuses
    --install-path, --install-for-all and --install-username/--install-usergroup with
    --upgrade: ERR_NO:0x0004) and keeps what the node recorded; when that differs from what
    is requested, InstallOptionsError names both and the fix. ``labels`` maps each option to
    the name the caller knows it by (a role variable), for the message.
    """
    if component not in ("driver", "firmware"):
        raise ValueError("component must be driver or firmware, got %r" % component)
    if action not in ("full", "upgrade"):
        raise ValueError("action must be full or upgrade, got %r" % action)
    labels = labels or {}
    wanted = {
        "install_path": (requested.get("install_path") or "").rstrip("/") or None,
        "install_username": requested.get("install_username") or None,
        "install_usergroup": requested.get("install_usergroup") or None,
        "install_for_all": requested.get("install_for_all"),
    }
    if bool(wanted["install_username"]) != bool(wanted["install_usergroup"]):
        raise InstallOptionsError(
            "%s and %s must be given together (the installer refuses one without the "
            'other: "Username and usergroup are not specified at the same time.")'
            % (
                labels.get("install_username", "install_username"),
                labels.get("install_usergroup", "install_usergroup"),
            )
        )
    if action == "full":
        return {
            "install_path": wanted["install_path"],
            "install_username": wanted["install_username"],
            "install_usergroup": wanted["install_usergroup"],
            "install_for_all": bool(wanted["install_for_all"]),
        }
    recorded = recorded_settings(component, info)
    keys = {
        "install_path": (
            "Firmware_Install_Path_Param"
            if component == "firmware"
            else "Driver_Install_Path_Param"
        ),
        "install_username": "UserName",
        "install_usergroup": "UserGroup",
        "install_for_all": "Driver_Install_For_All",
    }
    conflicts = []
    for option, key in keys.items():
        asked = wanted[option]
        if asked is None or recorded[option] is None:
            continue
        if option == "install_for_all" and component != "driver":
            continue
        if asked != recorded[option]:
            conflicts.append(
                "%s is %s but the installed %s was installed with %s=%s"
                % (
                    labels.get(option, option),
                    _show(asked),
                    component,
                    key,
                    _show(recorded[option], key),
                )
            )
    if conflicts:
        raise InstallOptionsError(
            "Cause: %s in %s. The %s upgrade (--nox11 --upgrade --quiet) keeps what the first "
            "install recorded and the installer refuses to change it (ERR_NO:0x0004). Fix: set "
            "the variables to what the node recorded to upgrade in place, or uninstall the %s "
            "(%s/%s/script/uninstall.sh) and install it again fresh with the new settings."
            % (
                "; ".join(conflicts),
                INSTALL_INFO,
                component,
                component,
                recorded["install_path"],
                component,
            )
        )
    return {
        "install_path": None,
        "install_username": None,
        "install_usergroup": None,
        "install_for_all": False,
    }


def _show(value, key=None):
    if isinstance(value, bool):
        return ("yes" if value else "no") if key else ("true" if value else "false")
    return str(value)


def error_lines(text, limit=5):
    """The last `limit` lines that look like errors, stripped."""
    lines = [line.strip() for line in text.splitlines() if _ERROR_LINE.search(line)]
    return lines[-limit:]


def diagnose(text):
    """Match the installers' known failure texts; return cause and fix, or None."""
    for pattern, cause, fix in KNOWN_ERRORS:
        match = pattern.search(text)
        if match:
            return {
                "cause": cause.format(
                    **{k: v.strip() for k, v in match.groupdict().items() if v}
                ),
                "fix": fix,
            }
    return None


def is_damaged(text):
    """True when makeself refused the archive as damaged, whatever the exit code."""
    return bool(_DAMAGED.search(text))


def tail(text, lines=15):
    return "\n".join(text.splitlines()[-lines:])
