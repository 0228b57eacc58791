# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_verify filter: the run so far -> whether the check container and the default check run."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    verify_decision,
)

DOCUMENTATION = r"""
name: runtime_verify
short_description: Whether the Ascend runtime's check container can run, and whether the kubelet's default is checked
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The check container proves nothing in check mode, on an engine whose file changed but that was not restarted,
    or without the NPU driver's C(npu-smi); the reason is returned, '' when it can run.
  - The default runtime of the kubelet's engine is checked when there is a kubelet, the runtime is to be the
    default, not in check mode and not on an engine that still runs its previous file.
  - The decision of the ascend_runtime role's verify step, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(check_mode), C(engine) the install scene, C(changed) the engines whose file changed
        (P(cubestudio.ascend.runtime_engines_changed#filter)), C(restart_allowed), C(npu_smi) the C(npu_smi) part
        of the C(ascend) fact of M(cubestudio.ascend.ascend_facts), C(kubelet) as M(cubestudio.ascend.container_engine_info)
        returns it (null without a kubelet), C(set_default) (booleans as text too).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Decide whether the check container can run
  vars:
    __inputs:
      check_mode: "{{ ansible_check_mode }}"
      engine: containerd
      changed: []
      restart_allowed: true
      npu_smi: "{{ ansible_facts['ascend']['npu_smi'] }}"
      kubelet: null
      set_default: true
  ansible.builtin.set_fact:
    verify: "{{ __inputs | cubestudio.ascend.runtime_verify }}"
"""

RETURN = r"""
_value:
  description: C(skip) (the reason, '' when the container can run) and C(check_default) (bool).
  type: dict
"""


def runtime_verify(inputs):
    """``{skip, check_default}``; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("npu_smi"), dict):
        raise AnsibleFilterError(
            "runtime_verify expects a dict with check_mode, engine, changed, restart_allowed, npu_smi, kubelet and set_default"
        )
    return verify_decision(
        boolean(inputs.get("check_mode", False), strict=False),
        str(inputs.get("engine") or ""),
        list(inputs.get("changed") or []),
        boolean(inputs.get("restart_allowed", True), strict=False),
        boolean(inputs["npu_smi"].get("present", False), strict=False),
        inputs.get("kubelet"),
        boolean(inputs.get("set_default", False), strict=False),
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_verify": runtime_verify}
