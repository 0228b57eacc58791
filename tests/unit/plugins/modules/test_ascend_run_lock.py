# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_run_lock: the module on real lock files, and the action plugin through the ansible CLI."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_run_lock

ME = {"controller": "ops-01", "pid": 100, "user": "ops", "token": "a" * 32}
OTHER = {"controller": "ops-01", "pid": 200, "user": "ops", "token": "b" * 32}


def write_lock(path, owner, started=None, what="site"):
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = dict(owner, what=what, started=int(started or time.time()))
    path.write_text(json.dumps(rec))
    return rec


def test_takes_a_free_lock(module_runner, tmp_path):
    path = tmp_path / "sub" / "run.lock"
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME, "what": "npu_driver"}
    )
    assert result["lock"] == "taken"
    assert result["changed"] is False
    on_disk = json.loads(path.read_text())
    assert on_disk == result["holder"]
    assert on_disk["what"] == "npu_driver"
    assert on_disk["pid"] == 100
    assert oct(path.stat().st_mode & 0o777) == "0o644"


def test_again_by_the_same_run(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    rec = write_lock(path, ME)
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME}
    )
    assert result["lock"] == "already held"
    assert json.loads(path.read_text()) == rec


def test_held_by_another_run_is_reported_not_taken(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    rec = write_lock(path, OTHER)
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME}
    )
    assert "failed" not in result  # the action plugin words the refusal
    assert result["lock"] == "held by another run"
    assert result["holder"] == rec
    assert json.loads(path.read_text()) == rec


def test_break_token_takes_over(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    write_lock(path, OTHER)
    result, _calls = module_runner(
        ascend_run_lock.main,
        {"path": str(path), "owner": ME, "break_token": OTHER["token"]},
    )
    assert result["lock"] == "taken over"
    assert json.loads(path.read_text())["pid"] == 100
    assert not list(tmp_path.glob("*.tmp"))


def test_expired_lock_is_taken_over(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    write_lock(path, OTHER, started=time.time() - 100)
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME, "ttl": 50}
    )
    assert result["lock"] == "taken over"
    assert "older than its time to live (50 s)" in result["reason"]


def test_check_mode_refuses_but_writes_nothing(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    result, _calls = module_runner(
        ascend_run_lock.main,
        {"path": str(path), "owner": ME, "_ansible_check_mode": True},
    )
    assert result["lock"] == "taken"
    assert not path.exists()
    write_lock(path, OTHER)
    result, _calls = module_runner(
        ascend_run_lock.main,
        {"path": str(path), "owner": ME, "_ansible_check_mode": True},
    )
    assert result["lock"] == "held by another run"


def test_release_only_our_own(module_runner, tmp_path):
    path = tmp_path / "run.lock"
    rec = write_lock(path, OTHER)
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME, "state": "released"}
    )
    assert result["lock"] == "not held"
    assert json.loads(path.read_text()) == rec
    write_lock(path, ME)
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(path), "owner": ME, "state": "released"}
    )
    assert result["lock"] == "released"
    assert not path.exists()


@pytest.mark.parametrize(
    ("args", "msg"),
    [
        ({}, "owner (controller, pid, user, token) is set by the action plugin"),
        ({"owner": ME, "ttl": 0}, "ttl must be a positive number of seconds, got 0"),
    ],
)
def test_bad_input_fails_cleanly(module_runner, tmp_path, args, msg):
    result, _calls = module_runner(
        ascend_run_lock.main, dict(args, path=str(tmp_path / "run.lock"))
    )
    assert result["failed"] is True
    assert result["msg"].startswith(msg)


def test_unwritable_directory_fails_cleanly(module_runner, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result, _calls = module_runner(
        ascend_run_lock.main, {"path": str(blocker / "run.lock"), "owner": ME}
    )
    assert result["failed"] is True
    assert result["msg"].startswith(f"cannot use the lock {blocker / 'run.lock'}:")


# -- through the ansible CLI: the action plugin knows the controller and its processes -------


def test_cli_take_release_and_a_gone_run(ansible_adhoc, tmp_path):
    path = tmp_path / "run.lock"
    rc, _status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_run_lock", f"path={path}"
    )
    assert (rc, result["lock"]) == (0, "taken"), result
    first = json.loads(path.read_text())
    assert first["controller"] == socket.gethostname()
    # That ansible process has ended: the next run finds its lock stale and takes it over.
    rc, _status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_run_lock", f"path={path}"
    )
    assert (rc, result["lock"]) == (0, "taken over"), result
    assert "is gone from this controller" in result["reason"]
    assert json.loads(path.read_text())["pid"] != first["pid"]


def test_cli_refuses_a_live_run(ansible_adhoc, tmp_path):
    path = tmp_path / "run.lock"
    # This pytest process is alive on this controller: a run that still goes on.
    live = dict(OTHER, controller=socket.gethostname(), pid=os.getpid())
    rec = write_lock(path, live, what="npu_driver")
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_run_lock", f"path={path} what=site"
    )
    assert (rc, status) == (2, "localhost | FAILED!")
    assert result["msg"].startswith(
        f"[T31] Another run holds the lock {path} on localhost: the run of npu_driver by"
    )
    assert f"(ansible-playbook pid {os.getpid()})" in result["msg"]
    assert "exception" not in result
    assert json.loads(path.read_text()) == rec
    # Released by someone else's run: refused silently, the lock stays.
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_run_lock", f"path={path} state=released"
    )
    assert (rc, result["lock"]) == (0, "not held")
    assert json.loads(path.read_text()) == rec


def test_cli_another_controller_is_not_asked(ansible_adhoc, tmp_path):
    path = tmp_path / "run.lock"
    write_lock(path, dict(OTHER, controller="elsewhere", pid=1))
    rc, _status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_run_lock", f"path={path}"
    )
    assert rc == 2
    assert "npu_driver" not in result["msg"]
    assert (
        "the run of site by ops on elsewhere (ansible-playbook pid 1)" in result["msg"]
    )
