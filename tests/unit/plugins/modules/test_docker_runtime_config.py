# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Module-level tests of docker_runtime_config (commands really run)."""

from __future__ import annotations

import json
import pathlib
import shutil
from unittest import mock

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.cubestudio.ascend.plugins.modules import docker_runtime_config

FIXTURES = (
    pathlib.Path(__file__).parents[1] / "module_utils" / "fixtures" / "engine-config"
)
ASCEND = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"


class _Done(Exception):
    def __init__(self, result):
        super().__init__(result)
        self.result = result


def run(args):
    """Run the module's main(); return the dict given to exit_json or fail_json."""
    warnings = []

    def exit_json(self, **kwargs):
        kwargs.setdefault("changed", False)
        kwargs["warnings"] = warnings
        raise _Done(kwargs)

    def fail_json(self, msg, **kwargs):
        kwargs.update(failed=True, msg=msg)
        raise _Done(kwargs)

    with patch_module_args(args), mock.patch.object(
        basic.AnsibleModule, "exit_json", exit_json
    ), mock.patch.object(
        basic.AnsibleModule, "fail_json", fail_json
    ), mock.patch.object(
        basic.AnsibleModule, "warn", lambda self, msg: warnings.append(msg)
    ):
        try:
            docker_runtime_config.main()
        except _Done as done:
            return done.result
    raise AssertionError("main() returned without exit_json or fail_json")


def checker(tmp_path, rc, message=""):
    script = tmp_path / "check.sh"
    script.write_text('#!/bin/sh\necho "%s" >&2\nexit %d\n' % (message, rc))
    script.chmod(0o755)
    return "%s %%s" % script


def test_missing_file_is_created(tmp_path):
    path = tmp_path / "docker" / "daemon.json"
    result = run({"path": str(path), "_ansible_diff": True})
    assert result["changed"] is True and "failed" not in result, result
    assert result["actions"][0] == "created %s" % path
    assert (
        json.loads(path.read_text())
        == result["config"]
        == {
            "runtimes": {"ascend": {"path": ASCEND, "runtimeArgs": []}},
            "default-runtime": "ascend",
        }
    )
    assert result["diff"]["before"] == "" and "backup_file" not in result
    again = run({"path": str(path)})
    assert again["changed"] is False and again["actions"] == []


def test_user_file_keeps_its_keys_and_gets_a_backup(tmp_path):
    path = tmp_path / "daemon.json"
    shutil.copy(FIXTURES / "notes-registry-mirrors.json", path)
    original = path.read_text()
    result = run(
        {
            "path": str(path),
            "validate": "python3 -m json.tool %s",
            "mode": "0600",
            "default": False,
        }
    )
    assert result["changed"] is True, result
    assert pathlib.Path(result["backup_file"]).read_text() == original
    data = json.loads(path.read_text())
    assert data["registry-mirrors"] == [
        "https://hub-mirror.c.163.com",
        "https://mirror.baidubce.com",
    ]
    assert data["log-opts"] == {"max-size": "100m", "max-file": "5"}
    assert "default-runtime" not in data
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    gone = run({"path": str(path), "state": "absent", "mode": "0600"})
    assert gone["changed"] is True and json.loads(path.read_text()) == json.loads(
        original
    )


def test_unchanged_file_is_not_rewritten(tmp_path):
    path = tmp_path / "daemon.json"
    shutil.copy(FIXTURES / "vendor-template.json", path)
    before = path.read_bytes()
    stat = path.stat()
    result = run(
        {
            "path": str(path),
            "default": True,
            "validate": checker(tmp_path, 1, "never called"),
        }
    )
    assert result["changed"] is False and result["actions"] == []
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns


def test_invalid_json_is_refused_and_untouched(tmp_path):
    path = tmp_path / "daemon.json"
    path.write_text('{\n  "registry-mirrors": ["https://m.example"],\n}\n')
    result = run({"path": str(path)})
    assert result["failed"] is True
    assert result["msg"].startswith("%s is not valid JSON at line 3, column 1" % path)
    assert "left untouched" in result["msg"]
    assert path.read_text() == '{\n  "registry-mirrors": ["https://m.example"],\n}\n'


def test_a_file_that_is_not_utf8_is_refused_and_untouched(tmp_path):
    path = tmp_path / "daemon.json"
    original = b'{"log-driver": "json-file", "labels": ["caf\xe9"]}\n'
    path.write_bytes(original)
    result = run({"path": str(path)})
    assert result["failed"] is True
    assert result["msg"].startswith("%s is not UTF-8 text" % path), result["msg"]
    assert "Docker cannot read it either" in result["msg"]
    assert path.read_bytes() == original


def test_a_directory_is_refused(tmp_path):
    path = tmp_path / "daemon.json"
    path.mkdir()
    result = run({"path": str(path)})
    assert result["failed"] is True
    assert result["msg"] == "%s is a directory, not a file" % path


