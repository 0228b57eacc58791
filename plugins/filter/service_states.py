# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The service_states filter: ansible_facts -> the running and the known services."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    service_states as _service_states,
)

DOCUMENTATION = r"""
name: service_states
short_description: The running and the known services of a host, from service_facts
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The names of the services that C(ansible.builtin.service_facts) found running, and of all it found, as it
    names them (C(docker.service)). A host where it found none (no C(services) fact) has none of either.
options:
  _input:
    description: The host's C(ansible_facts), after C(ansible.builtin.service_facts).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Read the services of the node
  ansible.builtin.service_facts:

- name: Keep the running services
  ansible.builtin.set_fact:
    services: "{{ ansible_facts | cubestudio.ascend.service_states }}"
"""

RETURN = r"""
_value:
  description: C(running) and C(installed), lists of service names.
  type: dict
"""


def service_states(facts):
    """``{running, installed}``; AnsibleFilterError on bad input."""
    if not isinstance(facts, dict):
        raise AnsibleFilterError("service_states expects the host's ansible_facts")
    services = facts.get("services")
    if services is not None and not isinstance(services, dict):
        raise AnsibleFilterError(
            "service_states: ansible_facts['services'] is not the dict of service_facts"
        )
    return _service_states(services)


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"service_states": service_states}
