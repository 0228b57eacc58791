# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_plan (plugins/module_utils/_node/_node_plan.py) on the facts ascend_facts reads from sandbox
nodes built of real installed files (../conftest.py), with the collection's data/catalogue.yml.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import ascend_plan as action
from ansible_collections.cubestudio.ascend.plugins.filter.hwhiaiuser_problems import (
    hwhiaiuser_problems,
)
from ansible_collections.cubestudio.ascend.plugins.filter.missing_tools import (
    missing_tools,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    INPUT_VARIABLES,
    PlanError,
    cann_line,
    plan,
    plan_inputs,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

CATALOGUE_FILE = Path(__file__).resolve().parents[4] / "data" / "catalogue.yml"


@pytest.fixture(scope="module")
def catalogue():
    return validate_catalogue(yaml.safe_load(CATALOGUE_FILE.read_text()))


@pytest.fixture
def node_facts(ascend_node):
    def read(layout):
        root, sysfs = ascend_node(layout)
        return ascend_facts.gather(root, sysfs, None)

    return read


def params(facts, **kw):
    base = {
        "facts": facts,
        "architecture": "aarch64",
        "driver_version": "25.5.0",
        "firmware_version": "7.8.0.5.216",
        "manage_firmware": True,
        "checksums": {},
        "local_dir": "",
        "cann_packages": ["toolkit"],
        "cann_keep_old_versions": True,
    }
    base.update(kw)
    return base


def test_upgrade_over_an_installed_driver_flashes_firmware_first(catalogue, node_facts):
    facts = node_facts("full")  # driver 23.0.7, firmware 7.1.0.11.220, 4 x 910B
    result = plan(
        catalogue,
        params(
            facts,
            checksums={
                "Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run": "AB" * 32
            },
            local_dir="/srv/pkgs/",
        ),
    )
    driver = result["npu_driver"]
    assert driver["chip"] == "910b" and driver["arch"] == "aarch64"
    assert driver["fresh"] is False and driver["partial"] is False
    assert driver["installed"] == {"driver": "23.0.7", "firmware": "7.1.0.11.220"}
    assert [(s["component"], s["action"], s["previous"]) for s in driver["steps"]] == [
        ("firmware", "upgrade", "7.1.0.11.220"),
        ("driver", "upgrade", "23.0.7"),
    ]
    assert [s["file"] for s in driver["steps"]] == [
        "Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run",
        "Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run",
    ]
    assert driver["steps"][1]["sha256"] == "ab" * 32
    assert driver["steps"][0]["sha256"] == ""
    assert (
        driver["steps"][1]["source"]
        == "/srv/pkgs/Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run"
    )
    assert driver["driver_changes"] and driver["firmware_changes"]
    assert driver["expected_devices"] == 4


# What the sandbox node "full" has installed (driver 23.0.7, firmware 7.1.0.11.220, CANN 8.5.0,
# runtime 7.3.0): a plan with these versions has nothing to do.
INSTALLED = {
    "driver_version": "23.0.7",
    "firmware_version": "7.1.0.11.220",
    "cann_version": "8.5.0",
    "runtime_version": "7.3.0",
}


def test_converged_node_plans_nothing(catalogue, node_facts):
    facts = node_facts("full")
    result = plan(catalogue, params(facts, **INSTALLED))
    assert result["npu_driver"]["steps"] == []
    assert (
        not result["npu_driver"]["driver_changes"]
        and not result["npu_driver"]["firmware_changes"]
    )
    assert result["cann_toolkit"]["steps"] == []
    assert result["ascend_runtime"]["changes"] is False
    assert (
        result["ascend_runtime"]["file"]
        == "Ascend-docker-runtime_7.3.0_linux-aarch64.run"
    )
    assert result["changing"] == [] and result["packages"] == []


def test_an_upgrade_lists_the_changing_layers_and_every_package_in_order(
    catalogue, node_facts
):
    # The converged node of the test above, to the next release set (upgrade.yml's pre-flight).
    facts = node_facts("full")
    result = plan(
        catalogue,
        params(
            facts,
            driver_version="25.5.0",
            firmware_version="7.8.0.5.216",
            cann_version="9.1.0",
            runtime_version="26.1.0",
        ),
    )
    assert result["changing"] == ["npu_driver", "cann_toolkit", "ascend_runtime"]
    assert result["packages"] == [
        "Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run",
        "Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run",
        "Ascend-cann-toolkit_9.1.0_linux-aarch64.run",
        "Ascend-docker-runtime_26.1.0_linux-aarch64.run",
    ]
    # Only the runtime moves: one layer, one package.
    runtime_moves = params(facts, **INSTALLED)
    runtime_moves["runtime_version"] = "26.1.0"
    only_runtime = plan(catalogue, runtime_moves)
    assert only_runtime["changing"] == ["ascend_runtime"]
    assert only_runtime["packages"] == [
        "Ascend-docker-runtime_26.1.0_linux-aarch64.run"
    ]


def test_fresh_node_installs_driver_then_firmware(catalogue, node_facts):
    facts = node_facts("empty")
    result = plan(catalogue, params(facts, architecture="x86_64"))
    assert result["npu_driver"]["fresh"] is True
    assert [(s["component"], s["action"]) for s in result["npu_driver"]["steps"]] == [
        ("driver", "full"),
        ("firmware", "full"),
    ]


def test_firmware_left_alone_and_partial_driver(catalogue, node_facts):
    facts = node_facts("incomplete-driver")
    result = plan(
        catalogue,
        params(facts, driver_version=facts["driver"]["version"], manage_firmware=False),
    )
    driver = result["npu_driver"]
    assert driver["partial"] is True
    # Same version but half installed: preflight counts it as a change, no package step.
    assert driver["driver_changes"] is True and driver["steps"] == []
    assert driver["firmware_changes"] is False


def test_a3_names_and_chips_per_function(catalogue, node_facts):
    facts = copy.deepcopy(node_facts("full"))
    facts["npu_family"] = "A3"
    result = plan(catalogue, params(facts))
    assert [s["file"] for s in result["npu_driver"]["steps"]] == [
        "Atlas-A3-hdk-npu-firmware_7.8.0.5.216.run",
        "Atlas-A3-hdk-npu-driver_25.5.0_linux-aarch64.run",
    ]
    facts["npu_family"], facts["npu_model"] = "310P", "Atlas 300I Duo"
    assert plan(catalogue, params(facts))["npu_driver"]["expected_devices"] == 8
    facts["npu_family"] = "310"
    unknown = plan(catalogue, params(facts))["npu_driver"]
    assert unknown["chip"] == "" and "310" not in unknown["known_families"]
    assert plan(catalogue, params(facts, chip="310x"))["npu_driver"]["chip"] == "310x"


def test_architectures_and_overrides(catalogue, node_facts):
    facts = node_facts("full")
    assert plan(catalogue, params(facts, architecture="arm64"))["arch"] == "aarch64"
    assert plan(catalogue, params(facts, architecture="amd64"))["arch"] == "x86_64"
    odd = plan(
        catalogue, params(facts, architecture="riscv64", runtime_version="7.3.0")
    )
    assert odd["arch"] == "" and odd["archs"] == ["aarch64", "x86_64"]
    assert (
        odd["ascend_runtime"]["file"] == "Ascend-docker-runtime_7.3.0_linux-riscv64.run"
    )
    assert odd["cann_toolkit"]["arch_known"] is False
    named = plan(
        catalogue,
        params(
            facts,
            driver_file="d.run",
            firmware_file="f.run",
            runtime_version="7.3.0",
            runtime_file="r.run",
        ),
    )
    assert [s["file"] for s in named["npu_driver"]["steps"]] == ["f.run", "d.run"]
    assert named["ascend_runtime"]["file"] == "r.run"


@pytest.mark.parametrize(
    "version, packages, keep_old, expected",
    [
        # 8.5.0 is installed in the new layout: nothing to do.
        ("8.5.0", ["toolkit"], True, []),
        # Another new-layout version: one toolkit package, beside the installed one.
        (
            "9.0.0",
            ["toolkit"],
            True,
            [("toolkit", "install", "", "Ascend-cann-toolkit_9.0.0_linux-aarch64.run")],
        ),
        (
            "9.0.0",
            ["toolkit"],
            False,
            [("toolkit", "upgrade", "", "Ascend-cann-toolkit_9.0.0_linux-aarch64.run")],
        ),
        # nnrt alone from 8.5 on: the toolkit package with --whitelist=nnrt.
        (
            "9.0.0",
            ["nnrt"],
            True,
            [
                (
                    "nnrt",
                    "install",
                    "nnrt",
                    "Ascend-cann-toolkit_9.0.0_linux-aarch64.run",
                )
            ],
        ),
        # Classic layout: one package per kind, in install order; nnae 8.0.RC3 is there.
        (
            "8.0.RC3",
            ["nnrt", "nnae", "toolkit"],
            True,
            [
                (
                    "toolkit",
                    "install",
                    "",
                    "Ascend-cann-toolkit_8.0.RC3_linux-aarch64.run",
                ),
                ("nnrt", "install", "", "Ascend-cann-nnrt_8.0.RC3_linux-aarch64.run"),
            ],
        ),
        (
            "8.3.RC1",
            ["nnrt", "toolkit"],
            False,
            [
                (
                    "toolkit",
                    "upgrade",
                    "",
                    "Ascend-cann-toolkit_8.3.RC1_linux-aarch64.run",
                ),
                ("nnrt", "install", "", "Ascend-cann-nnrt_8.3.RC1_linux-aarch64.run"),
            ],
        ),
    ],
)
def test_cann_steps(catalogue, node_facts, version, packages, keep_old, expected):
    facts = node_facts(
        "full"
    )  # toolkits 7.0.T10, 8.1.RC1, 8.0.RC3 (classic) and 8.5.0 (cann)
    result = plan(
        catalogue,
        params(
            facts,
            cann_version=version,
            cann_packages=packages,
            cann_keep_old_versions=keep_old,
        ),
    )
    assert [
        (s["kind"], s["action"], s["whitelist"], s["file"])
        for s in result["cann_toolkit"]["steps"]
    ] == expected


def test_cann_layout_and_files(catalogue, node_facts):
    facts = node_facts("empty")
    assert (
        cann_line("8.5.RC1") == 8005
        and cann_line("10.0.0") == 10000
        and cann_line("x") == -1
    )
    result = plan(
        catalogue,
        params(
            facts,
            cann_version="8.3.RC1",
            cann_packages=["nnae"],
            cann_files={"nnae": "mine.run"},
        ),
    )
    cann = result["cann_toolkit"]
    assert cann["new_layout"] is False and cann["kinds"] == ["nnae"]
    assert [(s["file"], s["log"]) for s in cann["steps"]] == [
        ("mine.run", "ascend_nnae_install.log")
    ]
    assert (
        plan(catalogue, params(facts, cann_version="8.5.0"))["cann_toolkit"][
            "new_layout"
        ]
        is True
    )


def test_missing_tools_filter():
    lines = ["which", "update-rc.d,chkconfig", "lspci", "ifconfig"]
    programs = {
        "which": "/usr/bin/which",
        "update-rc.d": None,
        "chkconfig": "/sbin/chkconfig",
        "lspci": False,
    }
    assert missing_tools(lines, programs) == ["lspci", "ifconfig"]
    assert (
        missing_tools(
            lines, {"which": "/w", "update-rc.d": "/u", "lspci": "/l", "ifconfig": "/i"}
        )
        == []
    )
    with pytest.raises(Exception, match="expects a list of tool names"):
        missing_tools("lspci", programs)
    with pytest.raises(Exception, match="expects the programs of ascend_host_facts"):
        missing_tools(lines, ["lspci"])


def test_catalogue_lists_the_real_installer_tools(catalogue):
    # driver-installer-rules.md: check_tools.conf (34 lines, update-rc.d or chkconfig).
    tools = catalogue["installer_tools"]["driver"]
    assert len(tools) == 34 and "update-rc.d,chkconfig" in tools
    assert {"lspci", "ifconfig", "udevadm", "rev", "readlink"} <= set(tools)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.pop("families"), "no dict mapping 'families'"),
        (lambda c: c["families"].update({"X": {}}), "families.X needs a quoted chip"),
        (lambda c: c["packages"].pop("cann"), "packages.cann needs a pattern"),
        (
            lambda c: c["cann"].update({"new_layout_from": 8.5}),
            "new_layout_from must be a quoted",
        ),
        (
            lambda c: c["installer_tools"].update({"driver": "lspci"}),
            "must be a list of names",
        ),
        (lambda c: c.update({"schema": 2}), "schema: 1"),
    ],
)
def test_broken_catalogue(catalogue, mutate, message):
    broken = copy.deepcopy(catalogue)
    mutate(broken)
    with pytest.raises(PlanError, match=message):
        validate_catalogue(broken)


