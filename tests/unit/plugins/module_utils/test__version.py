# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    compare,
    in_range,
    in_ranges,
    is_version,
    parse_ranges,
    release,
    release_line,
    same_release,
)

# Each list is in ascending order.
ORDERED = [
    [
        "23.0.rc2",
        "23.0.rc3",
        "23.0.rc3.2",
        "23.0.0",
        "23.0.3",
        "23.0.7",
        "24.1.rc1",
        "24.1.RC2",
        "24.1.rc3",
        "24.1.rc3.7",
        "24.1.0",
        "24.1.0.3",
        "25.0.rc1",
        "25.0.rc1.1",
        "25.0.rc1.b010",
        "25.2.0",
        "26.0.RC1",
    ],
    [
        "7.0.T10",
        "7.0.RC1",
        "7.0.0",
        "8.0.RC3.alpha001",
        "8.0.RC3",
        "8.0.0",
        "8.1.RC1",
        "8.5.0",
        "9.0.0",
    ],
    [
        "7.0.0.5.242",
        "7.1.0.5.220",
        "7.1.0.7.220",
        "7.1.0.11.220",
        "7.3.0.1.231",
        "7.5.0.1.129",
        "7.5.0.2.220",
        "7.7.0.1.231",
    ],
    ["5.0.RC1", "5.0.RC3", "6.0.RC1", "6.0.0", "v7.3.0", "26.0.0"],
]


@pytest.mark.parametrize("versions", ORDERED)
def test_ordering(versions):
    for index, older in enumerate(versions):
        for newer in versions[index + 1 :]:
            assert compare(older, newer) == -1, (older, newer)
            assert compare(newer, older) == 1, (newer, older)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("24.1.RC1", "24.1.rc1"),
        ("v7.3.0", "7.3.0"),
        (" 8.0.RC3 ", "8.0.rc3"),
        ("V7.3.0", "7.3.0"),
    ],
)
def test_case_and_prefix_insensitive(left, right):
    assert compare(left, right) == 0


def test_release_and_line():
    assert release("24.1.rc3.7") == "24.1.rc3"
    assert release("25.0.RC1.b010") == "25.0.rc1"
    assert release("7.1.0.11.220") == "7.1.0"
    assert release_line("24.1.rc3.7") == "24.1"
    assert same_release("24.1.RC3", "24.1.rc3.7")
    assert same_release("8.0.RC3.alpha001", "8.0.rc3")
    assert not same_release("24.1.rc3", "24.1.0")


@pytest.mark.parametrize(
    "text", ["", "abc", "1..2", "1.2-3", ".1", "v", "1.2.rc 3", None, 7]
)
def test_not_versions(text):
    assert not is_version(text)
    with pytest.raises(VersionError):
        compare(text, "1.0")


def test_parse_ranges():
    assert parse_ranges("[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]") == [
        ("23.0.rc3", "23.0.rc3."),
        ("23.0.0", "23.0.0."),
    ]
    assert parse_ranges("[7.0.0,7.1.99]") == [("7.0.0", "7.1.99")]
    assert parse_ranges(" [7.0.0 , 7.2.99] ") == [("7.0.0", "7.2.99")]
    assert parse_ranges("[V100R001C29],[V100R001C30]") == [
        ("V100R001C29", "V100R001C29"),
        ("V100R001C30", "V100R001C30"),
    ]
    assert parse_ranges(
        ["[7.0.0,7.1.99]", ["8.0.0", "8.1.0"], {"min": "1.0", "max": "2.0"}]
    ) == [
        ("7.0.0", "7.1.99"),
        ("8.0.0", "8.1.0"),
        ("1.0", "2.0"),
    ]
    assert parse_ranges(None) == []
    assert parse_ranges("") == []


@pytest.mark.parametrize(
    "text",
    ["7.0.0,7.1.99", "[7.0.0,7.1.99", "[a,b,c]", "[,1]", "[]", [1], {"min": 1}, 5],
)
def test_parse_ranges_errors(text):
    with pytest.raises(VersionError):
        parse_ranges(text)


FIRMWARE_7_1_0_11_220_ACCEPTS = "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"


@pytest.mark.parametrize(
    ("driver", "accepted"),
    [
        ("23.0.7", True),  # the real pair: firmware 7.1.0.11.220 shipped in HDK 23.0.7
        ("23.0.0", True),
        ("23.0.3", True),
        ("23.0.7.1", True),
        ("23.0.rc3", True),
        ("23.0.RC3.2", True),
        ("23.0.rc2", False),
        ("24.1.0", False),
        ("24.1.rc1", False),
        ("22.0.4", False),
    ],
)
def test_firmware_driver_ranges_with_trailing_dot(driver, accepted):
    assert in_ranges(driver, FIRMWARE_7_1_0_11_220_ACCEPTS) is accepted


@pytest.mark.parametrize(
    ("firmware", "ranges", "accepted"),
    [
        ("7.1.0.11.220", "[7.0.0,7.1.99]", True),  # driver 23.0.7 + its firmware
        (
            "7.1.0.11.220",
            "[7.0.0,7.2.99]",
            True,
        ),  # driver 24.1.rc1 doc example pairs these
        ("7.0.0", "[7.0.0,7.1.99]", True),
        ("7.1.99.5", "[7.0.0,7.1.99]", True),
        ("7.3.0.1.231", "[7.0.0,7.2.99]", False),
        ("6.3.0.1.241", "[7.0.0,7.1.99]", False),
    ],
)
def test_driver_firmware_ranges(firmware, ranges, accepted):
    assert in_ranges(firmware, ranges) is accepted


def test_rc_upper_bound_with_dot_is_that_rc_only():
    assert in_range("24.1.rc1.5", "24.1.rc1", "24.1.rc1.")
    assert not in_range("24.1.rc2", "24.1.rc1", "24.1.rc1.")
    assert not in_range("24.1.0", "24.1.rc1", "24.1.rc1.")


VERSION_FIELD = st.one_of(
    st.integers(min_value=0, max_value=300).map(str),
    st.builds(
        lambda tag, n: f"{tag}{n}",
        st.sampled_from(["rc", "RC", "t", "alpha", "beta", "b"]),
        st.integers(0, 20),
    ),
)
VERSIONS = st.builds(
    lambda first, rest: ".".join([str(first), *rest]),
    st.integers(min_value=0, max_value=30),
    st.lists(VERSION_FIELD, max_size=5),
)


@given(VERSIONS, VERSIONS, VERSIONS)
def test_compare_is_a_total_order(a, b, c):
    assert compare(a, a) == 0
    assert compare(a, b) == -compare(b, a)
    if compare(a, b) <= 0 and compare(b, c) <= 0:
        assert compare(a, c) <= 0


@given(st.text(max_size=20), st.text(max_size=20))
def test_garbage_raises_version_error_only(a, b):
    try:
        compare(a, b)
    except VersionError:
        pass
    try:
        in_ranges(a, b)
    except VersionError:
        pass
