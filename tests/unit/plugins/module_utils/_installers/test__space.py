# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_space.shortfalls: needs add up per file system, and an unreadable one lacks space."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._space import (
    MIB,
    shortfalls,
)

CACHE = "/var/cache/ascend/packages"
ASCEND = "/usr/local/Ascend"


def fs(mount, free):
    return {"mount": mount, "checked_path": mount, "free_bytes": free}


def needs(cache, ascend):
    return [
        {"path": CACHE, "bytes": cache, "what": "the packages"},
        {"path": ASCEND, "bytes": ascend, "what": "the installed driver and firmware"},
    ]


def test_everything_fits():
    assert (
        shortfalls(
            needs(10 * MIB, 30 * MIB),
            {CACHE: fs("/", 40 * MIB), ASCEND: fs("/", 40 * MIB)},
        )
        == []
    )


def test_one_file_system_adds_the_needs_up():
    out = shortfalls(
        needs(10 * MIB, 30 * MIB), {CACHE: fs("/", 39 * MIB), ASCEND: fs("/", 39 * MIB)}
    )
    assert len(out) == 1
    assert out[0]["mount"] == "/"
    assert out[0]["need_bytes"] == 40 * MIB
    assert out[0]["message"] == (
        "the file system / needs 40.0 MiB (10.0 MiB for the packages in /var/cache/ascend/packages, "
        "30.0 MiB for the installed driver and firmware in /usr/local/Ascend) but its free space is 39.0 MiB"
    )


def test_separate_file_systems_are_judged_alone():
    space = {
        CACHE: fs("/var/cache/ascend/packages", 1 * MIB),
        ASCEND: fs("/", 100 * MIB),
    }
    out = shortfalls(needs(10 * MIB, 30 * MIB), space)
    assert [o["mount"] for o in out] == [CACHE]
    assert out[0]["paths"] == [CACHE]
    assert out[0]["message"].endswith("but its free space is 1.0 MiB")


def test_unreadable_free_space_lacks_space():
    out = shortfalls(needs(0, 0), {CACHE: fs("/", None), ASCEND: fs("/", None)})
    assert out[0]["message"].endswith("but its free space cannot be read")


@pytest.mark.parametrize("bad", [-1, True, 1.5, "10"])
def test_bad_need(bad):
    with pytest.raises(ValueError, match="is not a number of bytes"):
        shortfalls(needs(bad, 0), {CACHE: fs("/", 1), ASCEND: fs("/", 1)})


def test_path_without_space():
    with pytest.raises(
        ValueError, match="no free space was read for /usr/local/Ascend"
    ):
        shortfalls(needs(0, 0), {CACHE: fs("/", 1)})


def test_small_sizes_in_kib():
    space = {CACHE: fs("/small", 64 * 1024), ASCEND: fs("/", 100 * MIB)}
    out = shortfalls(needs(80 * 1024, 0), space)
    assert out[0]["message"] == (
        "the file system /small needs 80 KiB (80 KiB for the packages in /var/cache/ascend/packages) "
        "but its free space is 64 KiB"
    )
