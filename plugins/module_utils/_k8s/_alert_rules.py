# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The exporter's alert rules with the `for` durations a user chose.

The rules file (roles/exporter/files/ascend-npu.rules.yml) keeps its comments and layout: only
the value of each named alert's `for:` line is replaced, so the defaults give the file byte for
byte (the file `promtool test rules` tests).
"""

from __future__ import annotations

import re

# A Prometheus duration (model.ParseDuration): units from the largest to the smallest, each once.
_DURATION = re.compile(r"^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$")
_ALERT = re.compile(r"^(\s*)- alert:\s*(\S+)\s*$")
_FOR = re.compile(r"^(\s*)for:\s*\S+(\s*)$")


def is_duration(value):
    """True for a Prometheus duration other than an empty one (0s is one: fire at once)."""
    return isinstance(value, str) and bool(value) and _DURATION.match(value) is not None


def with_durations(text, durations):
    """`text` (the rules file) with the `for:` of each alert of `durations` (name: duration).

    ValueError names an alert the file does not have, an alert without `for:` and a value that
    is not a Prometheus duration.
    """
    bad = sorted(
        "%s: %r" % (name, value)
        for name, value in durations.items()
        if not is_duration(value)
    )
    if bad:
        raise ValueError(
            "not a Prometheus duration (a number and a unit: ms, s, m, h, d, w, y; "
            "for example 5m or 1h30m): " + ", ".join(bad)
        )
    lines = text.splitlines(keepends=True)
    alert = None
    seen = set()
    for index, line in enumerate(lines):
        head = _ALERT.match(line)
        if head:
            alert = head.group(2)
            continue
        match = _FOR.match(line.rstrip("\n"))
        if alert in durations and alert not in seen and match:
            end = "\n" if line.endswith("\n") else ""
            lines[index] = "%sfor: %s%s" % (match.group(1), durations[alert], end)
            seen.add(alert)
    missing = sorted(set(durations) - seen)
    if missing:
        raise ValueError(
            "the rules file has no alert with a `for:` named " + ", ".join(missing)
        )
    return "".join(lines)
