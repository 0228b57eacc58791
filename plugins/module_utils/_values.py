# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""Small readers of values as facts and the Kubernetes API give them, shared by every package."""

from __future__ import annotations

__all__ = ["int_or_none"]


def int_or_none(value):
    """A whole number from an int or a string of digits (``8``, ``"8"``, ``" 8 "``); None for
    anything else: a bool, a float, a sign, a quantity with a suffix (``"1k"``), None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
