# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_check_output filter: the two engines' check runs -> what the container printed."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    check_output,
)

DOCUMENTATION = r"""
name: runtime_check_output
short_description: What the Ascend runtime's check container printed, on the engine that ran it
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The standard output of the check container's run on C(engine); the other engine's run is skipped.
    Parse it with P(cubestudio.ascend.npu_smi_info#filter).
options:
  _input:
    description: C(engine) (C(docker) or C(containerd)), C(docker) and C(containerd) the registered results of the two runs.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Read what the container saw
  vars:
    __inputs:
      engine: containerd
      docker: "{{ check_docker }}"
      containerd: "{{ check_containerd }}"
  ansible.builtin.set_fact:
    seen: "{{ __inputs | cubestudio.ascend.runtime_check_output | cubestudio.ascend.npu_smi_info }}"
"""

RETURN = r"""
_value:
  description: The text the container printed.
  type: str
"""


def runtime_check_output(inputs):
    """The text; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "engine" not in inputs:
        raise AnsibleFilterError(
            "runtime_check_output expects a dict with engine, docker and containerd"
        )
    try:
        return check_output(inputs["engine"], inputs)
    except ValueError as error:
        raise AnsibleFilterError("runtime_check_output: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_check_output": runtime_check_output}
