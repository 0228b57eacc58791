# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""npu_smi_facts with run_command patched: real outputs succeed, everything else fails cleanly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)
from ansible_collections.cubestudio.ascend.plugins.modules import npu_smi_facts

FIXTURES = Path(__file__).parents[1] / "module_utils" / "fixtures" / "npu-smi"
INFO_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.txt")
    if not path.name.startswith(("npu-smi-info-", "npu-smi-upgrade-", "lspci-"))
)


TIMEOUT = shutil.which("timeout")


def timed(*argv: str, seconds: int = 60) -> list:
    """The argv run_command gets: npu-smi under coreutils timeout."""
    return [TIMEOUT, "--kill-after=5", str(seconds), *argv]


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


@pytest.fixture
def fake_npu_smi(tmp_path):
    """An executable file to pass as executable= (never run: run_command is patched)."""
    path = tmp_path / "npu-smi"
    path.write_text("#!/bin/sh\nexit 99\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("name", INFO_FIXTURES)
def test_every_layout_becomes_the_fact(module_runner, fake_npu_smi, name):
    result, calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(0, fixture(name), "")]
    )
    assert calls == [timed(fake_npu_smi, "info")]
    assert result["changed"] is False
    assert "failed" not in result
    assert result["executable"] == fake_npu_smi
    assert result["ansible_facts"] == {"ascend_npu_smi": parse_info(fixture(name))}


def test_fact_values_910b3(module_runner, fake_npu_smi):
    result, _calls = module_runner(
        npu_smi_facts.main,
        {"executable": fake_npu_smi},
        [(0, fixture("910b3-8card-23.0.7-with-processes.txt"), "")],
    )
    fact = result["ansible_facts"]["ascend_npu_smi"]
    assert fact["tool_version"] == "23.0.7"
    assert fact["npu_count"] == 8
    assert fact["chip_count"] == 8
    assert fact["healthy"] is True
    assert fact["npus"][0]["chips"][0]["hbm_used_mb"] == 59985
    assert fact["npus"][0]["chips"][0]["bus_id"] == "0000:C1:00.0"
    assert [p["pid"] for p in fact["processes"]] == [49943, 49944, 49945, 49946]


def test_board_adds_board_per_npu(module_runner, fake_npu_smi):
    board = fixture("npu-smi-info-t-board-i0-910b-25.5.1.txt")
    answers = [
        (0, fixture("310p3-2card-23.0.rc3-readme.txt"), ""),
        (0, board, ""),
        (0, board, ""),
    ]
    result, calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi, "board": True}, answers
    )
    assert calls == [
        timed(fake_npu_smi, "info"),
        timed(fake_npu_smi, "info", "-t", "board", "-i", "0"),
        timed(fake_npu_smi, "info", "-t", "board", "-i", "64"),
    ]
    npus = result["ansible_facts"]["ascend_npu_smi"]["npus"]
    assert [npu["board"]["board_id"] for npu in npus] == ["0x60", "0x60"]
    assert npus[1]["board"]["firmware_version"] == "7.8.0.6.201"


def test_board_error_fails_with_the_tool_message(module_runner, fake_npu_smi):
    answers = [
        (0, fixture("310p3-1card-22.0.0-driver-22.0.2.txt"), ""),
        (0, fixture("npu-smi-info-t-board-invalid-card-id-error.txt"), ""),
    ]
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi, "board": True}, answers
    )
    assert result["failed"] is True
    assert result["msg"].startswith(
        f"cannot read the output of '{fake_npu_smi} info -t board -i 0': "
        "line 1: expected 'Key : value', got 'Invalid card id.'. Output:\nInvalid card id."
    )


def test_nonzero_exit_fails_with_code_and_excerpt(module_runner, fake_npu_smi):
    result, _calls = module_runner(
        npu_smi_facts.main,
        {"executable": fake_npu_smi},
        [(1, "", "npu-smi: command crashed\n")],
    )
    assert result["failed"] is True
    assert result["msg"] == (
        f"'{fake_npu_smi} info' failed with exit code 1. Output:\nnpu-smi: command crashed\n"
    )
    assert result["rc"] == 1


def test_8005_with_nonzero_exit(module_runner, fake_npu_smi):
    out = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi module initialize failed. ret is -8005\n"
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(255, out, "")]
    )
    assert result["failed"] is True
    assert (
        "failed with exit code 255 (error -8005: the device is not started normally"
        in result["msg"]
    )
    assert result["excerpt"].endswith("ret is -8005\n")


def test_8005_with_zero_exit(module_runner, fake_npu_smi):
    out = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi module initialize failed. ret is -8005\n"
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(0, out, "")]
    )
    assert result["failed"] is True
    assert result["msg"].startswith(
        f"cannot read the output of '{fake_npu_smi} info': npu-smi reports error -8005: "
    )


def test_unparsable_output_fails(module_runner, fake_npu_smi):
    text = "\n".join(fixture("910b4-4card-24.1.rc3-noprocs.txt").split("\n")[:7])
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(0, text, "")]
    )
    assert result["failed"] is True
    assert "line 7: output ends inside a chip block" in result["msg"]
    assert "| 0     910B4 " in result["excerpt"]


