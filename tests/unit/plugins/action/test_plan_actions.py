# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan actions (ascend_device_plugin_plan, ascend_exporter_plan): fact, warnings, failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import (
    ascend_device_plugin_plan,
    ascend_exporter_plan,
    ascend_hccn_plan,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)

FIXTURES = Path(__file__).resolve().parents[1] / "module_utils" / "fixtures" / "npu-smi"
NPU_SMI = parse_info((FIXTURES / "910b3-8card-23.0.7-with-processes.txt").read_text())


def device_args(**kw):
    args = {
        "npu_family": "910B",
        "architecture": "x86_64",
        "npu_smi": NPU_SMI,
        "board_id": "0x33",
        "version": "7.3.0",
        "node_name": "atlas-01",
    }
    args.update(kw)
    return args


def test_the_device_plugin_plan_is_a_fact(run_action):
    result = run_action(ascend_device_plugin_plan, device_args())
    plan = result["ansible_facts"]["ascend_device_plugin_plan"]
    assert result["changed"] is False and plan == result["plan"]
    assert plan["resource"] == "huawei.com/Ascend910"
    assert plan["labels"]["accelerator-type"] == "module-910b-8"
    assert "warnings" not in result


def test_an_unknown_board_is_a_warning_of_the_task(run_action):
    result = run_action(ascend_device_plugin_plan, device_args(board_id="0x60"))
    assert (
        "Board ID 0x60 with 8 NPUs is not in the MindCluster catalogue"
        in result["warnings"][0]
    )


def test_bad_input_fails_with_the_cause(run_action):
    with pytest.raises(AnsibleActionFail, match="the NPU family A5 has no MindCluster"):
        run_action(ascend_device_plugin_plan, device_args(npu_family="A5"))


def test_a_broken_catalogue_file_is_named(run_action, tmp_path):
    bad = tmp_path / "mindcluster.yml"
    bad.write_text("schema: 2\n")
    with pytest.raises(
        AnsibleActionFail, match=r"the MindCluster catalogue .* is malformed"
    ):
        run_action(ascend_device_plugin_plan, device_args(catalogue_file=str(bad)))
    with pytest.raises(
        AnsibleActionFail, match="cannot read the MindCluster catalogue"
    ):
        run_action(
            ascend_device_plugin_plan,
            device_args(catalogue_file=str(tmp_path / "missing.yml")),
        )


def test_the_exporter_plan_follows_the_node_s_engine(run_action):
    result = run_action(
        ascend_exporter_plan,
        {"version": "7.3.0", "node_runtime": "containerd://1.6.20"},
    )
    plan = result["ansible_facts"]["ascend_exporter_plan"]
    assert plan["engine"] == "containerd"
    assert "-containerMode=containerd" in plan["command"]
    with pytest.raises(AnsibleActionFail, match="outside 1025-40000"):
        run_action(ascend_exporter_plan, {"version": "7.3.0", "port": 80})


def test_the_hccn_plan_reads_the_fleet_from_hostvars(run_action):
    request = {
        "family": "910B",
        "ports": 8,
        "subnets": ["10.20.0.0/24"],
        "tls": "disable",
    }
    task_vars = {
        "ansible_play_hosts_all": ["a", "b", "c"],
        "hostvars": {
            "a": {"hccn_request": dict(request, host_offset=10)},
            "b": {"hccn_request": dict(request, host_offset=20)},
            "c": {},
        },
    }
    result = run_action(ascend_hccn_plan, {"host": "a"}, task_vars=task_vars)
    plan = result["ansible_facts"]["hccn_plan"]
    assert result["changed"] is False and plan["fleet"] == {"a": 8, "b": 8}
    assert plan["ping"]["address"] == "10.20.0.20"
    task_vars["hostvars"]["b"]["hccn_request"]["host_offset"] = 12
    with pytest.raises(AnsibleActionFail, match=r"duplicate address 10\.20\.0\.12"):
        run_action(ascend_hccn_plan, {"host": "b"}, task_vars=task_vars)