def test_an_unwritable_directory_fails_with_the_reason(tmp_path):
    blocker = tmp_path / "docker"
    blocker.write_text("a file where the directory should be\n")
    result = run({"path": str(blocker / "daemon.json")})
    assert result["failed"] is True
    assert result["msg"].startswith("cannot create %s: " % blocker), result["msg"]


def test_validate_failure_leaves_the_file_untouched(tmp_path):
    path = tmp_path / "daemon.json"
    shutil.copy(FIXTURES / "docker-docs-linux-full.json", path)
    before = path.read_bytes()
    result = run(
        {"path": str(path), "validate": checker(tmp_path, 1, "unknown directive: foo")}
    )
    assert result["failed"] is True and "unknown directive: foo" in result["msg"]
    assert path.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_validate_needs_a_placeholder(tmp_path):
    result = run(
        {"path": str(tmp_path / "daemon.json"), "validate": "dockerd --validate"}
    )
    assert result["failed"] is True and "%s" in result["msg"]


def test_check_mode_reports_without_writing(tmp_path):
    path = tmp_path / "daemon.json"
    shutil.copy(FIXTURES / "stylegan3-nvidia-default.json", path)
    before = path.read_bytes()
    result = run(
        {
            "path": str(path),
            "default": True,
            "_ansible_check_mode": True,
            "_ansible_diff": True,
        }
    )
    assert result["changed"] is True
    assert json.loads(result["diff"]["after"])["default-runtime"] == "ascend"
    assert any("nvidia" in w for w in result["warnings"])
    assert path.read_bytes() == before and "backup_file" not in result


def test_empty_file_is_an_empty_object(tmp_path):
    path = tmp_path / "daemon.json"
    path.write_text("")
    result = run({"path": str(path), "runtime_args": ["--debug"], "default": False})
    assert result["changed"] is True
    assert json.loads(path.read_text()) == {
        "runtimes": {"ascend": {"path": ASCEND, "runtimeArgs": ["--debug"]}}
    }


def test_absent_with_record_puts_the_users_file_back(tmp_path):
    path = tmp_path / "daemon.json"
    record = tmp_path / "state" / "record.json"
    user = '{"log-driver":"json-file",  "debug": false}\n'
    path.write_text(user)
    added = run({"path": str(path), "original_record": str(record)})
    assert added["changed"] is True and record.exists()
    assert json.loads(record.read_text())["original"] == user
    assert oct(record.stat().st_mode & 0o777) == "0o600"
    again = run({"path": str(path), "original_record": str(record)})
    assert again["changed"] is False
    check = run(
        {
            "path": str(path),
            "original_record": str(record),
            "state": "absent",
            "_ansible_check_mode": True,
        }
    )
    assert check["changed"] is True and check["restored"] == "original"
    assert "ascend" in path.read_text() and record.exists()
    removed = run(
        {"path": str(path), "original_record": str(record), "state": "absent"}
    )
    assert removed["changed"] is True and removed["restored"] == "original"
    assert path.read_text() == user and not record.exists()
    twice = run({"path": str(path), "original_record": str(record), "state": "absent"})
    assert twice["changed"] is False and twice["restored"] == "edited"


def test_absent_with_record_removes_a_file_that_did_not_exist(tmp_path):
    path = tmp_path / "daemon.json"
    record = tmp_path / "record.json"
    assert run({"path": str(path), "original_record": str(record)})["changed"]
    removed = run(
        {"path": str(path), "original_record": str(record), "state": "absent"}
    )
    assert removed["changed"] is True and removed["restored"] == "original"
    assert not path.exists() and not record.exists()
    assert removed["backup_file"]


def test_absent_keeps_an_edit_made_after_the_runtime_was_added(tmp_path):
    path = tmp_path / "daemon.json"
    record = tmp_path / "record.json"
    path.write_text('{"default-runtime": "runc"}\n')
    run({"path": str(path), "original_record": str(record)})
    data = json.loads(path.read_text())
    data["debug"] = True
    path.write_text(json.dumps(data))
    removed = run(
        {"path": str(path), "original_record": str(record), "state": "absent"}
    )
    assert removed["restored"] == "changed_since" and removed["warnings"]
    assert json.loads(path.read_text()) == {"debug": True}
    assert not record.exists()


def test_a_broken_record_fails_and_leaves_the_file(tmp_path):
    path = tmp_path / "daemon.json"
    record = tmp_path / "record.json"
    path.write_text("{}\n")
    record.write_text("nonsense")
    result = run({"path": str(path), "original_record": str(record), "state": "absent"})
    assert result["failed"] and "move it away" in result["msg"]
    assert path.read_text() == "{}\n"
