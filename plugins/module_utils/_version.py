# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Versions of Huawei Ascend software and how they compare.
#
# Ascend versions are dotted fields, compared case-insensitively (24.1.RC1 == 24.1.rc1), with an
# optional leading "v" (the docker runtime writes v7.3.0):
#   HDK driver   23.0.7, 24.1.rc3, 24.1.rc3.7, 25.0.rc1.1, 25.0.rc1.b010, 26.0.RC1
#   firmware     7.1.0.11.220
#   CANN         8.0.RC3, 7.0.T10, 8.0.RC3.alpha001, 8.5.0
#   MindCluster  6.0.RC1, 7.3.0, 26.0.0
# The first three fields name the release; extra fields are patch levels of that release.
# At one position the order is
#   t<N> (test build) < alpha<N> < beta<N> < rc<N> < (field absent) < number, b<N> (build)
# so 24.1.rc1 < 24.1.rc3 < 24.1.rc3.7 < 24.1.0 < 24.1.0.3 < 24.1.1 and
# 8.0.RC3.alpha001 < 8.0.RC3 (an alpha of a release comes before the release). Other letter
# tags rank like alpha. A number and a b<N> build tag compare by their numbers.
#
# Ranges as Huawei's version.info files write them, "[lo,hi],[lo,hi]", are inclusive, and an
# upper bound covers the patch levels of its release (hi 7.1.99 admits 7.1.99.3). An upper bound
# written with a trailing "." (firmware compatible_version_drv=[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.])
# is read as "this release and everything built on it":
#   X.Y.rcN.  -> X.Y.rcN and its patch levels (X.Y.rcN.M ...)
#   X.Y.N.    -> the maintenance releases X.Y.M (M >= N) of the X.Y release line, with patches
# which is what makes firmware 7.1.0.11.220 (shipped in HDK 23.0.7) accept driver 23.0.7 and
# refuse 24.1.0. This reading is an assumption (documented in docs/version-matrix.md).

from __future__ import annotations

import re

__all__ = [
    "VersionError",
    "compare",
    "in_range",
    "in_ranges",
    "is_version",
    "normalize",
    "parse_ranges",
    "release",
    "release_line",
    "same_release",
    "sort_key",
]

_FIELD_RE = re.compile(r"(?P<tag>[a-z]*)(?P<num>[0-9]*)")
_RANKS = {"t": 0, "alpha": 1, "beta": 2, "rc": 3, "b": 5}
_RANK_OTHER_TAG = 1
_RANK_ABSENT = 4
_RANK_NUMBER = 5


class VersionError(ValueError):
    """A string that is not an Ascend version, or a malformed range list."""


def normalize(version) -> str:
    """Lower-case version text without a leading ``v`` and surrounding blanks."""
    if not isinstance(version, str):
        raise VersionError(
            f"version must be a string, got {type(version).__name__}: {version!r}"
        )
    text = version.strip().lower()
    if text.startswith("v") and text[1:2].isdigit():
        text = text[1:]
    return text


def _field_key(field: str, version: str) -> tuple:
    match = _FIELD_RE.fullmatch(field)
    if not field or not match:
        raise VersionError(f"{version!r} is not a version: bad field {field!r}")
    tag, num = match.group("tag"), match.group("num")
    number = int(num) if num else 0
    if not tag:
        return (_RANK_NUMBER, number)
    return (_RANKS.get(tag, _RANK_OTHER_TAG), number)


def sort_key(version: str) -> tuple:
    """Key that orders versions as described in this file's header."""
    text = normalize(version)
    fields = text.split(".")
    if not text or not fields[0].isdigit():
        raise VersionError(f"{version!r} is not a version: it must start with a number")
    return tuple(_field_key(field, version) for field in fields)


def is_version(version) -> bool:
    try:
        sort_key(version)
    except VersionError:
        return False
    return True


def _pad(key: tuple, length: int) -> tuple:
    return key + ((_RANK_ABSENT, 0),) * (length - len(key))


def compare(left: str, right: str) -> int:
    """-1, 0 or 1 as ``left`` is older than, the same as or newer than ``right``."""
    a, b = sort_key(left), sort_key(right)
    length = max(len(a), len(b))
    a, b = _pad(a, length), _pad(b, length)
    return (a > b) - (a < b)


def release(version: str) -> str:
    """The release a version belongs to: its first three fields, normalised."""
    sort_key(version)
    return ".".join(normalize(version).split(".")[:3])


def release_line(version: str) -> str:
    """The release line: the first two fields (``24.1`` for 24.1.rc3.7)."""
    sort_key(version)
    return ".".join(normalize(version).split(".")[:2])


def same_release(left: str, right: str) -> bool:
    """Whether two versions name the same release (patch levels ignored)."""
    return release(left) == release(right)


def parse_ranges(text) -> list:
    """``"[lo,hi],[lo,hi]"`` (or a list of such strings / pairs) -> ``[(lo, hi), ...]``.

    A single value ``[v]`` becomes ``(v, v)``. Bounds are kept as written (a trailing ``.``
    matters, see in_range). Raises VersionError on anything else.
    """
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        ranges = []
        for item in text:
            if isinstance(item, (list, tuple)) and len(item) == 2:
                ranges.append((str(item[0]).strip(), str(item[1]).strip()))
            elif isinstance(item, dict) and "min" in item and "max" in item:
                ranges.append((str(item["min"]).strip(), str(item["max"]).strip()))
            elif isinstance(item, str):
                ranges.extend(parse_ranges(item))
            else:
                raise VersionError(f"cannot read {item!r} as a version range")
        return ranges
    if not isinstance(text, str):
        raise VersionError(f"cannot read {text!r} as version ranges")
    compact = re.sub(r"\s+", "", text)
    if not compact:
        return []
    if not re.fullmatch(r"\[[^\[\]]*\](,\[[^\[\]]*\])*", compact):
        raise VersionError(f"{text!r} is not a list of [low,high] ranges")
    ranges = []
    for body in re.findall(r"\[([^\[\]]*)\]", compact):
        parts = body.split(",")
        if len(parts) == 1 and parts[0]:
            ranges.append((parts[0], parts[0]))
        elif len(parts) == 2 and parts[0] and parts[1]:
            ranges.append((parts[0], parts[1]))
        else:
            raise VersionError(f"{text!r}: [{body}] is not a [low,high] range")
    return ranges


def _within_upper(version: str, upper: str) -> bool:
    key = sort_key(version)
    if upper.endswith("."):
        base = sort_key(upper[:-1])
        head, last = base[:-1], base[-1]
        if key[: len(head)] != head or len(key) < len(base):
            return False
        if last[0] == _RANK_NUMBER:
            return key[len(head)][0] == _RANK_NUMBER and key[len(head)] >= last
        return key[len(head)] == last
    bound = sort_key(upper)
    # Patch levels of the upper bound's release are inside: compare on the bound's length.
    prefix = _pad(key[: len(bound)], len(bound))
    return prefix <= bound


def in_range(version: str, low: str, high: str) -> bool:
    """Whether ``version`` lies in the inclusive range [low, high] (see the header)."""
    lower = low[:-1] if low.endswith(".") else low
    return compare(version, lower) >= 0 and _within_upper(version, high)


def in_ranges(version: str, ranges) -> bool:
    """Whether ``version`` lies in any of ``ranges`` (as parse_ranges accepts them)."""
    return any(in_range(version, low, high) for low, high in parse_ranges(ranges))