def test_bad_facts(catalogue):
    with pytest.raises(PlanError, match="no pci_npu_count"):
        plan(catalogue, params({"driver": None}))
    with pytest.raises(PlanError, match="architecture is empty"):
        plan(catalogue, params({"pci_npu_count": 0}, architecture=""))


def test_action_sets_the_fact_and_fails_clearly(run_action, node_facts, tmp_path):
    facts = node_facts("full")
    result = run_action(
        action, {"facts": facts, "architecture": "aarch64", "driver_version": "25.5.0"}
    )
    assert result["changed"] is False
    assert result["ansible_facts"]["ascend_plan"] == result["plan"]
    assert [s["component"] for s in result["plan"]["npu_driver"]["steps"]] == ["driver"]
    with pytest.raises(AnsibleActionFail, match="no pci_npu_count"):
        run_action(action, {"facts": {}, "architecture": "aarch64"})
    broken = tmp_path / "catalogue.yml"
    broken.write_text("schema: 1\n")
    with pytest.raises(
        AnsibleActionFail, match=r"catalogue of Huawei facts .* is malformed"
    ):
        run_action(
            action,
            {"facts": facts, "architecture": "aarch64", "catalogue_file": str(broken)},
        )


def test_layer_verdict(catalogue, node_facts):
    facts = copy.deepcopy(node_facts("full"))
    record = {
        "schema": 1,
        "layer": "npu_driver",
        "fingerprint": "f1",
        "files": {},
        "facts": {"driver.version": "23.0.7"},
    }
    facts["layers"] = {"npu_driver": {"record": record, "error": None, "files": {}}}
    verdict = plan(catalogue, params(facts, layer="npu_driver", fingerprint="f1"))[
        "layer"
    ]
    assert verdict == {"name": "npu_driver", "converged": True, "reasons": []}
    verdict = plan(catalogue, params(facts, layer="npu_driver", fingerprint="f2"))[
        "layer"
    ]
    assert verdict["converged"] is False
    assert plan(catalogue, params(facts))["layer"] is None
    with pytest.raises(PlanError, match="needs its fingerprint"):
        plan(catalogue, params(facts, layer="npu_driver"))
    with pytest.raises(PlanError, match="layer name"):
        plan(catalogue, params(facts, layer="NPU", fingerprint="x"))


