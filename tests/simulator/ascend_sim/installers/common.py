# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the simulated installers: options, logs, users, files."""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import sys

from .. import hardware

SECLOG_DIR = "/var/log/ascend_seclog"
INSTALL_INFO = "/etc/ascend_install.info"
# Key order of the real /etc/ascend_install.info (installed-files/etc-ascend_install.info).
INSTALL_INFO_ORDER = (
    "UserName",
    "UserGroup",
    "Firmware_Install_Type",
    "Firmware_Install_Path_Param",
    "Driver_Install_Type",
    "Driver_Install_Path_Param",
    "Driver_Install_For_All",
    "Driver_Install_Mode",
)
# install.sh statusUpdate appends it once the install has finished: always the last line.
INSTALL_INFO_LAST = "Driver_Install_Status"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text):
    return _ANSI.sub("", text)


class UsageError(Exception):
    """Bad command line: message to print, exit status 1."""


def root():
    return hardware.sim_root()


def rooted(path):
    return hardware.rooted(None, path)


def machine():
    return os.environ.get("ASCEND_SIM_ARCH") or os.uname().machine


def euid():
    return os.geteuid()


def user_name():
    try:
        import pwd  # pylint: disable=import-outside-toplevel

        return pwd.getpwuid(euid()).pw_name
    except (ImportError, KeyError):
        return str(euid())


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def parse_options(args, flags, values):
    """{option: True|value} of ``args``; repeated, unknown or malformed options are errors."""
    seen = {}
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name in flags:
            if has_value:
                raise UsageError("parameter %s does not take a value" % name)
            parsed = True
        elif name in values:
            if not has_value or value == "":
                raise UsageError(
                    "parameter %s needs a value (%s=<value>)" % (name, name)
                )
            parsed = value
        else:
            raise UsageError("unsupported parameter: %s" % arg)
        if name in seen:
            raise UsageError("parameter %s is repeated" % name)
        seen[name] = parsed
    return seen


def pick_mode(chosen, log, runfile, help_text, missing):
    """The one operation among ``chosen``; None (exit code 1) after saying what is wrong."""
    if len(chosen) > 1:
        log.error("Unsupported parameters combination: %s" % " ".join(chosen))
        return None
    if not chosen:
        log.error(missing)
        out("Usage: %s [options]\nOptions:\n%s" % (runfile, help_text))
        return None
    return chosen[0]


# ----------------------------------------------------------------------------- logs


