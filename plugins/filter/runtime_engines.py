# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_engines filter: container_engine_info's answer -> the engines the role wires."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    engine_choice,
)

DOCUMENTATION = r"""
name: runtime_engines
short_description: The container engines the Ascend runtime goes into, and the refusal when one is missing
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - From the answer of M(cubestudio.ascend.container_engine_info) and the host's services, the engines to wire,
    the ones without a service on the host, the refusal sentence when there is no engine or one is missing,
    whether kubelet runs and whether it is restarted after containerd.
  - The decision of the ascend_runtime role's preflight, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(info) the result of M(cubestudio.ascend.container_engine_info), C(facts) the host's C(ansible_facts)
        (after C(ansible.builtin.service_facts)), C(host) the host's name for the refusal, C(restart_allowed) and
        C(restart_kubelet) the role's switches (booleans, as text too).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Keep the engines
  vars:
    __inputs:
      info: "{{ engine_info }}"
      facts: "{{ ansible_facts }}"
      host: "{{ inventory_hostname }}"
      restart_allowed: true
      restart_kubelet: true
  ansible.builtin.set_fact:
    engines: "{{ __inputs | cubestudio.ascend.runtime_engines }}"
"""

RETURN = r"""
_value:
  description:
    - C(engines) (the kubelet's first), C(engine) (the package's install scene), C(kubelet) (as
      container_engine_info returns it), C(missing), C(problem) ('' when none), C(kubelet_running),
      C(restart_kubelet).
  type: dict
"""


def runtime_engines(inputs):
    """The engines as the role keeps them; AnsibleFilterError on bad input."""
    if (
        not isinstance(inputs, dict)
        or not isinstance(inputs.get("info"), dict)
        or not isinstance(inputs.get("facts"), dict)
    ):
        raise AnsibleFilterError("runtime_engines expects a dict with info and facts")
    services = inputs["facts"].get("services")
    if services is not None and not isinstance(services, dict):
        raise AnsibleFilterError(
            "runtime_engines: ansible_facts['services'] is not the dict of service_facts"
        )
    return engine_choice(
        inputs["info"],
        services,
        str(inputs.get("host") or ""),
        restart_allowed=boolean(inputs.get("restart_allowed", True), strict=False),
        restart_kubelet=boolean(inputs.get("restart_kubelet", True), strict=False),
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_engines": runtime_engines}
