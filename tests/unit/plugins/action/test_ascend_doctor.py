# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action cubestudio.ascend.ascend_doctor: the fact, the lines, the threshold from the
exporter's rules, and a clear failure on a broken table or rules file."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import ascend_doctor

FACTS = {
    "pci_npu_count": 1,
    "davinci_devices": 1,
    "davinci_ids": [0],
    "device_nodes": {"davinci_manager": True, "devmm_svm": True, "hisi_hdc": True},
    "npu_smi": {
        "present": True,
        "is_directory": False,
        "path": "/usr/local/sbin/npu-smi",
    },
    "driver": {"version": "25.5.0", "complete": True},
    "cann": None,
    "docker_runtime": None,
}
NPU_SMI = {
    "driver_version": "25.5.0",
    "chip_count": 1,
    "npus": [
        {"id": 0, "health": "OK", "chips": [{"chip": 0, "health": "OK", "temp_c": 81}]}
    ],
}


def test_findings_are_a_fact_with_lines(run_action):
    result = run_action(ascend_doctor, {"ascend": FACTS, "npu_smi": NPU_SMI})
    assert result["changed"] is False and "failed" not in result
    assert result["temperature_threshold"] == 80.0
    (finding,) = result["findings"]
    assert finding["row"] == "T18"
    fact = result["ansible_facts"]["ascend_doctor"]
    assert fact["findings"] == result["findings"]
    assert fact["lines"] == result["lines"]
    assert result["lines"][0].startswith("[T18] WARNING: NPU 0 chip 0 at 81 C")


def test_the_report_path_is_absolute_from_the_working_directory(
    run_action, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    result = run_action(ascend_doctor, {"ascend": FACTS, "host": "atlas-01"})
    assert result["output_dir"] == str(tmp_path / "doctor")
    assert result["report_path"] == str(tmp_path / "doctor" / "atlas-01.json")
    result = run_action(
        ascend_doctor, {"ascend": FACTS, "host": "n", "output_dir": "/srv/reports"}
    )
    assert result["report_path"] == "/srv/reports/n.json"


def test_a_given_threshold_wins(run_action):
    result = run_action(
        ascend_doctor,
        {"ascend": FACTS, "npu_smi": NPU_SMI, "temperature_threshold": 85},
    )
    assert result["findings"] == [] and result["lines"] == []


def test_a_broken_rows_file_fails_with_the_cause(run_action, tmp_path):
    bad = tmp_path / "rows.yml"
    bad.write_text("schema: 1\nrows: [{id: T1}]\n")
    with pytest.raises(
        AnsibleActionFail,
        match=r"troubleshooting table .* is malformed: row 1 \(T1\) lacks",
    ):
        run_action(ascend_doctor, {"ascend": FACTS, "rows_file": str(bad)})
    with pytest.raises(
        AnsibleActionFail, match="cannot read the troubleshooting table"
    ):
        run_action(
            ascend_doctor, {"ascend": FACTS, "rows_file": str(tmp_path / "missing.yml")}
        )


def test_a_rules_file_without_the_alert_fails(run_action, tmp_path):
    rules = tmp_path / "rules.yml"
    rules.write_text("groups: []\n")
    with pytest.raises(
        AnsibleActionFail, match=r"exporter rules file .* AscendNpuTemperatureHigh"
    ):
        run_action(ascend_doctor, {"ascend": FACTS, "rules_file": str(rules)})


def test_facts_of_another_module_fail_with_the_cause(run_action):
    with pytest.raises(
        AnsibleActionFail,
        match=r"ansible_facts\.ascend of cubestudio\.ascend\.ascend_facts",
    ):
        run_action(ascend_doctor, {"ascend": {"driver": None}})
