# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cri_plugin_state filter: the lines of ``ctr plugins ls id==cri`` -> ok, error or ''."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    cri_plugin_state as _cri_plugin_state,
)

DOCUMENTATION = r"""
name: cri_plugin_state
short_description: The status of containerd's CRI plugin, from C(ctr plugins ls id==cri)
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The STATUS column of the CRI plugin's row (the header line is skipped) - C(ok), C(error), or '' while
    containerd does not list it yet.
options:
  _input:
    description: The lines C(ctr plugins ls id==cri) printed (C(stdout_lines)).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Wait until containerd and its CRI plugin answer
  ansible.builtin.command:
    argv: [ctr, plugins, ls, "id==cri"]
  register: ready
  until: ready.rc == 0 and (ready.stdout_lines | cubestudio.ascend.cri_plugin_state) != ''
  retries: 30
  delay: 2
  changed_when: false
"""

RETURN = r"""
_value:
  description: C(ok), C(error) or ''.
  type: str
"""


def cri_plugin_state(lines):
    """``ok``, ``error`` or ''; AnsibleFilterError on bad input."""
    if lines is None:
        return ""
    if isinstance(lines, str) or not isinstance(lines, (list, tuple)):
        raise AnsibleFilterError(
            "cri_plugin_state expects the stdout_lines of ctr plugins ls id==cri"
        )
    return _cri_plugin_state([str(line) for line in lines])


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"cri_plugin_state": cri_plugin_state}