def append_log(path, line, mode=0o640):
    """Append to a log below the root; a user who may not write there logs nothing."""
    full = rooted(path)
    try:
        os.makedirs(os.path.dirname(full), mode=0o750, exist_ok=True)
        new = not os.path.exists(full)
        with open(full, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        if new:
            os.chmod(full, mode)
    except PermissionError:
        pass


class HdkLog:
    """``[Driver] [2025-07-17 10:35:21] [INFO]text`` on stdout and in ascend_install.log."""

    def __init__(
        self, tag, logfile="ascend_install.log", stamp="%Y-%m-%d %H:%M:%S", space=""
    ):
        self.tag = tag
        self.logfile = SECLOG_DIR + "/" + logfile
        self.stamp = stamp
        self.space = space  # CANN puts a space between "[INFO]" and the text

    def line(self, level, text):
        now = datetime.datetime.now().strftime(self.stamp)
        return "[%s] [%s] [%s]%s%s" % (self.tag, now, level, self.space, text)

    def __call__(self, level, text):
        line = self.line(level, text)
        out(line + "\n")
        append_log(self.logfile, line)

    def echo(self, text):
        """drvEcho (and log): ``[Driver] [date] <text>``, the level is part of the text."""
        now = datetime.datetime.now().strftime(self.stamp)
        line = "[%s] [%s] %s" % (self.tag, now, text)
        out(line + "\n")
        append_log(self.logfile, strip_ansi(line))

    def color(self, text):
        """drvColorEcho: like echo, with the ANSI colour codes of the real scripts."""
        self.echo(text)

    def file_only(self, text):
        """log: a line in the log file only."""
        now = datetime.datetime.now().strftime(self.stamp)
        append_log(self.logfile, "[%s] [%s] %s" % (self.tag, now, text))

    def info(self, text):
        self("INFO", text)

    def warning(self, text):
        self("WARNING", text)

    def error(self, text):
        self("ERROR", text)

    def start(self):
        self.info(
            "Start time: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        )
        self.info("LogFile: %s" % self.logfile)
        self.info("OperationLogFile: %s/operation.log" % SECLOG_DIR)

    def end(self):
        self.info(
            "End time: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        )


def operation_log(component, operation, result, detail):
    """One line per operation in operation.log (format: GUESS)."""
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    append_log(
        SECLOG_DIR + "/operation.log",
        "[%s] [%s] [%s] [localhost] [%s] [%s] %s"
        % (component, stamp, user_name(), operation, result, detail),
    )


# ----------------------------------------------------------------------------- users, tools


def _colon_file(path):
    rows = []
    try:
        with open(rooted(path), encoding="utf-8") as handle:
            for line in handle:
                if line.strip() and not line.startswith("#"):
                    rows.append(line.rstrip("\n").split(":"))
    except OSError:
        pass
    return rows


def users():
    """{name: (uid, gid)} of <root>/etc/passwd."""
    return {
        r[0]: (int(r[2]), int(r[3])) for r in _colon_file("/etc/passwd") if len(r) > 3
    }


def groups():
    """{name: (gid, [members])} of <root>/etc/group."""
    out_ = {}
    for row in _colon_file("/etc/group"):
        if len(row) > 2:
            members = [m for m in (row[3].split(",") if len(row) > 3 else []) if m]
            out_[row[0]] = (int(row[2]), members)
    return out_


def check_run_user(user, group):
    """None when user and group exist and match, else the error text."""
    known_users = users()
    known_groups = groups()
    if user not in known_users:
        return (
            "The user %s does not exist, please create it (groupadd/useradd) or specify an "
            "existing user with --install-username and --install-usergroup" % user
        )
    if group not in known_groups:
        return "The group %s does not exist, please create it first" % group
    gid, members = known_groups[group]
    if known_users[user][1] != gid and user not in members:
        return "The user %s does not belong to the group %s" % (user, group)
    return None


def missing_tools(names):
    missing = []
    for name in names:
        if not any(
            os.path.isfile(rooted("%s/%s" % (d, name)))
            and os.access(rooted("%s/%s" % (d, name)), os.X_OK)
            for d in hardware.TOOL_DIRS
        ):
            missing.append(name)
    return missing


# ----------------------------------------------------------------------------- files


def write(path, text, mode=0o644):
    full = rooted(path)
    os.makedirs(os.path.dirname(full), mode=0o755, exist_ok=True)
    with open(full, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(full, mode)


def remove_tree(path):
    full = rooted(path)
    if os.path.islink(full) or os.path.isfile(full):
        os.unlink(full)
    elif os.path.isdir(full):
        shutil.rmtree(full)


def symlink(target, path):
    full = rooted(path)
    if os.path.lexists(full):
        os.unlink(full)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.symlink(target, full)


def read_kv(path):
    out_ = {}
    try:
        with open(rooted(path), encoding="utf-8") as handle:
            for line in handle:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    out_[key] = value
    except OSError:
        pass
    return out_


def update_install_info(updates, remove=()):
    """Rewrite /etc/ascend_install.info in the real key order."""
    current = read_kv(INSTALL_INFO)
    current.update(updates)
    for key in remove:
        current.pop(key, None)
    if not any(k.endswith("_Install_Type") for k in current):
        remove_tree(INSTALL_INFO)
        return
    ordered = [k for k in INSTALL_INFO_ORDER if k in current]
    ordered += [
        k for k in current if k not in INSTALL_INFO_ORDER and k != INSTALL_INFO_LAST
    ]
    ordered += [k for k in (INSTALL_INFO_LAST,) if k in current]
    write(INSTALL_INFO, "".join("%s=%s\n" % (k, current[k]) for k in ordered), 0o644)


def package_source():
    """Directory holding the running ascend_sim package (the extracted payload)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def install_payload_file(name, path, mode):
    """Copy ``name`` of the package payload to ``path``; False when the payload has none."""
    source = os.path.join(package_source(), name)
    if not os.path.isfile(source):
        return False
    full = rooted(path)
    os.makedirs(os.path.dirname(full), mode=0o755, exist_ok=True)
    shutil.copyfile(source, full)
    os.chmod(full, mode)
    return True


def install_uninstaller(script_dir, meta, mode=0o500, extra_args=""):
    """<script_dir>/uninstall.sh plus the copy of the simulator it runs."""
    sim_dir = script_dir + "/sim"
    remove_tree(sim_dir)
    shutil.copytree(
        os.path.join(package_source(), "ascend_sim"),
        rooted(sim_dir + "/ascend_sim"),
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    write(sim_dir + "/package.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    write(
        script_dir + "/uninstall.sh",
        "#!/bin/bash\n"
        "# Uninstall script of a simulated Ascend package (cubestudio.ascend ascend-sim).\n"
        'here="$(cd "$(dirname "$0")" && pwd)"\n'
        'PYTHONPATH="$here/sim" exec python3 -m ascend_sim.installers.entry '
        '--uninstall-script "$here/sim/package.json" %s"$@"\n' % extra_args,
        mode,
    )


def user_home():
    return os.path.expanduser("~")
