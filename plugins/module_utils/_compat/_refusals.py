# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Which findings of cubestudio.ascend.ascend_compat refuse an install, and the sentences
# a refusal lists.

from __future__ import annotations

__all__ = [
    "STRICT_REFUSALS",
    "finding_lines",
    "refusals",
]

# Warnings that refuse an install under the strict policy: a firmware build the matrix never saw
# with the driver's HDK release.
STRICT_REFUSALS = ("driver.firmware.matrix",)


def refusals(findings: list, policy: str) -> list:
    """The findings that refuse the versions under ``policy``: every error, and under strict the
    warnings of STRICT_REFUSALS. preflight and npu_driver both refuse on this list."""
    return [
        finding
        for finding in findings
        if finding["severity"] == "error"
        or (
            policy == "strict"
            and finding["severity"] == "warning"
            and finding["rule"] in STRICT_REFUSALS
        )
    ]


def finding_lines(findings: list) -> list:
    """Each finding as ``[rule] message. Fix: fix.``, the sentences a refusal lists."""
    return [f"[{f['rule']}] {f['message']}. Fix: {f['fix']}." for f in findings]
