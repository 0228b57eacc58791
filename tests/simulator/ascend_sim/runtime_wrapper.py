# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated ``ascend-docker-runtime``: an OCI runtime wrapper around runc (standalone).

On ``create`` (and ``run``) it edits ``<bundle>/config.json``, then execs the real runc with
the original arguments; every other command goes to runc unchanged. Every container it
creates gets, like the real one (runtime/process/process.go):

* ``ASCEND_DOCKER_RUNTIME=True`` appended to its environment, NPUs or not;
* the driver library folders that exist on the host prepended to ``LD_LIBRARY_PATH``;
* with ``MOUNT_BY_RUNTIME_FOR_DP`` in its environment (the 26.x device-plugin DaemonSet),
  read-only bind mounts of those of /run/docker.sock, /run/docker, /run/containerd and
  /var/run/crio/crio.sock that exist on the host.

It reads ASCEND_VISIBLE_DEVICES, ASCEND_RUNTIME_OPTIONS and ASCEND_RUNTIME_MOUNTS from the
container's environment, adds the selected ``/dev/davinci<N>`` nodes plus davinci_manager,
devmm_svm and hisi_hdc (``linux.devices`` and ``linux.resources.devices`` allow rules) and
read-only bind mounts of the files listed in ``/etc/ascend-docker-runtime.d/<name>.list``.

Difference from the real one: the real runtime adds a prestart hook (ascend-docker-hook) that
mounts devices and files; this one edits the spec directly before runc sees it. It also
mounts the simulator state (/var/lib/ascend-sim, read-only) so that the simulated npu-smi
works inside the container.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import stat
import sys

CONFIG_DIR = "/etc/ascend-docker-runtime.d"
LOG_PATH = "/var/log/ascend-docker-runtime/runtime-run.log"
SIM_STATE_DIR = "/var/lib/ascend-sim"
MANAGEMENT_DEVICES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")
RUNC_FALLBACKS = (
    "/usr/sbin/runc",
    "/usr/bin/runc",
    "/usr/local/sbin/runc",
    "/usr/local/bin/runc",
)
GLOBAL_OPTIONS_WITH_VALUE = ("--root", "--log", "--log-format", "--criu", "--rootless")
# Driver library folders, in the order of the device-plugin image's LD_LIBRARY_PATH (GUESS: the
# order the real runtime prepends them in is not known).
DRIVER_LIB_DIRS = (
    "/usr/local/Ascend/driver/lib64",
    "/usr/local/Ascend/driver/lib64/driver",
    "/usr/local/Ascend/driver/lib64/common",
)
DP_MOUNTS = (
    "/run/docker.sock",
    "/run/docker",
    "/run/containerd",
    "/var/run/crio/crio.sock",
)
NAME_PREFIXES = ("npu", "Ascend910", "Ascend310", "Ascend310B", "Ascend310P")
RUNTIME_OPTIONS = ("NODRV", "VIRTUAL")


class CreateError(Exception):
    """A create that must fail, with the message the engine shows."""


def sim_root():
    return os.environ.get("ASCEND_SIM_ROOT") or "/"


def rooted(path):
    return os.path.join(sim_root(), path.lstrip("/"))


