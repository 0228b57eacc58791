# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# PRIVATE to cubestudio.ascend: may change without notice. Pure helpers for running Huawei's
# .run packages: the command line, and what their output means.

import re

ACTIONS = ("check", "full", "install", "upgrade", "uninstall")

# Lines the installers print when a host reboot is needed (installer-output/ samples and
# ascend-deployer's warning). "please reboot daemon and container engine" from the Ascend
# Docker Runtime installer is about restarting the engine, not the host, and is excluded.
_REBOOT_PATTERNS = (
    re.compile(r"Reboot now or after driver installation", re.IGNORECASE),
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
):
    """Return the argv that runs a .run package for an action."""
    if action not in ACTIONS:
        raise ValueError(
            "unknown action %r (expected one of %s)" % (action, ", ".join(ACTIONS))
        )
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


def needs_reboot(rc, output, reboot_rcs):
    """True when the exit code or the installer's words say the host must be rebooted."""
    if rc in reboot_rcs:
        return True
    return any(p.search(output) for p in _REBOOT_PATTERNS)


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
