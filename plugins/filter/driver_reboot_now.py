# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The driver_reboot_now filter: npu_driver_reboot and the run -> whether the role reboots now, and why."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    reboot_now,
)

DOCUMENTATION = r"""
name: driver_reboot_now
short_description: Whether the npu_driver role reboots the host after both packages, and why
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - C(npu_driver_reboot=if_needed) reboots when a reboot is required (a marker of an earlier run or a reason of this
    run), C(always) also when packages were installed, C(never) does not.
  - The decision of the npu_driver role's reboot step, in Python (C(plugins/module_utils/_installers/_driver_steps.py)).
options:
  _input:
    description:
      - C(reboot) the value of npu_driver_reboot, C(required) npu_driver_reboot_required, C(steps) the packages
        this run installed, C(reasons) this run's reasons for a reboot.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Reboot the host now that both packages are installed
  vars:
    __inputs:
      reboot: "{{ npu_driver_reboot }}"
      required: "{{ npu_driver_reboot_required }}"
      steps: "{{ steps }}"
      reasons: "{{ reasons }}"
    __reboot: "{{ __inputs | cubestudio.ascend.driver_reboot_now }}"
  ansible.builtin.debug:
    msg: "Rebooting: {{ __reboot['why'] }}"
  when: __reboot['now']
"""

RETURN = r"""
_value:
  description: C(now) (reboot now) and C(why) (this run's reasons, else the pending reboot, else the installed packages).
  type: dict
"""


def driver_reboot_now(inputs):
    """``{now, why}``; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "reboot" not in inputs:
        raise AnsibleFilterError(
            "driver_reboot_now expects a dict with reboot, required, steps and reasons"
        )
    if inputs["reboot"] not in ("never", "if_needed", "always"):
        raise AnsibleFilterError(
            "driver_reboot_now: reboot must be never, if_needed or always, got %r"
            % (inputs["reboot"],)
        )
    return reboot_now(
        inputs["reboot"],
        boolean(inputs.get("required", False), strict=False),
        inputs.get("steps") or [],
        inputs.get("reasons") or [],
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"driver_reboot_now": driver_reboot_now}