def log(level, message):
    try:
        path = rooted(LOG_PATH)
        os.makedirs(os.path.dirname(path), mode=0o750, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("[%s] %s [pid %d] %s\n" % (level, stamp, os.getpid(), message))
    except OSError:
        pass


# ----------------------------------------------------------------------------- arguments


def split_command(args):
    """(index of the runc command in args, command) or (None, None)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-"):
            if arg in GLOBAL_OPTIONS_WITH_VALUE:
                index += 2
            else:
                index += 1
            continue
        return index, arg
    return None, None


def option(args, names, default=None):
    for index, arg in enumerate(args):
        for name in names:
            if arg == name and index + 1 < len(args):
                return args[index + 1]
            if arg.startswith(name + "="):
                return arg[len(name) + 1 :]
    return default


def find_runc():
    own = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    override = os.environ.get("ASCEND_SIM_RUNC")
    candidates = [override] if override else []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if directory:
            candidates.append(os.path.join(directory, "runc"))
    candidates.extend(RUNC_FALLBACKS)
    for candidate in candidates:
        if (
            candidate
            and os.path.isfile(candidate)
            and os.access(candidate, os.X_OK)
            and os.path.realpath(candidate) != own
        ):
            return candidate
    return None


# ----------------------------------------------------------------------------- env values


def parse_visible_devices(value, available):
    """Device ids selected by ASCEND_VISIBLE_DEVICES (sorted); [] for void or empty."""
    text = value.strip()
    if text == "" or text == "void":
        return []
    if text == "all":
        return sorted(available)
    tokens = [token.strip() for token in text.split(",")]
    if any(token == "" for token in tokens):
        raise CreateError("invalid ASCEND_VISIBLE_DEVICES %r: empty item" % value)
    numeric = [re.fullmatch(r"(\d+)(?:-(\d+))?", token) for token in tokens]
    if all(numeric):
        ids = set()
        for match in numeric:
            low = int(match.group(1))
            high = int(match.group(2)) if match.group(2) is not None else low
            if high < low:
                raise CreateError(
                    "invalid ASCEND_VISIBLE_DEVICES %r: range %s"
                    % (value, match.group(0))
                )
            ids.update(range(low, high + 1))
    elif any(numeric):
        raise CreateError(
            "invalid ASCEND_VISIBLE_DEVICES %r: device ids and device names cannot be mixed"
            % value
        )
    else:
        ids = set()
        pattern = r"(%s)-(\d+)" % "|".join(NAME_PREFIXES)
        for token in tokens:
            match = re.fullmatch(pattern, token)
            if not match:
                raise CreateError(
                    "invalid ASCEND_VISIBLE_DEVICES %r: %r is neither an id, a range nor "
                    "a name like npu-0 or Ascend910-0" % (value, token)
                )
            ids.add(int(match.group(2)))
    missing = sorted(i for i in ids if i not in available)
    if missing:
        raise CreateError(
            "ASCEND_VISIBLE_DEVICES %r: no such device %s"
            % (value, ", ".join("/dev/davinci%d" % i for i in missing))
        )
    return sorted(ids)


def parse_runtime_options(value):
    if value is None or value.strip() == "":
        return set()
    if len(value) > 128:
        raise CreateError("ASCEND_RUNTIME_OPTIONS is longer than 128 characters")
    tokens = {token.strip() for token in value.split(",")}
    bad = sorted(tokens - set(RUNTIME_OPTIONS))
    if bad:
        raise CreateError(
            "invalid ASCEND_RUNTIME_OPTIONS %r: only NODRV and VIRTUAL are allowed"
            % value
        )
    if "VIRTUAL" in tokens:
        raise CreateError("ASCEND_RUNTIME_OPTIONS=VIRTUAL (vNPU) is not simulated")
    return tokens


def mount_lists(value):
    names = ["base"] if value is None or value.strip() == "" else value.split(",")
    paths = []
    for name in names:
        name = name.strip()
        if not re.fullmatch(r"[a-z0-9_-]+", name):
            raise CreateError(
                "invalid ASCEND_RUNTIME_MOUNTS item %r (lower-case names only)" % name
            )
        path = rooted("%s/%s.list" % (CONFIG_DIR, name))
        if not os.path.isfile(path):
            raise CreateError(
                "mount list %s/%s.list does not exist" % (CONFIG_DIR, name)
            )
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                entry = line.strip()
                if entry and not entry.startswith("#") and entry.startswith("/"):
                    paths.append(entry)
    return paths


def available_devices():
    out = set()
    try:
        names = os.listdir(rooted("/dev"))
    except OSError:
        return out
    for name in names:
        match = re.fullmatch(r"davinci(\d+)", name)
        if match:
            out.add(int(match.group(1)))
    return out


# ----------------------------------------------------------------------------- spec edit


def _device(path):
    try:
        info = os.stat(rooted(path))
    except OSError:
        raise CreateError("device %s does not exist on the host" % path) from None
    if not stat.S_ISCHR(info.st_mode):
        raise CreateError("%s is not a character device" % path)
    return {
        "path": path,
        "type": "c",
        "major": os.major(info.st_rdev),
        "minor": os.minor(info.st_rdev),
        "fileMode": stat.S_IMODE(info.st_mode),
        "uid": 0,
        "gid": 0,
    }


def _bind(spec, source):
    """Append a read-only bind mount of the host's ``source`` unless one is there already."""
    mounts = spec.setdefault("mounts", [])
    if any(m.get("destination") == source for m in mounts):
        return False
    mounts.append(
        {
            "destination": source,
            "type": "bind",
            "source": rooted(source),
            "options": ["rbind", "ro", "nosuid", "nodev"],
        }
    )
    return True


def add_common(spec, env):
    """What every container gets: env ASCEND_DOCKER_RUNTIME, LD_LIBRARY_PATH, DP mounts."""
    process = spec.setdefault("process", {})
    entries = process.setdefault("env", [])
    entries.append("ASCEND_DOCKER_RUNTIME=True")
    libs = [d for d in DRIVER_LIB_DIRS if os.path.isdir(rooted(d))]
    if libs:
        old = env.get("LD_LIBRARY_PATH")
        value = ":".join(libs + ([old] if old else []))
        entries[:] = [e for e in entries if not e.startswith("LD_LIBRARY_PATH=")]
        entries.append("LD_LIBRARY_PATH=" + value)
    mounted = []
    if "MOUNT_BY_RUNTIME_FOR_DP" in env:
        for source in DP_MOUNTS:
            if os.path.exists(rooted(source)) and _bind(spec, source):
                mounted.append(source)
    return mounted


def edit_spec(spec):
    """Add the Ascend environment, devices and mounts to an OCI spec (dict); return a summary."""
    env = {}
    for item in (spec.get("process") or {}).get("env") or []:
        if "=" in item:
            key, value = item.split("=", 1)
            env[key] = value
    common = add_common(spec, env)
    extra = ", runtime mounts %s" % ",".join(common) if common else ""
    visible = env.get("ASCEND_VISIBLE_DEVICES")
    if visible is None:
        return "no ASCEND_VISIBLE_DEVICES: no devices" + extra
    ids = parse_visible_devices(visible, available_devices())
    if not ids:
        return "ASCEND_VISIBLE_DEVICES=%r: no devices%s" % (visible, extra)
    options = parse_runtime_options(env.get("ASCEND_RUNTIME_OPTIONS"))
    linux = spec.setdefault("linux", {})
    devices = linux.setdefault("devices", [])
    resources = linux.setdefault("resources", {})
    allow = resources.setdefault("devices", [])
    paths = ["/dev/davinci%d" % i for i in ids] + list(MANAGEMENT_DEVICES)
    for path in paths:
        entry = _device(path)
        if not any(d.get("path") == path for d in devices):
            devices.append(entry)
        allow.append(
            {
                "allow": True,
                "type": "c",
                "major": entry["major"],
                "minor": entry["minor"],
                "access": "rwm",
            }
        )
    mounted = []
    if "NODRV" not in options:
        sources = mount_lists(env.get("ASCEND_RUNTIME_MOUNTS"))
        if os.path.isdir(rooted(SIM_STATE_DIR)):
            sources.append(SIM_STATE_DIR)
        allow_links = env.get("ASCEND_ALLOW_LINK", "").lower() == "true"
        for source in sources:
            host = rooted(source)
            if not os.path.exists(host):
                log("WARNING", "skip %s: not found on the host" % source)
                continue
            if os.path.islink(host) and not allow_links:
                log(
                    "WARNING",
                    "skip %s: symbolic link (set ASCEND_ALLOW_LINK=True)" % source,
                )
                continue
            if _bind(spec, source):
                mounted.append(source)
    return "devices %s, mounts %s%s" % (
        ",".join(paths),
        ",".join(mounted) or "none",
        extra,
    )


def prepare_bundle(bundle):
    path = os.path.join(bundle, "config.json")
    with open(path, encoding="utf-8") as handle:
        spec = json.load(handle)
    summary = edit_spec(spec)
    tmp = path + ".ascend-sim"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(spec, handle)
    os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    os.replace(tmp, path)
    return summary


def fail(args, message):
    log("ERROR", message)
    sys.stderr.write("ascend-docker-runtime: %s\n" % message)
    log_file = option(args, ["--log"])
    if log_file and option(args, ["--log-format"], "text") == "json":
        try:
            with open(log_file, "a", encoding="utf-8") as handle:
                handle.write(
                    json.dumps(
                        {
                            "level": "error",
                            "msg": "ascend-docker-runtime: " + message,
                            "time": datetime.datetime.now(
                                datetime.timezone.utc
                            ).isoformat(),
                        }
                    )
                    + "\n"
                )
        except OSError:
            pass
    return 1


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    index, command = split_command(args)
    if command in ("create", "run"):
        rest = args[index + 1 :]
        bundle = option(rest, ["--bundle", "-b"], os.getcwd())
        container = rest[-1] if rest and not rest[-1].startswith("-") else "?"
        try:
            summary = prepare_bundle(bundle)
        except CreateError as err:
            return fail(args, str(err))
        except (OSError, ValueError) as err:
            return fail(args, "cannot update %s/config.json: %s" % (bundle, err))
        log("INFO", "%s %s: %s" % (command, container, summary))
    runc = find_runc()
    if runc is None:
        return fail(args, "runc not found (PATH, /usr/sbin/runc, /usr/bin/runc)")
    os.execv(runc, [runc] + args)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
