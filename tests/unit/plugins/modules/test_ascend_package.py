# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_package runs real (fake) installer scripts: no subprocess mocking."""

from __future__ import annotations

import json

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_package


def run_module(capsys, args):
    with patch_module_args(args), pytest.raises(SystemExit) as exc:
        ascend_package.main()
    result = json.loads(capsys.readouterr().out)
    result["_exit"] = exc.value.code
    return result


def make_run(tmp_path, body, name="Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run"):
    path = tmp_path / name
    path.write_text("#!/bin/bash\n" + body)
    return str(path)


def test_success_passes_flags_and_reads_the_answer(tmp_path, capsys):
    seen = tmp_path / "seen"
    pkg = make_run(
        tmp_path,
        'echo "$@" > %s\nread -r yn\necho "answer=$yn" >> %s\n'
        'echo "env=${ASCEND_PACKAGE_ANSWER-unset}" >> %s\necho "Driver package installed successfully!"\n'
        % (seen, seen, seen),
    )
    result = run_module(
        capsys,
        {"path": pkg, "action": "full", "install_for_all": True, "log_files": []},
    )
    assert result["_exit"] == 0
    assert result["changed"] is True
    assert result["rc"] == 0
    assert result["reboot_required"] is False
    assert (
        seen.read_text()
        == "--nox11 --full --quiet --install-for-all\nanswer=y\nenv=unset\n"
    )


def test_rc_2_is_success_with_reboot_when_declared(tmp_path, capsys):
    pkg = make_run(tmp_path, "exit 2\n")
    result = run_module(
        capsys,
        {
            "path": pkg,
            "action": "upgrade",
            "success_rc": [0, 2],
            "reboot_rc": [2],
            "log_files": [],
        },
    )
    assert result["_exit"] == 0
    # Ansible fails any result with rc != 0 unless the module says failed=false.
    assert result["failed"] is False
    assert result["rc"] == 2
    assert result["reboot_required"] is True


def test_rc_2_fails_when_not_declared(tmp_path, capsys):
    pkg = make_run(tmp_path, "exit 2\n")
    result = run_module(capsys, {"path": pkg, "action": "upgrade", "log_files": []})
    assert result["failed"] is True
    assert "failed with exit code 2" in result["msg"]


def test_an_installer_that_exits_before_reading_its_answer_keeps_its_exit_code(
    tmp_path, capsys
):
    # A refusal exits before it reads stdin. An answer larger than a pipe holds (64 KiB) makes the
    # writer meet the closed pipe every time (CI once saw it with the two-byte default).
    pkg = make_run(tmp_path, 'echo "[ERROR]refused before any question"\nexit 3\n')
    result = run_module(
        capsys,
        {"path": pkg, "action": "upgrade", "answer": "y\n" * 50000, "log_files": []},
    )
    assert result["failed"] is True
    assert result["rc"] == 3
    assert "failed with exit code 3" in result["msg"]
    assert "refused before any question" in result["msg"]


def test_failure_explains_cause_fix_and_only_new_log_lines(tmp_path, capsys):
    log = tmp_path / "ascend_install.log"
    log.write_text("[ERROR] an old error from last week\n")
    pkg = make_run(
        tmp_path,
        'echo "[Driver] [ERROR]The list of missing tools: lspci,ifconfig" >> %s\n'
        'echo "[Driver] [ERROR]The list of missing tools: lspci,ifconfig"\nexit 1\n'
        % log,
    )
    result = run_module(
        capsys, {"path": pkg, "action": "full", "log_files": [str(log)]}
    )
    assert result["failed"] is True
    assert result["rc"] == 1
    assert result["log_excerpt"] == [
        "[Driver] [ERROR]The list of missing tools: lspci,ifconfig"
    ]
    assert (
        result["cause"]
        == "the installer needs tools that are not installed: lspci,ifconfig"
    )
    assert "pciutils" in result["fix"]
    assert result["msg"].startswith(
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run --full failed with exit code 1:"
    )
    assert "Installer log: %s" % log in result["msg"]


def test_a_package_that_keeps_asking_is_stopped(tmp_path, capsys):
    # Like the Ascend Docker Runtime 26.1.0 licence loop at end of input.
    pkg = make_run(
        tmp_path,
        'while true; do read -r yn; [ "$yn" = "Y" ] && break; echo "Please input Y or N"; sleep 0.1; done\n',
    )
    result = run_module(
        capsys,
        {"path": pkg, "action": "install", "answer": "", "timeout": 1, "log_files": []},
    )
    assert result["failed"] is True
    assert "did not finish within 1 s" in result["msg"]
    assert "Please input Y or N" in result["msg"]


