# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hwhiaiuser_problems filter: a node's HwHiAiUser ids -> what is wrong with them."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    account_problems,
)

DOCUMENTATION = r"""
name: hwhiaiuser_problems
short_description: What is wrong with the driver's run user HwHiAiUser on a node
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The driver runs as C(HwHiAiUser), with the same uid and gid on every host and in every
    container image. Given what a node has and the wanted ids, returns one sentence per problem -
    the user or its group with other ids, the wanted uid or gid held by another account.
  - The one rule that the preflight role (for every node of the play) and the npu_driver role
    (before it creates the user) apply.
options:
  _input:
    description:
      - The node's ids - C(user_uid) and C(user_gid) of C(HwHiAiUser) (null when it does not
        exist), C(group_gid) of the group C(HwHiAiUser) (null when absent), C(uid_owner) and
        C(gid_owner), the user and group holding the wanted ids (null when free).
    type: dict
    required: true
  uid:
    description: The wanted uid.
    type: int
    required: true
  gid:
    description: The wanted gid.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: Refuse ids that belong to someone else
  vars:
    problems: "{{ ids | cubestudio.ascend.hwhiaiuser_problems(1000, 1000) }}"
  ansible.builtin.assert:
    that: problems | length == 0
    fail_msg: "{{ problems | join('; ') }}"
"""

RETURN = r"""
_value:
  description: One sentence per problem, empty when the node is right.
  type: list
  elements: str
"""


def hwhiaiuser_problems(ids, uid, gid):
    if not isinstance(ids, dict):
        raise AnsibleFilterError(
            "hwhiaiuser_problems expects the node's ids as a dict, got %s"
            % type(ids).__name__
        )
    try:
        return account_problems(ids, uid, gid)
    except (TypeError, ValueError) as error:
        raise AnsibleFilterError(
            "hwhiaiuser_problems: ids must be numbers: %s" % error
        ) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"hwhiaiuser_problems": hwhiaiuser_problems}
