# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cann_driver filter: the installed driver and the run -> the driver CANN will meet."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._cann_layout import (
    driver_to_meet,
)

DOCUMENTATION = r"""
name: cann_driver
short_description: The driver a CANN about to be installed will run with
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The installed driver, or in check mode the one npu_driver is about to install (the npu_driver play of the
    same run changed nothing), with a word on where the version comes from.
options:
  _input:
    description:
      - C(driver) the C(driver) fact of M(cubestudio.ascend.ascend_facts) (may be null), C(check_mode),
        C(predicted) the driver version npu_driver installs (empty when unknown), C(compat_check)
        (cann_toolkit_compat_check, default true) and C(steps) (the plan's CANN steps, default none).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Work out the driver the CANN will run with
  vars:
    __inputs:
      driver: "{{ ansible_facts['ascend']['driver'] }}"
      check_mode: "{{ ansible_check_mode }}"
      predicted: "25.5.0"
      compat_check: true
      steps: [install]
  ansible.builtin.set_fact:
    driver: "{{ __inputs | cubestudio.ascend.cann_driver }}"
"""

RETURN = r"""
_value:
  description: >-
    C(version) (empty when no driver is known), C(source), and C(check) (whether the CANN is checked against that
    driver: the check is on, the plan installs something, and a driver is known).
  type: dict
"""


def cann_driver(inputs):
    """{version, source, check}; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("driver") or {}, dict):
        raise AnsibleFilterError(
            "cann_driver expects a dict with driver, check_mode and predicted"
        )
    return driver_to_meet(
        inputs.get("driver"),
        boolean(inputs.get("check_mode", False), strict=False),
        inputs.get("predicted"),
        boolean(inputs.get("compat_check", True), strict=False),
        inputs.get("steps") or [],
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"cann_driver": cann_driver}
