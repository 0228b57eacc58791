# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_run_lock: records, the verdict on a lock file, staleness and the refusal message."""

from __future__ import annotations

import json

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._run_lock import (
    CORRUPT_GRACE,
    LockRecordError,
    decide,
    describe,
    held_message,
    new_record,
    owner_gone,
    parse_record,
)

ME = {
    "controller": "ops-01",
    "pid": 100,
    "user": "ops",
    "what": "npu_driver",
    "token": "a" * 32,
}
OTHER = dict(ME, pid=200, token="b" * 32)
NOW = 1_764_840_000.0
TTL = 14400


def record(owner, started=NOW - 60):
    return new_record(owner, started)


def test_record_round_trip():
    rec = record(ME)
    assert rec == dict(ME, started=int(NOW - 60))
    assert parse_record(json.dumps(rec)) == rec


def test_new_record_needs_the_whole_owner():
    with pytest.raises(ValueError, match="owner lacks token"):
        new_record({k: v for k, v in ME.items() if k != "token"}, NOW)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not JSON"),
        ('{"controller": "x"', "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"controller": "x"}', "without pid, user, what, token, started"),
        (json.dumps(dict(ME, pid="100", started=1)), "pid or started is not a number"),
    ],
)
def test_damaged_records(text, reason):
    with pytest.raises(LockRecordError, match=reason):
        parse_record(text)


def test_no_file_is_free():
    assert decide(None, ME, NOW, TTL) == ("free", "no lock")


def test_own_lock_is_ours_whatever_its_age():
    assert decide(record(ME, NOW - 10 * TTL), ME, NOW, TTL)[0] == "ours"


def test_another_run_holds_it():
    assert decide(record(OTHER), ME, NOW, TTL) == ("held", "another run holds the lock")


def test_a_lock_older_than_its_ttl_is_stale():
    verdict, reason = decide(record(OTHER, NOW - TTL - 5), ME, NOW, TTL)
    assert verdict == "stale"
    assert (
        reason == f"the lock is {TTL + 5} s old, older than its time to live ({TTL} s)"
    )


def test_break_token_must_match_the_lock_read():
    rec = record(OTHER)
    assert decide(rec, ME, NOW, TTL, break_token=OTHER["token"])[0] == "stale"
    # A token of an earlier lock does not break a new lock of a live run.
    assert decide(rec, ME, NOW, TTL, break_token="c" * 32)[0] == "held"


def test_damaged_file_is_held_briefly_then_stale():
    assert decide(None, ME, NOW, TTL, file_age=5, error="not JSON")[0] == "held"
    verdict, reason = decide(
        None, ME, NOW, TTL, file_age=CORRUPT_GRACE, error="not JSON"
    )
    assert verdict == "stale"
    assert reason.startswith("the lock file is not JSON")


def test_owner_gone_only_on_this_controller():
    rec = record(OTHER)
    assert owner_gone(rec, "ops-01", lambda pid: False)
    assert not owner_gone(rec, "ops-01", lambda pid: True)
    # A run of another controller cannot be asked: never gone.
    assert not owner_gone(rec, "ops-02", lambda pid: False)


def test_message_names_the_run_the_way_out_and_nothing_changed():
    rec = record(OTHER, 1_764_840_000)
    msg = held_message("/var/lib/cubestudio-ascend/run.lock", "node-1", rec, "", TTL)
    assert describe(rec) in msg
    assert msg.startswith(
        "[T31] Another run holds the lock /var/lib/cubestudio-ascend/run.lock on node-1: the run of npu_driver by ops "
        "on ops-01 (ansible-playbook pid 200), started 2025-12-04 09:20:00 UTC."
    )
    assert "remove /var/lib/cubestudio-ascend/run.lock on the node" in msg
    assert "wait until 2025-12-04 13:20:00 UTC, when it expires" in msg
    assert msg.endswith("Nothing was changed. See T31 in docs/troubleshooting.md.")
