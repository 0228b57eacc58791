# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end through the real ansible CLI, once per npu-smi fixture.

For every fixture a fake ``npu-smi`` (a shell script printing the fixture) is run by
``ansible localhost -m cubestudio.ascend.npu_smi_facts -a executable=<fake>``, exactly as a
user would, and the fact that comes back must equal parse_info() of the fixture. Runs inside
``ansible-test units`` and with plain pytest from the checkout; the collection must sit in an
``ansible_collections/cubestudio/ascend`` tree (the ansible-test tree, or ``.build/collections``
made by ``make setup``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._npu_smi import (
    parse_info,
)

COLLECTION_ROOT = Path(__file__).resolve().parents[4]
FIXTURES = (
    COLLECTION_ROOT
    / "tests"
    / "unit"
    / "plugins"
    / "module_utils"
    / "fixtures"
    / "npu-smi"
)
INFO_FIXTURES = sorted(
    path.name
    for path in FIXTURES.glob("*.txt")
    if not path.name.startswith(("npu-smi-info-", "lspci-"))
)


def collections_path() -> Path | None:
    for root in (Path(__file__).parents[4], COLLECTION_ROOT):
        if (
            root.parent.name == "cubestudio"
            and root.parent.parent.name == "ansible_collections"
        ):
            return root.parent.parent.parent
    built = COLLECTION_ROOT / ".build" / "collections"
    if (built / "ansible_collections" / "cubestudio" / "ascend").exists():
        return built
    return None


def ansible_cli() -> str | None:
    beside = Path(sys.executable).parent / "ansible"
    if beside.exists():
        return str(beside)
    return shutil.which("ansible")


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    cli = ansible_cli()
    collections = collections_path()
    if cli is None or collections is None:
        pytest.skip(
            "the ansible CLI or an ansible_collections tree holding this collection is missing"
        )
    home = tmp_path_factory.mktemp("ansible-home")
    config = home / "ansible.cfg"
    config.write_text("[defaults]\nhost_key_checking = False\n")
    # ansible-test runs module unit tests with a PYTHONPATH that hides everything of ansible
    # except module_utils; the CLI needs the whole installed ansible-core.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(
        {
            "ANSIBLE_CONFIG": str(config),
            "ANSIBLE_COLLECTIONS_PATH": str(collections),
            "ANSIBLE_LOCAL_TEMP": str(home / "tmp"),
            "ANSIBLE_HOME": str(home),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_INJECT_FACT_VARS": "False",
        }
    )
    return cli, env, home


def run_cli(cli_env, script_body: str, name: str) -> tuple:
    cli, env, home = cli_env
    fake = home / f"npu-smi-{name}"
    fake.write_text(f"#!/bin/sh\n{script_body}")
    fake.chmod(0o755)
    argv = [
        cli,
        "localhost",
        "-i",
        "localhost,",
        "-c",
        "local",
        "-o",
        "-m",
        "cubestudio.ascend.npu_smi_facts",
        "-a",
        f"executable={fake}",
        "-e",
        f"ansible_python_interpreter={sys.executable}",
    ]
    proc = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    line = next(
        (ln for ln in proc.stdout.splitlines() if ln.startswith("localhost | ")), ""
    )
    assert " => " in line, f"unexpected ansible output:\n{proc.stdout}\n{proc.stderr}"
    status, payload = line.split(" => ", 1)
    return proc.returncode, status, json.loads(payload)


def test_every_fixture_through_the_ansible_cli(cli_env):
    def one(name):
        return name, run_cli(cli_env, f"exec cat '{FIXTURES / name}'\n", name)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(pool.map(one, INFO_FIXTURES))
    assert sorted(results) == INFO_FIXTURES
    for name, (rc, status, result) in results.items():
        assert rc == 0, (name, result)
        assert status == "localhost | SUCCESS", name
        assert result["changed"] is False
        expected = parse_info((FIXTURES / name).read_text())
        assert result["ansible_facts"]["ascend_npu_smi"] == expected, name


def test_error_8005_through_the_ansible_cli(cli_env):
    body = (
        "echo 'DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)'\n"
        "echo 'dcmi module initialize failed. ret is -8005'\n"
        "exit 255\n"
    )
    rc, status, result = run_cli(cli_env, body, "8005")
    assert rc == 2
    assert status == "localhost | FAILED!"
    assert (
        "failed with exit code 255 (error -8005: the device is not started normally"
        in result["msg"]
    )
    assert "Traceback" not in json.dumps(result)
