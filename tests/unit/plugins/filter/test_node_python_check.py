# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node Python guard: the range from data/ansible_core.yml, the verdict on probe output."""

from __future__ import annotations

import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.release import __version__ as CORE

from ansible_collections.cubestudio.ascend.plugins.filter.node_python_check import (
    TABLE,
    FilterModule,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._node_python import (
    NodePythonDataError,
    node_python_range,
    node_python_verdict,
)

FILTER = FilterModule().filters()["node_python_check"]

with open(TABLE, encoding="utf-8") as _handle:
    DATA = yaml.safe_load(_handle)


def test_the_table_knows_the_controllers_core_and_requires_ansible():
    # The pinned ansible-core has a row of its own (not the "newer than the table" fallback).
    assert node_python_range(CORE, DATA)["known"]
    runtime = os.path.join(os.path.dirname(TABLE), "..", "meta", "runtime.yml")
    with open(runtime, encoding="utf-8") as handle:
        floor = yaml.safe_load(handle)["requires_ansible"].lstrip(">=")
    # requires_ansible's floor is the table's oldest row: every allowed core has a range.
    assert DATA["releases"][0]["core"] == ".".join(floor.split(".")[:2])
    assert node_python_range(floor, DATA)["known"]


@pytest.mark.parametrize(
    ("core", "oldest", "newest"),
    [("2.19.14", "3.8", "3.13"), ("2.20.5", "3.9", "3.14"), ("2.21.5", "3.9", "3.14")],
)
def test_ranges_from_ansible_tests_constants(core, oldest, newest):
    span = node_python_range(core, DATA)
    assert (span["oldest"], span["newest"], span["known"]) == (oldest, newest, True)


def test_a_newer_core_takes_the_newest_row_and_says_so():
    span = node_python_range("2.99.0", DATA)
    assert (span["core"], span["known"]) == ("2.21", False)
    verdict = node_python_verdict(
        "cubestudio-python-version 3.11.2", "2.99.0", DATA, "python3"
    )
    assert (
        verdict["ok"] and "newer than data/ansible_core.yml knows" in verdict["warning"]
    )


def test_an_older_core_or_a_bad_table_is_refused():
    with pytest.raises(NodePythonDataError, match="older than every release"):
        node_python_range("2.18.3", DATA)
    for table in (
        {},
        {"schema": 1, "releases": []},
        {"schema": 1, "releases": [{"core": "2.21", "node_python": ["3.14", "3.9"]}]},
    ):
        with pytest.raises(NodePythonDataError):
            node_python_range("2.21.0", table)


def test_debian_12_passes_quietly():
    verdict = node_python_verdict(
        "cubestudio-python-version 3.11.2\n", "2.21.5", DATA, "python3"
    )
    assert verdict == {
        "ok": True,
        "version": "3.11.2",
        "oldest": "3.9",
        "newest": "3.14",
        "core": "2.21",
        "problem": "",
        "warning": "",
    }


@pytest.mark.parametrize(
    ("node", "core", "ok"),
    [
        ("3.8.18", "2.21.5", False),
        ("3.8.18", "2.19.14", True),
        ("3.7.9", "2.19.14", False),
        ("3.9.0", "2.21.5", True),
    ],
)
def test_the_floor_follows_the_controllers_core(node, core, ok):
    assert (
        node_python_verdict(f"cubestudio-python-version {node}", core, DATA, "python3")[
            "ok"
        ]
        is ok
    )


def test_kylin_v10_python_37_is_refused_with_cause_and_fix():
    verdict = node_python_verdict(
        "motd line\ncubestudio-python-version 3.7.9\n",
        "2.21.5",
        DATA,
        "/usr/bin/python3",
    )
    assert not verdict["ok"] and verdict["version"] == "3.7.9"
    assert verdict["problem"].startswith(
        "[T42] the node's /usr/bin/python3 is Python 3.7.9, too old"
    )
    assert "Python 3.9 to 3.14" in verdict["problem"]
    assert "ansible_python_interpreter" in verdict["problem"]
    # No supported ansible-core runs 3.7: no advice to use an older controller.
    assert "ansible-core 2.19," not in verdict["problem"]
    verdict = node_python_verdict(
        "cubestudio-python-version 3.8.10", "2.21.5", DATA, "python3"
    )
    assert verdict["problem"].endswith(
        "ansible-core 2.19, which still runs modules on Python 3.8"
    )


def test_missing_or_silent_python_is_refused():
    for stdout in (
        "cubestudio-python-missing /usr/bin/python3\n",
        "",
        "sh: 1: garbage\n",
    ):
        verdict = node_python_verdict(stdout, "2.21.5", DATA, "/usr/bin/python3")
        assert (
            not verdict["ok"]
            and "has no Python interpreter '/usr/bin/python3'" in verdict["problem"]
        )
        assert "install python3" in verdict["problem"]
    verdict = node_python_verdict(
        "cubestudio-python-version banana", "2.21.5", DATA, "py"
    )
    assert not verdict["ok"] and "did not report its version" in verdict["problem"]


def test_a_newer_python_warns_only():
    verdict = node_python_verdict(
        "cubestudio-python-version 3.15.0", "2.21.5", DATA, "python3"
    )
    assert verdict["ok"] and "newer than the range" in verdict["warning"]


def test_the_filter_uses_the_controllers_core_and_refuses_bad_input():
    assert FILTER("cubestudio-python-version 3.11.2")["core"] == ".".join(
        CORE.split(".")[:2]
    )
    assert not FILTER("cubestudio-python-version 3.6.8", "python3", "2.19.0")["ok"]
    with pytest.raises(AnsibleFilterError, match="expects the raw probe's stdout"):
        FILTER(None)
    with pytest.raises(AnsibleFilterError, match="older than every release"):
        FILTER("cubestudio-python-version 3.11.2", "python3", "2.10.0")