def test_missing_executable(module_runner, tmp_path):
    missing = str(tmp_path / "nope")
    result, calls = module_runner(npu_smi_facts.main, {"executable": missing}, [])
    assert result == {
        "failed": True,
        "msg": f"{missing} is not an executable file",
        "executable": missing,
    }
    assert calls == []


def test_directory_instead_of_npu_smi(module_runner, tmp_path):
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": str(tmp_path)}, []
    )
    assert result["failed"] is True
    assert result["msg"].startswith(
        f"{tmp_path} is a directory, not the npu-smi program"
    )


def test_found_on_path(module_runner, fake_npu_smi, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(fake_npu_smi).parent))
    result, calls = module_runner(
        npu_smi_facts.main, {}, [(0, fixture("310b1-soc-23.0.rc3.txt"), "")]
    )
    assert calls == [timed(fake_npu_smi, "info")]
    assert result["ansible_facts"]["ascend_npu_smi"]["npus"][0]["name"] == "310B1"


def test_default_locations_when_not_on_path(module_runner, fake_npu_smi, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(
        npu_smi_facts, "DEFAULT_LOCATIONS", ("/nonexistent/sbin/npu-smi", fake_npu_smi)
    )
    monkeypatch.setattr(
        npu_smi_facts.AnsibleModule,
        "get_bin_path",
        lambda self, name, **unused: TIMEOUT if name == "timeout" else None,
    )
    result, calls = module_runner(
        npu_smi_facts.main, {}, [(0, fixture("310b1-soc-23.0.rc3.txt"), "")]
    )
    assert calls == [timed(fake_npu_smi, "info")]
    assert "failed" not in result


def test_not_found_anywhere(module_runner, monkeypatch):
    monkeypatch.setattr(
        npu_smi_facts, "DEFAULT_LOCATIONS", ("/nonexistent/sbin/npu-smi",)
    )
    monkeypatch.setattr(
        npu_smi_facts.AnsibleModule,
        "get_bin_path",
        lambda self, name, **unused: TIMEOUT if name == "timeout" else None,
    )
    result, _calls = module_runner(npu_smi_facts.main, {}, [])
    assert result["failed"] is True
    assert result["msg"].startswith(
        "npu-smi not found on PATH nor in /usr/local/sbin or /usr/local/bin"
    )


def test_check_mode_reads_too(module_runner, fake_npu_smi):
    result, calls = module_runner(
        npu_smi_facts.main,
        {"executable": fake_npu_smi, "_ansible_check_mode": True},
        [(0, fixture("310b1-soc-23.0.rc3.txt"), "")],
    )
    assert calls == [timed(fake_npu_smi, "info")]
    assert result["ansible_facts"]["ascend_npu_smi"]["npu_count"] == 1


@settings(
    max_examples=200,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rc=st.sampled_from([0, 0, 0, 1, 2, 255]),
    base=st.sampled_from(INFO_FIXTURES),
    cut=st.floats(min_value=0, max_value=1),
    noise=st.text(max_size=30),
)
def test_garbage_always_ends_in_fail_json(
    module_runner, fake_npu_smi, rc, base, cut, noise
):
    text = fixture(base)
    out = text[: int(len(text) * cut)] + noise
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(rc, out, "")]
    )
    if "failed" in result:
        assert result["msg"]
        assert "Traceback" not in result["msg"]
    else:
        assert rc == 0
        assert result["ansible_facts"]["ascend_npu_smi"]["npu_count"] >= 1


def test_timeout_is_passed_to_coreutils_timeout(module_runner, fake_npu_smi):
    result, calls = module_runner(
        npu_smi_facts.main,
        {"executable": fake_npu_smi, "timeout": 7},
        [(0, fixture("910b3-8card-23.0.7-with-processes.txt"), "")],
    )
    assert "failed" not in result
    assert calls == [timed(fake_npu_smi, "info", seconds=7)]


def test_a_hang_fails_with_the_timeout_message(
    module_runner, fake_npu_smi, monkeypatch
):
    # The clock says the time has passed and timeout(1) reports 124: npu-smi was stopped.
    ticks = iter([100.0, 161.0])
    monkeypatch.setattr(npu_smi_facts.time, "monotonic", lambda: next(ticks))
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(124, "", "")]
    )
    assert result["failed"] is True
    assert result["timed_out"] is True
    assert result["msg"].startswith(
        f"'{fake_npu_smi} info' did not answer within 60 s and was stopped (timeout)"
    )
    assert "reboot the node" in result["msg"]


def test_exit_124_in_time_is_an_ordinary_failure(
    module_runner, fake_npu_smi, monkeypatch
):
    ticks = iter([100.0, 100.5])
    monkeypatch.setattr(npu_smi_facts.time, "monotonic", lambda: next(ticks))
    result, _calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi}, [(124, "oops", "")]
    )
    assert result["failed"] is True
    assert "timed_out" not in result
    assert result["msg"].startswith(f"'{fake_npu_smi} info' failed with exit code 124")


@pytest.mark.parametrize("value", [0, -3])
def test_timeout_must_be_positive(module_runner, fake_npu_smi, value):
    result, calls = module_runner(
        npu_smi_facts.main, {"executable": fake_npu_smi, "timeout": value}, []
    )
    assert result["failed"] is True
    assert result["msg"] == f"timeout must be a positive number of seconds, got {value}"
    assert calls == []