@pytest.mark.parametrize(
    "ids, expected",
    [
        (
            {
                "user_uid": 1000,
                "user_gid": 1000,
                "group_gid": 1000,
                "uid_owner": "HwHiAiUser",
                "gid_owner": "HwHiAiUser",
            },
            [],
        ),
        (
            {
                "user_uid": None,
                "user_gid": None,
                "group_gid": None,
                "uid_owner": None,
                "gid_owner": None,
            },
            [],
        ),
        (
            {"user_uid": 1001, "user_gid": 1000, "group_gid": 1000},
            ["HwHiAiUser has uid 1001 (1000 wanted)"],
        ),
        (
            {
                "user_uid": None,
                "group_gid": 1002,
                "uid_owner": "daemon",
                "gid_owner": "video",
            },
            [
                "group HwHiAiUser has gid 1002 (1000 wanted)",
                "uid 1000, wanted for HwHiAiUser, belongs to user daemon",
                "gid 1000, wanted for group HwHiAiUser, belongs to group video",
            ],
        ),
        (
            {"user_uid": "1000", "user_gid": "1001"},
            ["its primary group is gid 1001 (1000 wanted)"],
        ),
    ],
)
def test_one_hwhiaiuser_rule_for_preflight_and_npu_driver(ids, expected):
    assert hwhiaiuser_problems(ids, 1000, "1000") == expected


