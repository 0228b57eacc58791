# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_values.int_or_none: the one reader of whole numbers that _chip_map, _iommu, _node_record
and _k8s_record share (sysfs sriov_numvfs, npu-smi ids, Kubernetes allocatable quantities)."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)


@pytest.mark.parametrize(
    "value, expected",
    [
        (0, 0),
        (8, 8),
        ("8", 8),  # Kubernetes: status.allocatable["huawei.com/Ascend910"]
        (" 16\n", 16),  # sysfs: sriov_numvfs as read from the file
        ("0", 0),
    ],
)
def test_whole_numbers_are_read(value, expected):
    read = int_or_none(value)
    assert read == expected
    assert isinstance(read, int) and not isinstance(read, bool)


@pytest.mark.parametrize(
    "value",
    [None, True, False, 8.0, "", " ", "-1", "+8", "1k", "8.0", "NA", [8], {"n": 8}],
)
def test_anything_else_is_none(value):
    assert int_or_none(value) is None
