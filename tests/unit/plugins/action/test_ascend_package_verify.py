# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_package_verify action plugin: success facts, refusal message, the runner."""

from __future__ import annotations

import hashlib
from unittest import mock

from ansible_collections.cubestudio.ascend.plugins.action import ascend_package_verify


def _package(tmp_path):
    path = tmp_path / "Ascend-cann-toolkit_8.0.0_linux-x86_64.run"
    path.write_bytes(b"payload")
    return str(path), hashlib.sha256(b"payload").hexdigest()


def test_good_sha256_without_ca_passes_unchanged(run_action, tmp_path):
    path, sha = _package(tmp_path)
    result = run_action(ascend_package_verify, {"path": path, "sha256": sha})
    assert "failed" not in result
    assert result["changed"] is False
    assert result["signature"] == "not checked"
    assert result["sha256"] == sha


def test_refusal_fails_with_cause_fix_and_nothing_copied(run_action, tmp_path):
    path, _sha = _package(tmp_path)
    result = run_action(ascend_package_verify, {"path": path, "sha256": "a" * 64})
    assert result["failed"] is True
    assert result["msg"].startswith("%s has sha256 " % path)
    assert result["msg"].endswith("Nothing was copied to the node.")
    assert result["cause"].startswith("has sha256")
    assert "download it again" in result["fix"]


def test_ca_without_openssl_on_the_controller_is_refused(run_action, tmp_path):
    path, sha = _package(tmp_path)
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    with mock.patch.object(ascend_package_verify.shutil, "which", return_value=None):
        result = run_action(
            ascend_package_verify, {"path": path, "sha256": sha, "ca_file": str(ca)}
        )
    assert result["failed"] is True
    assert (
        "cannot be checked: openssl is not installed on the controller" in result["msg"]
    )


def test_runner_reports_a_missing_binary_as_a_failure():
    rc, out, err = ascend_package_verify.run_command(
        ["/nonexistent/openssl", "version"]
    )
    assert (rc, out) == (1, "")
    assert "nonexistent" in err