def test_hwhiaiuser_rule_bad_input():
    with pytest.raises(Exception, match="expects the node's ids as a dict"):
        hwhiaiuser_problems(["1000"], 1000, 1000)
    with pytest.raises(Exception, match="ids must be numbers"):
        hwhiaiuser_problems({"user_uid": "x"}, 1000, 1000)


# --- issue 23: one answer per question -------------------------------------------------------


def test_a_runtime_binary_missing_at_the_same_version_changes_the_layer(
    catalogue, ascend_node
):
    """upgrade.yml reads the plan's `changing`; the ascend_runtime role repairs a runtime whose
    binary is gone. Both now ask runtime_action: the same version without its binary changes
    the layer (before, the plan compared versions only and upgrade.yml skipped the node)."""
    root, sysfs = ascend_node("full")
    facts = ascend_facts.gather(root, sysfs, None)
    assert facts["docker_runtime"]["binary_present"] is True
    Path(root, facts["docker_runtime"]["binary"].lstrip("/")).unlink()
    facts = ascend_facts.gather(root, sysfs, None)
    assert facts["docker_runtime"]["version"] == "7.3.0"
    assert facts["docker_runtime"]["binary_present"] is False
    # As preflight (for upgrade.yml) asks: no engine known yet.
    result = plan(catalogue, params(facts, **INSTALLED))
    assert result["ascend_runtime"]["action"] == "reinstall"
    assert result["changing"] == ["ascend_runtime"]
    assert result["packages"] == ["Ascend-docker-runtime_7.3.0_linux-aarch64.run"]


