# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The run lock of a node: one run of the collection's roles at a time.

Two runs at once on one node (two operators, a cron job and a person) can run two installers over
each other or flash the firmware twice. A run takes the lock, a file on the node holding a JSON
record of its owner: the controller host, the pid of ansible-playbook there, the user, what it
runs, when it started, and a random token. The record outlives the connection and a reboot of the
node (the lock is in /var/lib), so a run that lost the node mid-way still holds it. It is stale,
and taken over, when

- it is older than its time to live (``ttl``), or
- its owner ran on this same controller and that process is gone (the action plugin asks the
  controller; the module only takes over a lock whose token it was told to break), or
- the file is not a record (empty or damaged: a run died while writing it) and older than
  ``CORRUPT_GRACE`` seconds.

The owner of a lock may take it again (re-entrant) and release it; nobody else may release it.
"""

from __future__ import annotations

import json
import time

CORRUPT_GRACE = 60
OWNER_KEYS = ("controller", "pid", "user", "what", "token")


class LockRecordError(ValueError):
    """The lock file is not a record of this collection."""


def new_record(owner: dict, now: float) -> dict:
    """The record written into the lock file."""
    missing = [key for key in OWNER_KEYS if key not in owner]
    if missing:
        raise ValueError(f"owner lacks {', '.join(missing)}")
    record = {key: owner[key] for key in OWNER_KEYS}
    record["started"] = int(now)
    return record


def parse_record(text: str) -> dict:
    """A lock file's record; LockRecordError if it is none."""
    try:
        record = json.loads(text)
    except ValueError as error:
        raise LockRecordError(f"not JSON ({error})") from None
    if not isinstance(record, dict):
        raise LockRecordError("not a JSON object")
    missing = [key for key in OWNER_KEYS + ("started",) if key not in record]
    if missing:
        raise LockRecordError(f"without {', '.join(missing)}")
    if not isinstance(record["pid"], int) or not isinstance(
        record["started"], (int, float)
    ):
        raise LockRecordError("pid or started is not a number")
    return record


def same_owner(record: dict, owner: dict) -> bool:
    """Whether the record is the lock of this run (same controller and ansible-playbook)."""
    return (
        record.get("controller") == owner["controller"]
        and record.get("pid") == owner["pid"]
    )


def decide(
    record: dict | None,
    owner: dict,
    now: float,
    ttl: int,
    break_token: str | None = None,
    file_age: float = 0.0,
    error: str | None = None,
) -> tuple:
    """What to do with the lock file: (verdict, reason).

    ``record`` is the parsed lock file (None: no file, or ``error`` says why it is unreadable).
    Verdicts: ``free`` (no lock: take it), ``ours`` (this run holds it), ``stale`` (take it over,
    ``reason`` says why), ``held`` (another run holds it).
    """
    if record is None and error is None:
        return "free", "no lock"
    if record is None:
        if file_age >= CORRUPT_GRACE:
            return "stale", f"the lock file is {error}, written {int(file_age)} s ago"
        return "held", f"the lock file is {error} (being written?)"
    if same_owner(record, owner):
        return "ours", "this run holds the lock"
    age = now - record["started"]
    if age >= ttl:
        return (
            "stale",
            f"the lock is {int(age)} s old, older than its time to live ({ttl} s)",
        )
    if break_token is not None and record["token"] == break_token:
        return "stale", (
            f"its run (pid {record['pid']} on {record['controller']}) is gone from this controller"
        )
    return "held", "another run holds the lock"


def owner_gone(record: dict, controller: str, alive) -> bool:
    """Whether the record's run ran on this controller and its process is gone.

    ``alive(pid)`` tells whether a process of this controller exists.
    """
    return record.get("controller") == controller and not alive(record["pid"])


def describe(record: dict) -> str:
    """The owner of a lock, for a message."""
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(record["started"]))
    return (
        f"the run of {record['what']} by {record['user']} on {record['controller']} "
        f"(ansible-playbook pid {record['pid']}), started {started}"
    )


# The troubleshooting row (data/troubleshooting.yml) of a run refused by another run's lock.
HELD_ROW = "T31"


def held_message(
    path: str, host: str, record: dict | None, reason: str, ttl: int
) -> str:
    """Why a run is refused, and what to do."""
    if record is None:
        holder = reason
        expires = ""
    else:
        holder = describe(record)
        until = time.strftime(
            "%Y-%m-%d %H:%M:%S UTC", time.gmtime(record["started"] + ttl)
        )
        expires = f" (or wait until {until}, when it expires)"
    return (
        f"[{HELD_ROW}] Another run holds the lock {path} on {host}: {holder}. Two runs at once on "
        "one node would run installers over each other or flash the firmware twice. Wait until "
        "that run ends and run again; if it is gone (its controller crashed or lost the node), "
        f"remove {path} on the node{expires} and run again. Nothing was changed. See "
        f"{HELD_ROW} in docs/troubleshooting.md."
    )
