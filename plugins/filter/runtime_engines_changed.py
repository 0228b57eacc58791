# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_engines_changed filter: the configure results -> the engines whose file changed."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    changed_engines,
)

DOCUMENTATION = r"""
name: runtime_engines_changed
short_description: The container engines whose configuration file the Ascend runtime changed
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The engines (C(docker) first) whose registered result of M(cubestudio.ascend.docker_runtime_config) or
    M(cubestudio.ascend.containerd_runtime_config) is changed; a skipped or missing result changed nothing.
options:
  _input:
    description: C(docker) and C(containerd), the registered results of the two configure tasks.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Keep the engines whose file changed
  vars:
    __inputs:
      docker: "{{ docker_config_result }}"
      containerd: "{{ containerd_config_result }}"
  ansible.builtin.set_fact:
    changed_engines: "{{ __inputs | cubestudio.ascend.runtime_engines_changed }}"
"""

RETURN = r"""
_value:
  description: The names of the engines whose file changed.
  type: list
  elements: str
"""


def runtime_engines_changed(inputs):
    """The engines whose file changed; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict):
        raise AnsibleFilterError(
            "runtime_engines_changed expects a dict with docker and containerd"
        )
    return changed_engines(inputs)


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_engines_changed": runtime_engines_changed}
