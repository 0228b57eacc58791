# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""Whether the node has the disk space a run needs, before anything is copied or run.

A firmware flash or a driver install that runs out of space half-way leaves a card or a driver
that neither the old nor the new package can repair (the bricked card of the project's seed
story). The roles therefore add up what each path needs - the packages copied to the cache, the
installed size under the install path - and compare it with the free space of the file system
that holds the path (``ascend_host_facts``). Paths on one file system share its free space: their
needs add up.
"""

from __future__ import annotations

MIB = 1024 * 1024


def _mib(value: int) -> str:
    """A size for a message: MiB from 1 MiB up, KiB below (a 64 KiB file system is not 0.1 MiB)."""
    if value >= MIB:
        return f"{value / MIB:.1f} MiB"
    return f"{value / 1024:.0f} KiB"


def shortfalls(needs: list, space: dict) -> list:
    """The file systems that lack space, each as a dict.

    ``needs``: ``[{"path": str, "bytes": int, "what": str}, ...]``.
    ``space``: ``ascend_host_facts``' ``space`` - ``{path: {"mount", "free_bytes", ...}}``.
    Returns ``[{"mount", "paths", "need_bytes", "free_bytes", "message"}, ...]``, empty when
    everything fits. A path whose free space cannot be read counts as lacking space.
    """
    groups: dict = {}
    order: list = []
    for need in needs:
        path = need["path"]
        size = need["bytes"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError(f"the need of {path} is not a number of bytes: {size!r}")
        info = space.get(path)
        if info is None:
            raise ValueError(f"no free space was read for {path}")
        key = info.get("mount") or info.get("checked_path") or path
        if key not in groups:
            groups[key] = {
                "mount": key,
                "paths": [],
                "need_bytes": 0,
                "free_bytes": None,
                "parts": [],
            }
            order.append(key)
        group = groups[key]
        group["paths"].append(path)
        group["need_bytes"] += size
        group["free_bytes"] = info.get("free_bytes")
        group["parts"].append(f"{_mib(size)} for {need['what']} in {path}")
    out = []
    for key in order:
        group = groups[key]
        free = group["free_bytes"]
        if free is not None and free >= group["need_bytes"]:
            continue
        free_text = "cannot be read" if free is None else f"is {_mib(free)}"
        out.append(
            {
                "mount": group["mount"],
                "paths": group["paths"],
                "need_bytes": group["need_bytes"],
                "free_bytes": free,
                "message": f"the file system {group['mount']} needs {_mib(group['need_bytes'])} "
                f"({', '.join(group['parts'])}) but its free space {free_text}",
            }
        )
    return out
