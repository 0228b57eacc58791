# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PRIVATE to the cubestudio.ascend collection: may a node's Python run this controller's modules?

Controller side only. node_python_range reads the range of node Pythons an ansible-core release
supports from data/ansible_core.yml; node_python_verdict reads the output of the raw probe of the
first play of site.yml (roles/preflight/tasks/python.yml) and says whether the node can run
modules, and if not why and what to do (troubleshooting row T42).
"""

from __future__ import annotations

import re

PROBE_VERSION = "cubestudio-python-version"
PROBE_MISSING = "cubestudio-python-missing"
ROW = "T42"


class NodePythonDataError(ValueError):
    """data/ansible_core.yml is malformed or does not know the release."""


def _minor(text) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\..*)?", str(text).strip())
    if not match:
        raise NodePythonDataError(f"{text!r} is not a version (major.minor)")
    return int(match.group(1)), int(match.group(2))


def _pair(value, what: str) -> tuple[tuple[int, int], tuple[int, int]]:
    if not isinstance(value, list) or len(value) != 2:
        raise NodePythonDataError(f"{what} must be [oldest, newest], got {value!r}")
    low, high = _minor(value[0]), _minor(value[1])
    if low > high:
        raise NodePythonDataError(f"{what} {value!r}: oldest after newest")
    return low, high


def node_python_range(core_version: str, table: dict) -> dict:
    """The node Python range of ansible-core ``core_version`` (``2.21.5``) from the table.

    Returns {core, oldest, newest, known}: ``known`` is false for a release newer than the
    table's newest row, whose range is then the newest row's. NodePythonDataError for a release
    older than the table or a malformed table.
    """
    if not isinstance(table, dict) or table.get("schema") != 1:
        raise NodePythonDataError("the table must be a mapping with schema: 1")
    releases = table.get("releases")
    if not isinstance(releases, list) or not releases:
        raise NodePythonDataError("the table has no releases")
    rows = {}
    for row in releases:
        if not isinstance(row, dict) or "core" not in row:
            raise NodePythonDataError(f"a release row without core: {row!r}")
        rows[_minor(row["core"])] = _pair(
            row.get("node_python"), f"node_python of {row['core']}"
        )
    core = _minor(core_version)
    if core in rows:
        low, high = rows[core]
        known = True
    elif core > max(rows):
        core = max(rows)
        low, high = rows[core]
        known = False
    else:
        raise NodePythonDataError(
            f"ansible-core {core_version} is older than every release in the table"
            f" (oldest {'.'.join(map(str, min(rows)))})"
        )
    return {
        "core": "%d.%d" % core,
        "oldest": "%d.%d" % low,
        "newest": "%d.%d" % high,
        "known": known,
    }


def node_python_verdict(
    stdout: str, core_version: str, table: dict, interpreter: str
) -> dict:
    """Read the raw probe's output: may this node run modules of ansible-core ``core_version``?

    Returns {ok, version, oldest, newest, core, problem, warning}: ``problem`` (cause and fix,
    non-empty when ok is false) and ``warning`` (a Python newer than the tested range, or a
    release the table does not know yet).
    """
    span = node_python_range(core_version, table)
    verdict = dict(span, ok=True, version=None, problem="", warning="")
    del verdict["known"]
    where = (
        f"ansible-core {core_version} on this controller runs modules on Python"
        f" {span['oldest']} to {span['newest']}"
    )
    fix_interpreter = (
        "or point ansible_python_interpreter (inventory, host or group vars) at a Python"
        f" {span['oldest']} or newer on the node"
    )
    lines = [line.strip() for line in str(stdout or "").splitlines()]
    found = [line for line in lines if line.startswith((PROBE_VERSION, PROBE_MISSING))]
    if not found or found[0].startswith(PROBE_MISSING):
        verdict["ok"] = False
        verdict["problem"] = (
            f"[{ROW}] the node has no Python interpreter {interpreter!r} ({where});"
            f" install python3 (Debian/Ubuntu: apt-get install python3; openEuler, Kylin,"
            f" CentOS: dnf or yum install python3 of version {span['oldest']} or newer)"
            f" {fix_interpreter}"
        )
        return verdict
    text = found[0][len(PROBE_VERSION) :].strip()
    try:
        version = _minor(text)
    except NodePythonDataError:
        verdict["ok"] = False
        verdict["problem"] = (
            f"[{ROW}] {interpreter!r} on the node did not report its version"
            f" (it printed {text!r}; {where}); {fix_interpreter}"
        )
        return verdict
    verdict["version"] = text
    if version < _minor(span["oldest"]):
        verdict["ok"] = False
        verdict["problem"] = (
            f"[{ROW}] the node's {interpreter} is Python {text}, too old: {where}."
            f" Install a newer Python on the node (openEuler 22.03: python3 is 3.9;"
            f" Kylin V10, CentOS 7: a python3.9 or newer package or build) {fix_interpreter}"
        )
        older = [
            str(row["core"])
            for row in table["releases"]
            if _pair(row["node_python"], "node_python")[0] <= version
        ]
        if older:
            verdict["problem"] += (
                f", or run the playbook from a controller with ansible-core {older[-1]},"
                f" which still runs modules on Python {'%d.%d' % version}"
            )
    elif version > _minor(span["newest"]):
        verdict["warning"] = (
            f"the node's {interpreter} is Python {text}, newer than the range {where};"
            " modules may work but are not supported there"
        )
    if not span["known"] and verdict["ok"]:
        verdict["warning"] = (
            f"ansible-core {core_version} is newer than data/ansible_core.yml knows; the node"
            f" Python range of {span['core']} is assumed"
        )
    return verdict
