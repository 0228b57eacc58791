# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. What the Huawei installers need from the host itself, read without running anything:
# free space where they unpack and install (statvfs of the path, or of its nearest existing
# parent, and the mount that holds it from /proc/self/mountinfo), the programs they look up on
# PATH, and the headers of the running kernel that the driver's DKMS build compiles against.
#
# Ansible's own mount facts leave out tmpfs and overlay file systems (a tmpfs /tmp, a container's
# root), so they cannot answer "how much space is there under this path".

from __future__ import annotations

import os
import re

__all__ = [
    "find_program",
    "kernel_headers",
    "mount_of",
    "nearest_existing",
    "parse_mountinfo",
    "space",
]

_OCTAL_RE = re.compile(r"\\([0-7]{3})")


def _unescape(field: str) -> str:
    """Mount points in mountinfo escape space, tab, newline and backslash as \\ooo."""
    return _OCTAL_RE.sub(lambda match: chr(int(match.group(1), 8)), field)


def parse_mountinfo(text: str | None) -> list:
    """``[{mount, fstype, source}]`` from /proc/self/mountinfo (or /proc/mounts) text."""
    mounts = []
    for line in (text or "").splitlines():
        fields = line.split()
        if " - " in line and len(fields) >= 7:
            # mountinfo: id parent major:minor root mount-point options [optional...] - type source ...
            left, right = line.split(" - ", 1)
            left_fields = left.split()
            right_fields = right.split()
            if len(left_fields) < 5 or not right_fields:
                continue
            mounts.append(
                {
                    "mount": _unescape(left_fields[4]),
                    "fstype": right_fields[0],
                    "source": _unescape(right_fields[1])
                    if len(right_fields) > 1
                    else None,
                }
            )
        elif len(fields) >= 3 and fields[1].startswith("/"):
            # /proc/mounts: source mount-point type options dump pass
            mounts.append(
                {
                    "mount": _unescape(fields[1]),
                    "fstype": fields[2],
                    "source": _unescape(fields[0]),
                }
            )
    return mounts


def mount_of(path: str, mounts: list) -> dict | None:
    """The mount that holds ``path``: the longest mount point that is ``path`` or a parent of it.

    When the same point is mounted twice, the later entry (the one on top) wins.
    """
    path = os.path.normpath(path)
    best = None
    for mount in mounts:
        point = os.path.normpath(mount["mount"])
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best["mount"])):
            best = dict(mount, mount=point)
    return best


def nearest_existing(path: str) -> str:
    """``path`` itself when it exists, else its nearest existing parent (``/`` at worst)."""
    current = os.path.normpath(path)
    while not os.path.exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def space(path: str, mounts: list) -> dict:
    """Size and free space of the file system that holds (or will hold) ``path``.

    ``free_bytes`` is what an unprivileged writer gets (f_bavail), as ``df`` reports it.
    """
    checked = nearest_existing(path)
    result = {
        "path": path,
        "exists": os.path.exists(path),
        "checked_path": checked,
        "mount": None,
        "fstype": None,
        "size_bytes": None,
        "free_bytes": None,
        "free_gb": None,
    }
    mount = mount_of(checked, mounts)
    if mount is not None:
        result["mount"] = mount["mount"]
        result["fstype"] = mount["fstype"]
    try:
        stat = os.statvfs(checked)
    except OSError:
        return result
    result["size_bytes"] = stat.f_blocks * stat.f_frsize
    result["free_bytes"] = stat.f_bavail * stat.f_frsize
    result["free_gb"] = round(result["free_bytes"] / float(1 << 30), 1)
    return result


def find_program(name: str, search_path: str | None) -> str | None:
    """Path of the executable ``name`` on ``search_path`` (a PATH string), like ``command -v``."""
    for directory in (search_path or "").split(os.pathsep):
        if not directory:
            continue
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def kernel_headers(release: str, root: str = "/") -> dict:
    """The build tree of kernel ``release`` (``/lib/modules/<release>/build``), which DKMS needs."""
    build = "/lib/modules/%s/build" % release
    on_disk = os.path.join(root, build.lstrip("/"))
    return {
        "release": release,
        "build_dir": build,
        "headers": os.path.isdir(on_disk),
    }
