# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property tests: garbage, truncated or mutated npu-smi output ends in NpuSmiParseError.

Whatever the input, the parsers either return data of the documented shape or raise
NpuSmiParseError with a non-empty message; no other exception escapes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    NpuSmiParseError,
    parse_board,
    parse_info,
    parse_key_values,
    parse_list,
    parse_mapping,
    parse_template_info,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "npu-smi"
INFO_TEXTS = [
    path.read_text()
    for path in sorted(FIXTURES.glob("*.txt"))
    if not path.name.startswith(("npu-smi-info-", "npu-smi-upgrade-", "lspci-"))
]
OTHER_TEXTS = [
    path.read_text()
    for pattern in ("npu-smi-info-*.txt", "npu-smi-upgrade-*.txt")
    for path in sorted(FIXTURES.glob(pattern))
]
PARSERS = [
    parse_info,
    parse_key_values,
    parse_list,
    parse_mapping,
    parse_board,
    parse_template_info,
]

# Characters that matter to the parsers, so that random text reaches deep branches.
TABLE_ALPHABET = st.sampled_from(
    list("|+-=/ :.\n0123456789ABCNOKaNPUhipd") + ["NA", "OK", "npu-smi ", "Version: "]
)


def check_info_shape(fact: dict) -> None:
    assert fact["npu_count"] == len(fact["npus"]) >= 1
    assert fact["chip_count"] == sum(len(npu["chips"]) for npu in fact["npus"])
    assert isinstance(fact["healthy"], bool)
    for npu in fact["npus"]:
        assert isinstance(npu["id"], int)
        assert npu["chips"]
    for process in fact["processes"]:
        assert isinstance(process["pid"], int)


def outcome(parser, text):
    try:
        return parser(text)
    except NpuSmiParseError as err:
        assert str(err)
        return err


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_any_text_is_parsed_or_refused(text):
    for parser in PARSERS:
        result = outcome(parser, text)
        if parser is parse_info and not isinstance(result, NpuSmiParseError):
            check_info_shape(result)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TABLE_ALPHABET, max_size=200).map("".join))
def test_table_like_text_is_parsed_or_refused(text):
    for parser in PARSERS:
        result = outcome(parser, text)
        if parser is parse_info and not isinstance(result, NpuSmiParseError):
            check_info_shape(result)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(INFO_TEXTS + OTHER_TEXTS), st.data())
def test_truncated_output_is_parsed_or_refused(text, data):
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    for parser in PARSERS:
        result = outcome(parser, text[:cut])
        if parser is parse_info and not isinstance(result, NpuSmiParseError):
            check_info_shape(result)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(INFO_TEXTS + OTHER_TEXTS), st.data())
def test_mutated_output_is_parsed_or_refused(text, data):
    position = data.draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))
    length = data.draw(st.integers(min_value=0, max_value=8))
    insert = data.draw(
        st.text(
            alphabet=TABLE_ALPHABET.map(lambda s: s[0]) | st.characters(), max_size=8
        )
    )
    mutated = text[:position] + insert + text[position + length :]
    for parser in PARSERS:
        result = outcome(parser, mutated)
        if parser is parse_info and not isinstance(result, NpuSmiParseError):
            check_info_shape(result)


@pytest.mark.parametrize("index", range(len(INFO_TEXTS)))
def test_every_cut_inside_a_chip_block_is_refused(index):
    """Output that stops after the first line of a two-line chip block never parses."""
    lines = INFO_TEXTS[index].split("\n")
    header2 = next(no for no, line in enumerate(lines) if line.startswith("| Chip"))
    end = next(
        (no for no, line in enumerate(lines) if "Process id" in line), len(lines)
    )
    cuts = [
        no + 1
        for no in range(header2 + 1, end)
        if lines[no].startswith("|") and lines[no - 1].startswith("+")
    ]
    assert cuts, "every fixture has at least one chip block"
    for cut in cuts:
        with pytest.raises(NpuSmiParseError, match="output ends inside a chip block"):
            parse_info("\n".join(lines[:cut]))
