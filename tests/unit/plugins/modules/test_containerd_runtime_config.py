# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Module-level tests of containerd_runtime_config, with the real containerd where installed."""

from __future__ import annotations

import os
import pathlib
import shutil
from unittest import mock

import pytest
import tomllib
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.cubestudio.ascend.plugins.modules import (
    containerd_runtime_config,
)

FIXTURES = (
    pathlib.Path(__file__).parents[1] / "module_utils" / "fixtures" / "engine-config"
)
ASCEND = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
REAL_CONTAINERD = "/usr/bin/containerd"
needs_containerd = pytest.mark.skipif(
    not os.path.exists(REAL_CONTAINERD), reason="containerd is not installed"
)


class _Done(Exception):
    def __init__(self, result):
        super().__init__(result)
        self.result = result


def run(args):
    """Run the module's main() for real (commands included); return exit_json's or fail_json's dict."""

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
            containerd_runtime_config.main()
        except _Done as done:
            return done.result
    raise AssertionError("main() returned without exit_json or fail_json")


def fake_containerd(tmp_path, script):
    path = tmp_path / "fake-containerd"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return str(path)


def leftovers(directory):
    return sorted(
        p.name for p in pathlib.Path(directory).iterdir() if p.name.endswith(".tmp")
    )


@needs_containerd
def test_missing_file_is_created_from_config_default_and_validated(tmp_path):
    path = tmp_path / "etc" / "config.toml"
    result = run(
        {"path": str(path), "containerd_bin": REAL_CONTAINERD, "_ansible_diff": True}
    )
    assert result["changed"] is True and "failed" not in result, result
    assert result["actions"][0] == "created %s from `containerd config default`" % path
    assert (
        result["config_version"] == 2
        and result["plugin"] == "io.containerd.grpc.v1.cri"
    )
    assert result["runtime"]["options"]["BinaryName"] == ASCEND
    assert result["default_runtime_name"] == "ascend"
    assert (
        result["diff"]["before"] == "" and result["diff"]["after"] == path.read_text()
    )
    assert "backup_file" not in result
    data = tomllib.loads(path.read_text())
    assert (
        data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["ascend"]
        == result["runtime"]
    )
    before = path.read_bytes()
    again = run({"path": str(path), "containerd_bin": REAL_CONTAINERD})
    assert again["changed"] is False and again["actions"] == []
    assert path.read_bytes() == before
    assert leftovers(path.parent) == []


@needs_containerd
def test_real_file_is_edited_backed_up_and_restorable(tmp_path):
    path = tmp_path / "config.toml"
    original = (FIXTURES / "containerd-docs-1.x-full-commented.toml").read_text()
    path.write_text(original)
    path.chmod(0o600)
    result = run(
        {
            "path": str(path),
            "containerd_bin": REAL_CONTAINERD,
            "runtime_options": {"SystemdCgroup": True},
        }
    )
    assert result["changed"] is True, result
    assert pathlib.Path(result["backup_file"]).read_text() == original
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert result["runtime"]["options"]["SystemdCgroup"] is True
    gone = run(
        {"path": str(path), "containerd_bin": REAL_CONTAINERD, "state": "absent"}
    )
    assert gone["changed"] is True and gone["runtime"] is None, gone
    assert path.read_text() == original


def test_a_file_that_is_not_utf8_is_refused_and_untouched(tmp_path):
    path = tmp_path / "config.toml"
    original = b"version = 2\n# caf\xe9\n"
    path.write_bytes(original)
    result = run({"path": str(path), "validate": False})
    assert result["failed"] is True
    assert result["msg"].startswith("%s is not UTF-8 text" % path), result["msg"]
    assert "not valid TOML and was left untouched" in result["msg"]
    assert path.read_bytes() == original and leftovers(tmp_path) == []


@needs_containerd
def test_real_containerd_1x_refuses_a_version_3_runtime(tmp_path):
    """containerd 1.x accepts a version 3 file but ignores it: validate must catch that."""
    path = tmp_path / "config.toml"
    original = (FIXTURES / "containerd-docs-2.x-full.toml").read_bytes()
    path.write_bytes(original)
    result = run({"path": str(path), "containerd_bin": REAL_CONTAINERD})
    if b"2." in _version(REAL_CONTAINERD)[:20]:
        pytest.skip("this test needs containerd 1.x")
    assert result.get("failed") is True, result
    assert "does not list runtime 'ascend'" in result["msg"]
    assert "left untouched" in result["msg"]
    assert path.read_bytes() == original and leftovers(tmp_path) == []


def _version(binary):
    import subprocess

    return subprocess.run(
        [binary, "--version"], capture_output=True, check=False
    ).stdout.split(b" ")[2]


def test_validation_failure_leaves_the_file_untouched(tmp_path):
    path = tmp_path / "config.toml"
    original = (FIXTURES / "containerd-2.1.9-default.toml").read_bytes()
    path.write_bytes(original)
    binary = fake_containerd(
        tmp_path, 'echo "containerd: failed to load TOML: (2, 2): bad" >&2\nexit 1\n'
    )
    result = run({"path": str(path), "containerd_bin": binary})
    assert result["failed"] is True
    assert (
        "containerd refused it (rc=1): containerd: failed to load TOML: (2, 2): bad"
        in result["msg"]
    )
    assert path.read_bytes() == original
    assert leftovers(tmp_path) == []


