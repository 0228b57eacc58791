# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan_inputs lookup: the package options of the node plan, from the public role variables."""

from __future__ import annotations

DOCUMENTATION = r"""
name: plan_inputs
short_description: The package options of the node plan, from the public role variables
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Returns the O(cubestudio.ascend.ascend_plan#module:inputs) of the node plan - whether the firmware
    is flashed, the chip and architecture in the package names, the package file names
    (C(npu_driver_file), C(npu_driver_firmware_file), C(cann_toolkit_files),
    C(ascend_runtime_package_file)), the CANN kinds and whether old CANN versions are kept - from
    the public variables of npu_driver, cann_toolkit and ascend_runtime.
  - A variable that is not set (its role is not in the play, as for preflight) has the default of
    its role. preflight and every layer role pass this one dict to the plan, so that preflight
    verifies and reports the files the roles install (a hot-patch C(npu_driver_file) too).
options: {}
notes:
  - The variables and their defaults are C(INPUT_VARIABLES) in C(plugins/module_utils/_node/_node_plan.py);
    a unit test holds the defaults equal to the roles' C(defaults/main.yml).
"""

EXAMPLES = r"""
- name: Plan the node with the same package options as every layer role
  cubestudio.ascend.ascend_plan:
    facts: "{{ ansible_facts['ascend'] }}"
    architecture: "{{ ansible_facts['architecture'] }}"
    driver_version: "{{ npu_driver_version }}"
    inputs: "{{ lookup('cubestudio.ascend.plan_inputs') }}"
"""

RETURN = r"""
_raw:
  description: One element, the dict of plan options (C(manage_firmware), C(chip), C(arch), C(driver_file), ...).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    PlanError,
    plan_inputs,
)


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleLookupError("plan_inputs takes no terms, got %r" % (terms,))
        variables = variables or {}

        def value_of(name):
            if name not in variables:
                return None
            return self._templar.template(variables[name])

        try:
            return [plan_inputs(value_of)]
        except PlanError as error:
            raise AnsibleLookupError("plan_inputs: %s" % error) from None
