# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The record actions (ascend_node_record, ascend_fleet_report): fact, failures."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import (
    ascend_fleet_report,
    ascend_node_record,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts


def test_the_node_record_is_a_fact(run_action, ascend_node):
    root, sysfs = ascend_node("full")
    ascend = ascend_facts.gather(root, sysfs, None)
    result = run_action(ascend_node_record, {"host": "atlas-01", "ascend": ascend})
    record = result["ansible_facts"]["ascend_node_record"]
    assert result["changed"] is False and record == result["record"]
    assert record["versions"]["driver"] == "23.0.7"
    assert record["health"]["state"] == "no_npu_smi"

    report = run_action(ascend_fleet_report, {"records": [record]})
    assert report["changed"] is False
    assert report["ansible_facts"]["ascend_fleet_report"]["totals"]["nodes"] == 1


def test_the_node_record_fails_with_the_cause(run_action):
    with pytest.raises(AnsibleActionFail, match="ascend is not the fact of"):
        run_action(ascend_node_record, {"host": "a", "ascend": {"x": 1}})


def test_an_unknown_option_is_refused(run_action):
    with pytest.raises(
        AnsibleActionFail,
        match=r"Invalid options for cubestudio\.ascend\.ascend_node_record: colour",
    ):
        run_action(ascend_node_record, {"host": "a", "ascend": {}, "colour": "red"})


def test_the_fleet_report_fails_with_the_cause(run_action):
    with pytest.raises(AnsibleActionFail, match="records must be a non-empty list"):
        run_action(ascend_fleet_report, {"records": []})
