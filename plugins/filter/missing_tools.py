# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The missing_tools filter: an installer's tool lines -> the ones the node lacks."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    missing_tool_lines,
)

DOCUMENTATION = r"""
name: missing_tools
short_description: The tools of an installer that a node does not have
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Compares the tools an installer requires (C(required_tools) of
    P(cubestudio.ascend.ascend_plan#module), where C(a,b) means either, as in Huawei's
    C(check_tools.conf)) with the programs P(cubestudio.ascend.ascend_host_facts#module) found on
    the node, and returns the lines none of whose programs was found.
options:
  _input:
    description: The tool lines, for example C([which, "update-rc.d,chkconfig", lspci]).
    type: list
    elements: str
    required: true
  programs:
    description: Program name to its path or a false value (C(ansible_facts.ascend_host.programs)).
    type: dict
    required: true
seealso:
  - module: cubestudio.ascend.ascend_plan
  - module: cubestudio.ascend.ascend_host_facts
"""

EXAMPLES = r"""
- name: Refuse a node without the driver installer's tools
  vars:
    missing: "{{ plan['npu_driver']['required_tools'] | cubestudio.ascend.missing_tools(ansible_facts['ascend_host']['programs']) }}"
  ansible.builtin.assert:
    that: missing | length == 0
    fail_msg: "The list of missing tools: {{ missing | join(',') }},"
"""

RETURN = r"""
_value:
  description: The tool lines without any program on the node, in their order.
  type: list
  elements: str
"""


def missing_tools(lines, programs):
    """The lines of ``lines`` none of whose tools ``programs`` has; AnsibleFilterError on bad input."""
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise AnsibleFilterError(
            "missing_tools expects a list of tool names, got %r" % (lines,)
        )
    if not isinstance(programs, dict):
        raise AnsibleFilterError(
            "missing_tools expects the programs of ascend_host_facts (a dict), got %s"
            % type(programs).__name__
        )
    return missing_tool_lines(lines, programs)


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"missing_tools": missing_tools}
