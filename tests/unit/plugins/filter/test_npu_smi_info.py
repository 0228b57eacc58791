# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The npu_smi_info filter gives the parser's structure for real outputs and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.npu_smi_info import (
    FilterModule,
    npu_smi_info,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)

FIXTURES = Path(__file__).parents[1] / "module_utils" / "fixtures" / "npu-smi"
INFO_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.txt")
    if not path.name.startswith(("npu-smi-info-", "npu-smi-upgrade-", "lspci-"))
)


def test_registered_under_its_name():
    assert FilterModule().filters() == {"npu_smi_info": npu_smi_info}


@pytest.mark.parametrize("name", INFO_FIXTURES)
def test_real_outputs_parse_like_the_module(name):
    text = (FIXTURES / name).read_text()
    assert npu_smi_info(text) == parse_info(text)


def test_one_npu_of_a_container():
    text = (FIXTURES / "910b3-8card-23.0.7-with-processes.txt").read_text()
    full = npu_smi_info(text)
    assert full["npu_count"] == 8
    assert full["npus"][0]["id"] == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "not an npu-smi info table"),
        ("bash: line 1: npu-smi: command not found\n", "not an npu-smi info table"),
        (
            "dcmi module initialize failed. ret is -8005\n",
            "DCMI error -8005: the device is not started normally",
        ),
    ],
)
def test_bad_text_fails_with_the_reason(text, message):
    with pytest.raises(AnsibleFilterError) as err:
        npu_smi_info(text)
    assert message in str(err.value)


def test_not_a_string_is_refused():
    with pytest.raises(AnsibleFilterError, match="expects the text printed by npu-smi"):
        npu_smi_info({"npu_count": 1})
