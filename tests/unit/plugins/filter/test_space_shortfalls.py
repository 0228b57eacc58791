# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The space_shortfalls filter: results of _space, bad input as AnsibleFilterError."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.space_shortfalls import (
    FilterModule,
)

FILTER = FilterModule().filters()["space_shortfalls"]
SPACE = {"/a": {"mount": "/", "free_bytes": 100}}


def test_short_and_fine():
    assert FILTER([{"path": "/a", "bytes": 100, "what": "x"}], SPACE) == []
    # Jinja arithmetic may hand a float or a string of digits: read as bytes.
    assert (
        FILTER([{"path": "/a", "bytes": "101", "what": "x"}], SPACE)[0]["need_bytes"]
        == 101
    )


@pytest.mark.parametrize(
    ("needs", "space", "match"),
    [
        ("not a list", SPACE, "expects a list"),
        ([{"path": "/a", "bytes": 1, "what": "x"}], "no", "expects the space"),
        (
            [{"path": "/b", "bytes": 1, "what": "x"}],
            SPACE,
            "no free space was read for /b",
        ),
        ([{"path": "/a", "bytes": "lots", "what": "x"}], SPACE, "space_shortfalls: "),
        ([{"path": "/a", "what": "x"}], SPACE, "is not a number of bytes"),
    ],
)
def test_bad_input(needs, space, match):
    with pytest.raises(AnsibleFilterError, match=match):
        FILTER(needs, space)
