# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The driver_reboot_required filter: the marker and the reasons -> npu_driver_reboot_required."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    reboot_required,
)

DOCUMENTATION = r"""
name: driver_reboot_required
short_description: Whether a node must be rebooted for its driver or firmware
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Before the reboot decision, a marker left by an earlier run or a reason of this run; after it
    (C(after)), the marker still there, or in check mode a reason that C(npu_driver_reboot=never) leaves.
options:
  _input:
    description:
      - C(marker) whether the reboot marker exists, C(reasons) the run's reasons, C(after), C(check_mode),
        C(reboot) the value of npu_driver_reboot.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Set npu_driver_reboot_required
  vars:
    __inputs:
      marker: "{{ marker_stat['stat']['exists'] }}"
      reasons: "{{ reasons }}"
  ansible.builtin.set_fact:
    npu_driver_reboot_required: "{{ __inputs | cubestudio.ascend.driver_reboot_required }}"
"""

RETURN = r"""
_value:
  description: True when the node must be rebooted.
  type: bool
"""


def driver_reboot_required(inputs):
    """A bool; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "marker" not in inputs:
        raise AnsibleFilterError(
            "driver_reboot_required expects a dict with marker and reasons"
        )
    return reboot_required(
        boolean(inputs["marker"], strict=False),
        inputs.get("reasons") or [],
        after=boolean(inputs.get("after", False), strict=False),
        check_mode=boolean(inputs.get("check_mode", False), strict=False),
        reboot=inputs.get("reboot", "never"),
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"driver_reboot_required": driver_reboot_required}
