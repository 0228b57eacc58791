# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end through the real ansible CLI, once per npu-smi fixture.

For every fixture a fake ``npu-smi`` (a shell script printing the fixture) is run by
``ansible localhost -m cubestudio.ascend.npu_smi_facts -a executable=<fake>``, exactly as a
user would, and the fact that comes back must equal parse_info() of the fixture. Runs inside
``ansible-test units`` and with plain pytest from the checkout (see the ansible_adhoc fixture in
../conftest.py).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)

FIXTURES = Path(__file__).resolve().parents[1] / "module_utils" / "fixtures" / "npu-smi"
INFO_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.txt")
    if not path.name.startswith(("npu-smi-info-", "npu-smi-upgrade-", "lspci-"))
)


def fake_npu_smi(directory: Path, name: str, body: str) -> Path:
    fake = directory / f"npu-smi-{name}"
    fake.write_text(f"#!/bin/sh\n{body}")
    fake.chmod(0o755)
    return fake


def test_every_fixture_through_the_ansible_cli(ansible_adhoc, tmp_path):
    def one(name):
        fake = fake_npu_smi(tmp_path, name, f"exec cat '{FIXTURES / name}'\n")
        return name, ansible_adhoc(
            "cubestudio.ascend.npu_smi_facts", f"executable={fake}"
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(pool.map(one, INFO_FIXTURES))
    assert sorted(results) == INFO_FIXTURES
    assert len(INFO_FIXTURES) == 10
    for name, (rc, status, result) in results.items():
        assert rc == 0, (name, result)
        assert status == "localhost | SUCCESS", name
        assert result["changed"] is False
        expected = parse_info((FIXTURES / name).read_text())
        assert result["ansible_facts"]["ascend_npu_smi"] == expected, name
        assert result["executable"].endswith(f"npu-smi-{name}")


def test_error_8005_through_the_ansible_cli(ansible_adhoc, tmp_path):
    body = (
        "echo 'DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)'\n"
        "echo 'dcmi module initialize failed. ret is -8005'\n"
        "exit 255\n"
    )
    fake = fake_npu_smi(tmp_path, "8005", body)
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.npu_smi_facts", f"executable={fake}"
    )
    assert rc == 2
    assert status == "localhost | FAILED!"
    assert (
        "failed with exit code 255 (error -8005: the device is not started normally"
        in result["msg"]
    )
    assert "exception" not in result


def test_garbage_through_the_ansible_cli(ansible_adhoc, tmp_path):
    fake = fake_npu_smi(tmp_path, "garbage", "echo 'Segmentation fault'\n")
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.npu_smi_facts", f"executable={fake}"
    )
    assert (rc, status) == (2, "localhost | FAILED!")
    assert result["msg"] == (
        f"cannot read the output of '{fake} info': no 'npu-smi <version>  Version: <version>' header line found. "
        "Output:\nSegmentation fault\n"
    )
    assert "exception" not in result


def test_hang_through_the_ansible_cli(ansible_adhoc, tmp_path):
    # A real hanging npu-smi (exec: the sleep itself gets the signals) is stopped by the time-out.
    fake = fake_npu_smi(tmp_path, "hang", "exec sleep 120\n")
    started = time.monotonic()
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.npu_smi_facts", f"executable={fake} timeout=2"
    )
    assert time.monotonic() - started < 60
    assert (rc, status) == (2, "localhost | FAILED!")
    assert result["timed_out"] is True
    assert (
        f"'{fake} info' did not answer within 2 s and was stopped (timeout)"
        in result["msg"]
    )
    assert "exception" not in result
