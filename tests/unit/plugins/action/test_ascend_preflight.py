# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action cubestudio.ascend.ascend_preflight: the graded results and the refusal of a node
the checks fail, without failing the task, and a clear failure (never a traceback) on bad
input or a broken data file."""

from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import ascend_preflight

SPACE = {
    "mount": "/",
    "checked_path": "/",
    "fstype": "ext4",
    "free_bytes": 100 << 30,
    "free_gb": 100.0,
}
FACTS = {
    "ascend": {
        "pci_npu_count": 8,
        "npu_family": "910B",
        "npu_families": ["910B"],
        "npu_model": "",
        "pci_devices": [],
        "kernel_cmdline": "BOOT_IMAGE=/vmlinuz ro quiet",
        "hwhiaiuser": None,
        "driver": None,
        "firmware": None,
        "cann": None,
        "docker_runtime": None,
    },
    "ascend_host": {
        "space": {"/usr/local/Ascend": SPACE, "/tmp": dict(SPACE, mount="/tmp")},
        "programs": {
            "lspci": "/usr/bin/lspci",
            "dkms": None,
            "containerd": "/usr/bin/containerd",
        },
        "kernel": {
            "release": "6.1.0",
            "build_dir": "/lib/modules/6.1.0/build",
            "headers": True,
        },
    },
    "distribution": "Ubuntu",
    "distribution_version": "22.04",
    "architecture": "aarch64",
    "python_version": "3.11.2",
    "python": {"executable": "/usr/bin/python3"},
    "memtotal_mb": 4096,
}
PLAN = {
    "arch": "aarch64",
    "archs": ["aarch64", "x86_64"],
    "packages": [],
    "npu_driver": {
        "installed": {"driver": None, "firmware": None},
        "driver_changes": True,
        "firmware_changes": True,
        "required_tools": ["lspci"],
    },
}
FLEET = [{"host": "n1", "user": None, "uid_owners": {}, "gid_owners": {}}]


def args(**kw):
    base = {
        "facts": copy.deepcopy(FACTS),
        "plan": copy.deepcopy(PLAN),
        "fleet": FLEET,
        "driver_version": "25.5.0",
    }
    base.update(kw)
    return base


def test_a_refused_node_is_a_result_not_a_failed_task(run_action):
    result = run_action(
        ascend_preflight, args(), task_vars={"inventory_hostname": "n1"}
    )
    assert result["changed"] is False and "failed" not in result
    assert result["refuse"] is True
    assert result["msg"].startswith("Preflight refused n1: 1 of 13 checks failed.")
    assert "- memory: the node has 4.0 GB of memory" in result["msg"]
    assert result["ansible_facts"]["ascend_preflight"]["results"] == result["results"]
    assert [f["check"] for f in result["findings"]] == ["memory"]


def test_report_only_never_refuses(run_action):
    result = run_action(
        ascend_preflight,
        args(fail_on_error=False),
        task_vars={"inventory_hostname": "n1"},
    )
    assert result["refuse"] is False and result["msg"]


@pytest.mark.parametrize(
    "bad, message",
    [
        (
            {"facts": {"ascend": {}}},
            "ascend_preflight: ansible_facts lacks ascend_host",
        ),
        ({"min_memory_gb": "much"}, "min_memory_gb must be a number"),
        (
            {"fleet": [{"user": None}]},
            "each item of fleet must be a dict with the host",
        ),
        ({"warn_checks": ["nope"]}, "name checks that do not exist: nope"),
    ],
)
def test_bad_input_fails_with_the_cause(run_action, bad, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run_action(
            ascend_preflight, args(**bad), task_vars={"inventory_hostname": "n1"}
        )


def test_a_missing_required_option_fails(run_action):
    with pytest.raises(
        AnsibleActionFail, match="missing required arguments: fleet, plan"
    ):
        run_action(ascend_preflight, {"facts": FACTS})


def test_a_broken_matrix_file_fails_with_the_cause(run_action, tmp_path):
    bad = tmp_path / "matrix.yml"
    bad.write_text("schema: [\n")
    with pytest.raises(AnsibleActionFail, match=r"version matrix .* is not valid YAML"):
        run_action(
            ascend_preflight,
            args(matrix_file=str(bad)),
            task_vars={"inventory_hostname": "n1"},
        )
