# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The environment a shell script such as CANN's set_env.sh exports, found by sourcing it
# in a clean shell and comparing the environment before and after (``env -0`` both times). The
# script itself decides what it exports (CANN 8.0 uses $(arch), 8.5 finds its own directory
# through BASH_SOURCE), so nothing here reads its text.

from __future__ import annotations

__all__ = [
    "AFTER",
    "BEFORE",
    "IGNORED",
    "RC",
    "SCRIPT",
    "EnvDumpError",
    "changes",
    "clean_path_list",
    "env_file_lines",
    "parse_dump",
]

BEFORE = "@@cubestudio-env-before@@"
AFTER = "@@cubestudio-env-after@@"
RC = "@@cubestudio-env-rc@@="

# Run as: bash --noprofile --norc -c SCRIPT <name> <script to source>, under env -i.
SCRIPT = (
    "printf '%%s\\0' '%s'; env -0; printf '%%s\\0' '%s'; "
    '. "$1" >/dev/null </dev/null; rc=$?; '
    "env -0; printf '%s%%s\\0' \"$rc\"" % (BEFORE, AFTER, RC)
)

# Variables the shell itself sets or changes; they are not part of what the script exports.
IGNORED = frozenset(("_", "SHLVL", "PWD", "OLDPWD"))


class EnvDumpError(Exception):
    """The output of the dump is not what SCRIPT prints (the script exited the shell, ...)."""


def _entries(block: list) -> dict:
    result = {}
    for entry in block:
        name, sep, value = entry.partition("=")
        if sep and name:
            result[name] = value
    return result


def parse_dump(data: bytes) -> tuple:
    """``(before, after, rc)`` from the NUL-separated output of SCRIPT."""
    text = data.decode("utf-8", "surrogateescape")
    entries = text.split("\0")
    try:
        start = entries.index(BEFORE)
        middle = entries.index(AFTER, start + 1)
    except ValueError as exc:
        raise EnvDumpError("the output has no %s/%s markers" % (BEFORE, AFTER)) from exc
    end = next(
        (
            index
            for index in range(middle + 1, len(entries))
            if entries[index].startswith(RC)
        ),
        None,
    )
    if end is None:
        raise EnvDumpError(
            "the shell ended while the script was sourced (does it call exit?)"
        )
    rc_text = entries[end][len(RC) :]
    rc = int(rc_text) if rc_text.isdigit() else None
    return (
        _entries(entries[start + 1 : middle]),
        _entries(entries[middle + 1 : end]),
        rc,
    )


def clean_path_list(value: str) -> str:
    """A ``:`` list without empty elements (an empty element means the current directory) or
    repeated ones, in the original order."""
    seen = []
    for element in value.split(":"):
        if element and element not in seen:
            seen.append(element)
    return ":".join(seen)


def changes(before: dict, after: dict, ignored=IGNORED) -> dict:
    """Variables the script set or changed. Those whose name ends in PATH are ``:`` lists and are
    cleaned with clean_path_list, since ``$LD_LIBRARY_PATH`` of an empty variable leaves a
    trailing ``:``."""
    result = {}
    for name in sorted(after):
        if name in ignored or before.get(name) == after[name]:
            continue
        value = after[name]
        if name.endswith("PATH"):
            value = clean_path_list(value)
        result[name] = value
    return result


def env_file_lines(variables: dict) -> tuple:
    """``(lines, skipped)``: sorted ``KEY=VALUE`` lines as ``docker run --env-file`` and
    ``kubectl create configmap --from-env-file`` read them (no quoting, no expansion), and the
    names whose value cannot be written on one line."""
    lines = []
    skipped = []
    for name in sorted(variables):
        value = variables[name]
        if "\n" in value or "\r" in value:
            skipped.append(name)
            continue
        lines.append("%s=%s" % (name, value))
    return lines, skipped