@pytest.mark.parametrize(
    "change, engine, state, action",
    [
        ({}, "", "present", "none"),
        ({}, "containerd", "present", "none"),
        # Installed for containerd, wanted for Docker: the installer rewrites another file.
        ({}, "docker", "present", "reinstall"),
        ({"version": "7.3.0.RC1"}, "", "present", "upgrade"),
        ({}, "", "absent", "uninstall"),
        (None, "", "absent", "none"),
        (None, "docker", "present", "install"),
    ],
)
def test_the_runtime_action(catalogue, node_facts, change, engine, state, action):
    facts = node_facts("full")
    if change is None:
        facts["docker_runtime"] = None
    else:
        facts["docker_runtime"].update(change)
    result = plan(
        catalogue,
        params(facts, **INSTALLED, runtime_engine=engine, runtime_state=state),
    )
    assert result["ascend_runtime"]["action"] == action
    assert result["ascend_runtime"]["changes"] is (action != "none")
    assert ("ascend_runtime" in result["changing"]) is (action != "none")
    assert bool(result["packages"]) is (action in ("install", "upgrade", "reinstall"))


def test_runtime_versions_compare_without_case(catalogue, node_facts):
    facts = node_facts("full")
    facts["docker_runtime"]["version"] = "7.3.0.rc1"
    wanted = params(facts, **INSTALLED)
    wanted.update(runtime_version="7.3.0.RC1", runtime_engine="containerd")
    result = plan(catalogue, wanted)
    assert result["ascend_runtime"]["action"] == "none"


def _role_defaults(role):
    return yaml.safe_load(
        (
            CATALOGUE_FILE.parents[1] / "roles" / role / "defaults" / "main.yml"
        ).read_text()
    )


def test_the_plan_inputs_default_as_the_roles_do():
    """A variable that is not set has its role's default: preflight (another play) and the
    roles feed the plan the same values."""
    defaults = {}
    for role in ("npu_driver", "cann_toolkit", "ascend_runtime"):
        defaults.update(_role_defaults(role))
    for option, variable, default in INPUT_VARIABLES:
        assert defaults[variable] == default, variable
        assert option in action.PLAN_SPEC
    assert plan_inputs(lambda name: None) == {
        option: default for option, variable, default in INPUT_VARIABLES
    }


def test_preflight_plans_the_hot_patch_file_npu_driver_installs(catalogue, node_facts):
    """npu_driver_file set (a hot patch): preflight's plan (no npu_driver role in its play) and
    npu_driver's (its defaults defined) name the same driver file, and preflight verifies it."""
    facts = node_facts("empty")
    facts.update({"pci_npu_count": 4, "npu_family": "910B"})
    hot_patch = "Ascend-hdk-910b-npu-driver_25.5.0.1_linux-aarch64.hotpatch.run"
    inventory = {
        "npu_driver_file": hot_patch,
        "cann_toolkit_keep_old_versions": "false",
    }
    role_vars = {variable: default for _o, variable, default in INPUT_VARIABLES}
    role_vars.update(inventory)
    preflight = plan(catalogue, dict(params(facts), inputs=plan_inputs(inventory.get)))
    npu_driver = plan(catalogue, dict(params(facts), inputs=plan_inputs(role_vars.get)))
    assert [s["file"] for s in preflight["npu_driver"]["steps"]] == [
        hot_patch,
        "Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run",
    ]
    assert preflight["npu_driver"] == npu_driver["npu_driver"]
    assert hot_patch in preflight["packages"]


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"driver_version": "1"}, "inputs has no option driver_version"),
        ({"cann_packages": "toolkit"}, "cann_toolkit_packages .* must be list"),
        ({"cann_keep_old_versions": "maybe"}, "must be bool"),
    ],
)
def test_bad_inputs(catalogue, node_facts, inputs, message):
    with pytest.raises(PlanError, match=message):
        plan(catalogue, dict(params(node_facts("full")), inputs=inputs))
