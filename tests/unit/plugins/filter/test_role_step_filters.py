# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filters the cann_toolkit and npu_driver tasks call instead of deciding in Jinja: the
values as the tasks hand them (booleans as text too), bad input as AnsibleFilterError."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter import (
    cann_driver,
    cann_env_steps,
    cann_layout,
    cann_packages,
    compat_lines,
    driver_reboot_now,
    driver_reboot_reasons,
    driver_reboot_required,
    driver_removals,
    exporter_uninstall_steps,
    install_options_by_component,
    layer_result,
)


def _filter(module, name):
    return module.FilterModule().filters()[name]


LAYOUT = _filter(cann_layout, "cann_layout")
PACKAGE = {
    "kind": "toolkit",
    "version": "8.1.RC1",
    "layout": "classic",
    "latest": False,
    "directory": "/usr/local/Ascend/ascend-toolkit/8.1.RC1",
}
INPUTS = {
    "cann": {"packages": [PACKAGE]},
    "version": "8.1.RC1",
    "kinds": ["toolkit"],
    "wanted": ["toolkit"],
    "new_layout": "False",
    "install_path": "/usr/local/Ascend",
    "products": {"toolkit": "ascend-toolkit"},
}


def test_cann_layout():
    assert LAYOUT(INPUTS) == {
        "links": [
            {"path": "/usr/local/Ascend/ascend-toolkit/latest", "src": "8.1.RC1"}
        ],
        "set_env": "/usr/local/Ascend/ascend-toolkit/set_env.sh",
        "source": "/usr/local/Ascend/ascend-toolkit/set_env.sh",
    }
    assert LAYOUT(dict(INPUTS, cann=None))["links"] == []
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        LAYOUT({"version": "8.1.RC1"})
    with pytest.raises(AnsibleFilterError, match="cann_layout: none of the packages"):
        LAYOUT(dict(INPUTS, wanted=["nnrt"]))


def test_cann_packages_and_driver():
    assert _filter(cann_packages, "cann_packages")(None) == []
    assert _filter(cann_packages, "cann_packages")({"packages": [PACKAGE]}) == [PACKAGE]
    with pytest.raises(AnsibleFilterError):
        _filter(cann_packages, "cann_packages")("8.1.RC1")
    driver = _filter(cann_driver, "cann_driver")
    assert (
        driver({"driver": None, "check_mode": "True", "predicted": "25.5.0"})["version"]
        == "25.5.0"
    )
    assert driver(
        {
            "driver": {"version": "24.1.rc2"},
            "check_mode": "False",
            "predicted": "25.5.0",
        }
    ) == {
        "version": "24.1.rc2",
        "source": "installed",
        "check": False,
    }
    # As the role hands them: cann_toolkit_compat_check as text, the plan's steps.
    assert driver(
        {
            "driver": {"version": "24.1.rc2"},
            "check_mode": False,
            "predicted": "",
            "compat_check": "yes",
            "steps": [{"action": "install"}],
        }
    )["check"]
    with pytest.raises(AnsibleFilterError):
        driver({"driver": "24.1.rc2"})


def test_cann_env_steps():
    f = _filter(cann_env_steps, "cann_env_steps")
    found = f(
        {
            "env_file": "/etc/cann.env",
            "profile_script": "",
            "set_env_exists": "False",
            "check_mode": "True",
            "steps": ["install"],
        }
    )
    assert found["say_pending"] and not found["missing_script"]
    assert not found["write_profile"]
    with pytest.raises(AnsibleFilterError, match="set_env_exists"):
        f({"env_file": "/etc/cann.env"})
    with pytest.raises(AnsibleFilterError):
        f({"set_env_exists": "perhaps"})


def test_exporter_uninstall_steps_reads_each_play_host_node():
    f = _filter(exporter_uninstall_steps, "exporter_uninstall_steps")

    def node(name):
        return {"metadata": {"name": name}}

    hostvars = {
        "a": {"__exporter_node": {"resources": [node("node-a")]}},
        "b": {"__exporter_node": {"resources": [node("node-b")]}},
        # A host whose read found no node (not in the cluster): not a node of the play.
        "c": {"__exporter_node": {"resources": []}},
    }
    inputs = {
        "selected": [node("node-a"), node("node-b")],
        "hostvars": hostvars,
        "play_hosts": ["a", "b", "c"],
        "node": "node-a",
        "image_archive": "",
        "check_mode": False,
    }
    assert f(inputs)["remove_objects"] is True
    inputs["play_hosts"] = ["a"]
    assert f(inputs) == {
        "remove_objects": False,
        "stays": True,
        "wait_pod": False,
        "remove_image": False,
    }
    with pytest.raises(AnsibleFilterError, match=r"metadata\.name"):
        f(dict(inputs, selected=[{}]))
    with pytest.raises(AnsibleFilterError, match="expects"):
        f({"selected": []})


