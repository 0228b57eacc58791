# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan_inputs lookup: the plan's package options from the public role variables, templated,
each with its role's default when it is not set (preflight's play has no layer role)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import lookup_loader
from ansible.template import Templar, trust_as_template


def inputs(variables, terms=()):
    loader = DataLoader()
    plugin = lookup_loader.get(
        "cubestudio.ascend.plan_inputs",
        loader=loader,
        templar=Templar(loader=loader, variables=variables),
    )
    return plugin.run(list(terms), variables=variables)[0]


def test_unset_variables_have_the_roles_defaults():
    assert inputs({}) == {
        "manage_firmware": True,
        "chip": "",
        "arch": "",
        "driver_file": "",
        "firmware_file": "",
        "cann_packages": ["toolkit"],
        "cann_files": {},
        "cann_arch": "",
        "cann_keep_old_versions": True,
        "runtime_file": "",
    }


def test_set_variables_are_templated_and_typed():
    found = inputs(
        {
            "hot_patch": "Ascend-hdk-910b-npu-driver_25.5.0.1_linux-aarch64.hotpatch.run",
            # A template from the inventory (trusted, as Ansible marks variables files).
            "npu_driver_file": trust_as_template("{{ hot_patch }}"),
            "npu_driver_manage_firmware": "false",
            "cann_toolkit_packages": ["toolkit", "nnae"],
            "unrelated": 1,
        }
    )
    assert (
        found["driver_file"]
        == "Ascend-hdk-910b-npu-driver_25.5.0.1_linux-aarch64.hotpatch.run"
    )
    assert found["manage_firmware"] is False
    assert found["cann_packages"] == ["toolkit", "nnae"]
    assert "unrelated" not in found


def test_bad_values_and_terms_fail_clearly():
    with pytest.raises(AnsibleLookupError, match=r"cann_toolkit_files .* must be dict"):
        inputs({"cann_toolkit_files": ["a.run"]})
    with pytest.raises(AnsibleLookupError, match="takes no terms"):
        inputs({}, terms=["npu_driver"])
