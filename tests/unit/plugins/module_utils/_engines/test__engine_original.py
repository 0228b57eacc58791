# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The original-content record of the engine files: when the user's file comes back."""

from __future__ import annotations

import json

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._engine_original import (
    OriginalRecordError,
    load_record,
    next_record,
    plan_restore,
)

USER = '{\n  "registry-mirrors": ["https://m.example"]\n}\n'
OURS = '{\n  "registry-mirrors": ["https://m.example"],\n  "runtimes": {}\n}\n'


def same(a, b):
    return json.loads(a) == json.loads(b)


def test_first_change_records_the_users_file():
    record = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    assert record["original"] == USER and record["written"] == OURS


def test_first_change_of_a_missing_file_records_null():
    record = load_record(next_record(None, "/d.json", None, OURS, True), "r")
    assert record["original"] is None


def test_a_file_that_had_the_runtime_without_record_gets_none():
    assert next_record(None, "/d.json", OURS, OURS + " ", False) is None


def test_a_later_change_keeps_the_first_original():
    first = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    again = load_record(next_record(first, "/d.json", OURS, OURS + "\n", False), "r")
    assert again["original"] == USER and again["written"] == OURS + "\n"


def test_a_record_is_dropped_when_someone_else_changed_the_file():
    first = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    assert next_record(first, "/d.json", OURS.replace("m.", "n."), OURS, False) is None


def test_restore_puts_the_original_back_byte_for_byte():
    record = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    assert plan_restore(record, OURS, "cleaned", same) == (USER, "original")


def test_restore_accepts_the_same_data_in_another_layout():
    record = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    compact = json.dumps(json.loads(OURS))
    assert plan_restore(record, compact, "cleaned", same) == (USER, "original")


def test_restore_of_a_file_that_did_not_exist_is_no_file():
    record = load_record(next_record(None, "/d.json", None, OURS, True), "r")
    assert plan_restore(record, OURS, "cleaned", same) == (None, "original")


def test_a_file_changed_since_keeps_the_users_later_edit():
    record = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    later = OURS.replace("}\n}", '},\n  "debug": true\n}')
    assert plan_restore(record, later, "cleaned", same) == ("cleaned", "changed_since")


def test_without_record_only_the_runtime_is_removed():
    assert plan_restore(None, OURS, "cleaned", same) == ("cleaned", "edited")


def test_a_missing_file_stays_missing():
    record = load_record(next_record(None, "/d.json", USER, OURS, True), "r")
    assert plan_restore(record, None, "", same) == (None, "missing")


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"format": 2, "original": null, "written": ""}',
        '{"format": 1, "original": 3, "written": ""}',
        '{"format": 1, "original": null}',
    ],
)
def test_a_broken_record_is_refused_with_the_way_out(text):
    with pytest.raises(OriginalRecordError, match="move it away"):
        load_record(text, "/var/lib/x.json")