def test_driver_reboot_now():
    f = _filter(driver_reboot_now, "driver_reboot_now")
    assert f(
        {"reboot": "always", "required": "False", "steps": [{}], "reasons": []}
    ) == {
        "now": True,
        "why": "packages were installed",
    }
    with pytest.raises(AnsibleFilterError, match="never, if_needed or always"):
        f({"reboot": "sometimes"})


def test_install_options_by_component():
    f = _filter(install_options_by_component, "install_options_by_component")
    assert f([{"__npu_driver_step": {"component": "driver"}, "options": {"a": 1}}]) == {
        "driver": {"a": 1}
    }
    with pytest.raises(AnsibleFilterError, match="results of a loop"):
        f({"results": []})
    with pytest.raises(AnsibleFilterError, match="no step"):
        f([{"options": {}}])


def test_reboot_filters():
    step = {
        "component": "firmware",
        "action": "upgrade",
        "version": "7.7.0.1.231",
        "file": "fw.run",
    }
    reasons = _filter(driver_reboot_reasons, "driver_reboot_reasons")
    assert reasons(
        {"reasons": [], "step": step, "outcome": "skipped", "check_mode": "True"}
    ) == ["firmware 7.7.0.1.231 flashed (fw.run): the NPUs run it after a reboot"]
    assert (
        reasons(
            {"reasons": [], "step": step, "outcome": "installed", "check_mode": False}
        )
        == []
    )
    with pytest.raises(AnsibleFilterError, match="the step has no"):
        reasons({"reasons": [], "step": {"component": "driver"}, "outcome": "reboot"})
    required = _filter(driver_reboot_required, "driver_reboot_required")
    assert required({"marker": "False", "reasons": ["x"]}) is True
    assert (
        required(
            {
                "marker": False,
                "reasons": ["x"],
                "after": True,
                "check_mode": True,
                "reboot": "always",
            }
        )
        is False
    )
    with pytest.raises(AnsibleFilterError):
        required({"reasons": []})


def test_driver_removals():
    f = _filter(driver_removals, "driver_removals")
    facts = {
        "driver": {"version": "25.2.0", "install_path": "/usr/local/Ascend/driver"},
        "firmware": None,
    }
    assert f({"facts": facts, "components": ["firmware", "driver"]}) == [
        {
            "component": "driver",
            "version": "25.2.0",
            "script": "/usr/local/Ascend/driver/script/uninstall.sh",
        }
    ]
    with pytest.raises(AnsibleFilterError, match="components must be"):
        f({"facts": facts, "components": ["nnae"]})


def test_compat_lines():
    f = _filter(compat_lines, "compat_lines")
    finding = {
        "rule": "driver.firmware.matrix",
        "message": "never seen",
        "fix": "flash 7.7.0.1.231",
    }
    assert f([finding]) == [
        "[driver.firmware.matrix] never seen. Fix: flash 7.7.0.1.231."
    ]
    with pytest.raises(AnsibleFilterError, match="has no 'fix'"):
        f([{"rule": "r", "message": "m"}])


def test_layer_result_as_the_layer_tasks_call_it():
    result = _filter(layer_result, "layer_result")
    check = {
        "name": "hccn",
        "converged": False,
        "reasons": ["the settings or the collection changed since the last run"],
    }
    line = (
        "hccn: runs in full (the settings or the collection changed since the last run)"
    )
    fast = result(
        {"name": "hccn", "check": check, "results": {"npu_driver": {"line": "x"}}}
    )
    assert fast == {
        "converged": False,
        "line": line,
        "message": "Running hccn in full: the settings or the collection changed since the last run.",
        "results": {
            "npu_driver": {"line": "x"},
            "hccn": {"line": line, "check": check},
        },
    }
    # record.yml: no check, the one the fast path kept; booleans as Ansible renders them.
    done = result(
        {
            "name": "hccn",
            "results": fast["results"],
            "recorded": "True",
            "check_mode": "False",
        }
    )
    assert done["line"] == (
        "hccn: ran in full and verified (the settings or the collection changed since the last run)"
    )
    assert done["results"]["hccn"]["line"] == done["line"]
    assert done["results"]["npu_driver"] == {"line": "x"}
    # The fast path did not run (hccn_fast_rerun: false).
    assert result({"name": "hccn", "recorded": True})["line"] == (
        "hccn: ran in full and verified (hccn_fast_rerun is false)"
    )
    ok = dict(check, converged=True, reasons=[])
    assert (
        result(
            {"name": "preflight", "check": ok, "scope": "play", "play": [ok, check]}
        )["converged"]
        is False
    )
    assert (
        result({"name": "preflight", "check": ok, "scope": "play", "play": [ok]})[
            "converged"
        ]
        is True
    )
    # scope host: the other nodes do not count.
    assert (
        result({"name": "hccn", "check": ok, "scope": "host", "play": [ok, check]})[
            "converged"
        ]
        is True
    )
    for bad in (
        None,
        {},
        {"name": "hccn", "scope": "play", "play": "all"},
        {"name": "hccn", "scope": "fleet"},
        {"name": "Bad Name"},
        {"name": "hccn", "results": []},
    ):
        with pytest.raises(AnsibleFilterError):
            result(bad)
