# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The containerd_restart filter: the restart and the wait -> whether containerd came back, and
how its previous config.toml goes back when not."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    containerd_restart as _containerd_restart,
)

DOCUMENTATION = r"""
name: containerd_restart
short_description: Whether containerd came back after a restart for a changed config.toml
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - containerd came back when it was restarted, answered and its CRI plugin is C(ok) (P(cubestudio.ascend.cri_plugin_state#filter));
    in check mode (nothing restarted) always. When it did not, the previous file goes back - C(copy) from the
    backup the edit kept, or C(remove) when there was no file before.
  - The decision of the ascend_runtime role's containerd handlers, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(check_mode), C(restart) the registered restart, C(ready) the registered wait (C(ctr plugins ls id==cri)),
        C(config) the registered result of M(cubestudio.ascend.containerd_runtime_config).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Note whether containerd came back
  vars:
    __inputs:
      check_mode: "{{ ansible_check_mode }}"
      restart: "{{ containerd_restart }}"
      ready: "{{ containerd_ready }}"
      config: "{{ containerd_config_result }}"
  ansible.builtin.set_fact:
    containerd: "{{ __inputs | cubestudio.ascend.containerd_restart }}"
"""

RETURN = r"""
_value:
  description: C(up) (bool) and C(restore) (C(copy), C(remove), or '' when containerd came back).
  type: dict
"""


def containerd_restart(inputs):
    """``{up, restore}``; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("restart"), dict):
        raise AnsibleFilterError(
            "containerd_restart expects a dict with check_mode, restart, ready and config"
        )
    ready = inputs.get("ready")
    config = inputs.get("config")
    return _containerd_restart(
        boolean(inputs.get("check_mode", False), strict=False),
        inputs["restart"],
        ready if isinstance(ready, dict) else {},
        config if isinstance(config, dict) else {},
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"containerd_restart": containerd_restart}
