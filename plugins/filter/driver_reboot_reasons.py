# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The driver_reboot_reasons filter: a package just run -> the run's reboot reasons."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    reboot_reasons,
)

DOCUMENTATION = r"""
name: driver_reboot_reasons
short_description: The reasons for a reboot after one driver or firmware package
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Adds the reason of a package to the run's list when its installer asked for a reboot, or, in check
    mode where nothing runs, when it flashes firmware or replaces a driver.
options:
  _input:
    description:
      - C(reasons) the list so far, C(step) the plan step (C(component), C(action), C(version), C(file),
        C(previous)), C(outcome) of M(cubestudio.ascend.ascend_package), C(check_mode).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Remember why the host needs a reboot
  vars:
    __inputs:
      reasons: "{{ reasons }}"
      step: "{{ step }}"
      outcome: "{{ result['outcome'] }}"
      check_mode: "{{ ansible_check_mode }}"
  ansible.builtin.set_fact:
    reasons: "{{ __inputs | cubestudio.ascend.driver_reboot_reasons }}"
"""

RETURN = r"""
_value:
  description: The reasons, the package's appended when it needs a reboot.
  type: list
  elements: str
"""


def driver_reboot_reasons(inputs):
    """The reasons; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("step"), dict):
        raise AnsibleFilterError(
            "driver_reboot_reasons expects a dict with reasons, step, outcome and check_mode"
        )
    try:
        return reboot_reasons(
            inputs.get("reasons") or [],
            inputs["step"],
            inputs.get("outcome"),
            boolean(inputs.get("check_mode", False), strict=False),
        )
    except KeyError as error:
        raise AnsibleFilterError(
            "driver_reboot_reasons: the step has no %s" % error
        ) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"driver_reboot_reasons": driver_reboot_reasons}