def test_validation_checks_the_dump_not_only_the_exit_code(tmp_path):
    path = tmp_path / "config.toml"
    original = (FIXTURES / "containerd-2.1.9-default.toml").read_bytes()
    path.write_bytes(original)
    binary = fake_containerd(tmp_path, "echo 'version = 3'\nexit 0\n")
    result = run({"path": str(path), "containerd_bin": binary})
    assert (
        result["failed"] is True and "does not list runtime 'ascend'" in result["msg"]
    )
    assert path.read_bytes() == original


def test_check_mode_changes_nothing(tmp_path):
    path = tmp_path / "config.toml"
    original = (FIXTURES / "containerd-2.1.9-default.toml").read_bytes()
    path.write_bytes(original)
    binary = fake_containerd(tmp_path, "exit 99\n")  # must not be called
    result = run(
        {
            "path": str(path),
            "containerd_bin": binary,
            "_ansible_check_mode": True,
            "_ansible_diff": True,
        }
    )
    assert result["changed"] is True and "failed" not in result
    assert (
        "ascend" in result["diff"]["after"]
        and result["diff"]["before"] == original.decode()
    )
    assert path.read_bytes() == original and "backup_file" not in result


def test_broken_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("version = 2\n\n[plugins.\n")
    result = run({"path": str(path), "validate": False})
    assert result["failed"] is True
    assert (
        "not valid TOML: line 3, column" in result["msg"] and str(path) in result["msg"]
    )
    assert path.read_text() == "version = 2\n\n[plugins.\n"


def test_v1_file_without_validation(tmp_path):
    path = tmp_path / "config.toml"
    shutil.copy(FIXTURES / "kata-tests-v1-runc-kata.toml", path)
    result = run({"path": str(path), "validate": False, "backup": False})
    assert (
        result["changed"] is True
        and result["config_version"] == 1
        and result["plugin"] == "cri"
    )
    assert (
        tomllib.loads(path.read_text())["plugins"]["cri"]["containerd"][
            "default_runtime_name"
        ]
        == "ascend"
    )
    assert "backup_file" not in result


def test_missing_file_without_create_default_and_explicit_version(tmp_path):
    path = tmp_path / "config.toml"
    result = run(
        {
            "path": str(path),
            "create_default": False,
            "config_version": "3",
            "validate": False,
        }
    )
    assert result["changed"] is True, result
    data = tomllib.loads(path.read_text())
    assert data["version"] == 3
    assert data["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]["runtimes"][
        "ascend"
    ] == {
        "runtime_type": "io.containerd.runc.v2",
        "options": {"BinaryName": ASCEND},
    }


def test_absent_on_a_missing_file_creates_nothing(tmp_path):
    path = tmp_path / "config.toml"
    result = run({"path": str(path), "state": "absent"})
    assert result["changed"] is False and not path.exists()


def test_vendor_runc_edit_gives_a_warning(tmp_path):
    path = tmp_path / "config.toml"
    shutil.copy(FIXTURES / "containerd-1.6.20-vendor-runc-edit.toml", path)
    result = run({"path": str(path), "validate": False})
    assert result["changed"] is True
    assert any("<= 26.0.0" in w for w in result["warnings"])


@pytest.mark.parametrize(
    "name",
    ["debian-12-containerd-1.6.20-package.toml", "containerd-docs-2.x-full.toml"],
)
def test_absent_with_record_puts_the_users_file_back(tmp_path, name):
    path = tmp_path / "config.toml"
    record = tmp_path / "state" / "record.json"
    user = (FIXTURES / name).read_text()
    path.write_text(user)
    args = {"path": str(path), "validate": False, "original_record": str(record)}
    assert run(dict(args))["changed"] is True and record.exists()
    assert run(dict(args))["changed"] is False
    check = run(dict(args, state="absent", _ansible_check_mode=True))
    assert check["changed"] is True and check["restored"] == "original"
    assert path.read_text() != user and record.exists()
    removed = run(dict(args, state="absent"))
    assert removed["changed"] is True and removed["restored"] == "original"
    assert path.read_text() == user and not record.exists()


def test_absent_with_record_removes_the_file_made_from_config_default(tmp_path):
    path = tmp_path / "config.toml"
    record = tmp_path / "record.json"
    args = {
        "path": str(path),
        "validate": False,
        "create_default": False,
        "config_version": "2",
        "original_record": str(record),
    }
    assert run(dict(args))["changed"] is True
    removed = run(dict(args, state="absent"))
    assert removed["restored"] == "original" and not path.exists()
    assert not record.exists()
    gone = run(dict(args, state="absent"))
    assert gone["changed"] is False and gone["restored"] == "missing"


def test_absent_keeps_a_table_added_after_the_runtime(tmp_path):
    path = tmp_path / "config.toml"
    record = tmp_path / "record.json"
    user = (FIXTURES / "debian-12-containerd-1.6.20-package.toml").read_text()
    path.write_text(user)
    args = {"path": str(path), "validate": False, "original_record": str(record)}
    run(dict(args))
    path.write_text(path.read_text() + '\n[plugins."io.containerd.x"]\n  k = 1\n')
    removed = run(dict(args, state="absent"))
    assert removed["restored"] == "changed_since" and removed["warnings"]
    data = tomllib.loads(path.read_text())
    assert data["plugins"]["io.containerd.x"] == {"k": 1}
    assert "ascend" not in path.read_text()