def test_a_package_that_ignores_sigterm_is_killed_and_reported(tmp_path, capsys):
    # timeout(1) then SIGKILLs its process group, itself too: Python sees -9, still a time-out.
    pkg = make_run(tmp_path, "trap '' TERM\nsleep 60\n")
    result = run_module(
        capsys,
        {"path": pkg, "action": "install", "answer": "", "timeout": 1, "log_files": []},
    )
    assert result["failed"] is True
    assert result["rc"] == -9
    assert "did not finish within 1 s" in result["msg"]


def test_check_mode_runs_nothing(tmp_path, capsys):
    marker = tmp_path / "ran"
    pkg = make_run(tmp_path, "touch %s\n" % marker)
    result = run_module(
        capsys,
        {"path": pkg, "action": "full", "_ansible_check_mode": True, "log_files": []},
    )
    assert result["changed"] is True
    assert result["rc"] is None
    # rc null would otherwise be read as a failure by Ansible.
    assert result["failed"] is False
    assert not marker.exists()


def test_check_action_runs_in_check_mode_and_changes_nothing(tmp_path, capsys):
    pkg = make_run(
        tmp_path,
        'echo "Verifying archive integrity...  100%   SHA256 checksums are OK. All good."\n',
    )
    result = run_module(
        capsys,
        {"path": pkg, "action": "check", "_ansible_check_mode": True, "log_files": []},
    )
    assert result["_exit"] == 0
    assert result["changed"] is False
    assert result["rc"] == 0
    assert "All good" in result["stdout"]


def test_missing_package_is_a_clear_failure(tmp_path, capsys):
    result = run_module(capsys, {"path": str(tmp_path / "nope.run"), "action": "full"})
    assert result["failed"] is True
    assert result["msg"] == "package %s does not exist on the node" % (
        tmp_path / "nope.run"
    )


def test_a_damaged_package_fails_even_with_an_accepted_exit_code(tmp_path, capsys):
    # makeself exits 2 for a damaged archive; the driver packages use 2 for success.
    pkg = make_run(
        tmp_path,
        'echo "Verifying archive integrity...Error in SHA256 checksums: 1a2b is different from 3c4d" >&2\nexit 2\n',
    )
    result = run_module(
        capsys,
        {
            "path": pkg,
            "action": "full",
            "success_rc": [0, 2],
            "reboot_rc": [2],
            "log_files": [],
        },
    )
    assert result["failed"] is True
    assert result["reboot_required"] is False
    assert (
        result["cause"]
        == "the package is damaged (its embedded checksum or size does not match)"
    )
    assert "download the package again" in result["msg"]


def test_an_installed_uninstall_script_runs_without_package_flags(tmp_path, capsys):
    seen = tmp_path / "seen"
    script = make_run(
        tmp_path,
        'echo "args:$*" > %s\necho "Driver package uninstalled successfully! Reboot now to take effect."\n'
        % seen,
        name="uninstall.sh",
    )
    result = run_module(
        capsys,
        {
            "path": script,
            "action": "uninstall",
            "script": True,
            "answer": "",
            "log_files": [],
        },
    )
    assert result["_exit"] == 0 and result["changed"] is True
    assert result["cmd"] == ["/bin/bash", script]
    assert result["outcome"] == "reboot" and result["reboot_required"] is True
    assert seen.read_text() == "args:\n"


def test_a_failing_uninstall_script_is_named_in_the_message(tmp_path, capsys):
    script = make_run(tmp_path, 'echo "[ERROR]busy" >&2\nexit 1\n', name="uninstall.sh")
    result = run_module(
        capsys,
        {
            "path": script,
            "action": "uninstall",
            "script": True,
            "answer": "",
            "log_files": [],
        },
    )
    assert result["failed"] and result["msg"].startswith(
        "%s failed with exit code 1: [ERROR]busy" % script
    )


def test_script_with_another_action_is_refused(tmp_path, capsys):
    script = make_run(tmp_path, "exit 0\n", name="uninstall.sh")
    result = run_module(capsys, {"path": script, "action": "full", "script": True})
    assert result["failed"] and "action must be uninstall" in result["msg"]
