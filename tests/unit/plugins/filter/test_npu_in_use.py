# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The npu_in_use filter: the rule of module_utils._installers._in_use, bad input as a filter error."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.npu_in_use import npu_in_use

FREE = {"containers": [], "engines": {}, "errors": []}


def test_free_and_in_use():
    assert npu_in_use([], FREE)["in_use"] is False
    use = npu_in_use([{"pid": 1, "name": "x", "npu": 0, "chip": 0}], FREE)
    assert use["in_use"] is True and use["summary"].startswith("1 process(es)")


def test_bad_input_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="npu_in_use"):
        npu_in_use([], "no")
