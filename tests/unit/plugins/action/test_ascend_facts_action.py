# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The controller side of ascend_facts: reuse of this run's facts, or a read of the node."""

from __future__ import annotations

from unittest import mock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import (
    ascend_facts as action,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

ARGS = {"sysfs_root": "/sys", "install_path": "/usr/local/Ascend"}


@pytest.fixture
def node(ascend_node):
    """The module's answer on a real node's files, and a mock standing in for the node."""
    root, sysfs = ascend_node("full")
    facts = ascend_facts.gather(root, sysfs, None)
    execute = mock.MagicMock(
        side_effect=lambda *a, **k: {
            "changed": False,
            "ansible_facts": {"ascend": dict(facts)},
        }
    )
    with mock.patch.object(action.ActionModule, "_execute_module", execute):
        yield execute


def test_a_read_with_reuse_is_stamped_then_reused(run_action, node):
    first = run_action(action, {**ARGS, "reuse": True})
    facts = first["ansible_facts"]["ascend"]
    assert first["reused"] is False and node.call_count == 1
    assert facts["driver"]["version"] == "23.0.7"
    assert facts["read"] == {
        "run": action.this_run(),
        "options": {
            "root": "/",
            "sysfs_root": "/sys",
            "proc_root": "/proc",
            "state_dir": "/var/lib/cubestudio-ascend",
            "install_path": "/usr/local/Ascend",
        },
    }
    # reuse is the controller's: the module on the node never sees it.
    assert "reuse" not in node.call_args.kwargs["module_args"]

    again = run_action(
        action,
        {**ARGS, "reuse": True},
        task_vars={"ansible_facts": {"ascend": facts}},
    )
    assert again == {"changed": False, "reused": True}
    assert node.call_count == 1


def test_without_reuse_the_node_is_read_and_the_stamp_cleared(run_action, node):
    stamped = run_action(action, {**ARGS, "reuse": True})["ansible_facts"]["ascend"]
    plain = run_action(
        action, dict(ARGS), task_vars={"ansible_facts": {"ascend": stamped}}
    )
    assert node.call_count == 2 and plain["reused"] is False
    assert plain["ansible_facts"]["ascend"]["read"] is None
    # So the next fast path reads the node again.
    run_action(
        action,
        {**ARGS, "reuse": True},
        task_vars={"ansible_facts": {"ascend": plain["ansible_facts"]["ascend"]}},
    )
    assert node.call_count == 3


def test_other_options_or_another_run_read_the_node(run_action, node):
    stamped = run_action(action, {**ARGS, "reuse": True})["ansible_facts"]["ascend"]
    other = run_action(
        action,
        {**ARGS, "install_path": "/opt/Ascend", "reuse": True},
        task_vars={"ansible_facts": {"ascend": stamped}},
    )
    assert other["reused"] is False and node.call_count == 2
    cached = dict(stamped, read=dict(stamped["read"], run="ops-02:1:2"))
    run_action(
        action, {**ARGS, "reuse": True}, task_vars={"ansible_facts": {"ascend": cached}}
    )
    assert node.call_count == 3


def test_a_failed_read_is_passed_on_unstamped(run_action):
    failed = {
        "failed": True,
        "msg": "install_path must be absolute (as seen on the node), got rel",
    }
    with mock.patch.object(action.ActionModule, "_execute_module", return_value=failed):
        result = run_action(action, {"install_path": "rel", "reuse": True})
    assert result["failed"] and result["msg"] == failed["msg"]
    assert "ansible_facts" not in result


def test_reuse_must_be_a_boolean(run_action, node):
    with pytest.raises(AnsibleActionFail, match="reuse must be a boolean"):
        run_action(action, {"reuse": "sometimes"})
    assert node.call_count == 0


def test_the_run_is_the_parent_process_with_its_start():
    host, pid, start = action.this_run().rsplit(":", 2)
    assert host and int(pid) > 0
    assert start == action.process_start(int(pid)) != ""
    assert action.process_start(2**22 + 7) == ""
