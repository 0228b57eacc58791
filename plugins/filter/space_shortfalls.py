# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The space_shortfalls filter: what a run needs on disk against the node's free space."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._space import (
    shortfalls,
)

DOCUMENTATION = r"""
name: space_shortfalls
short_description: The file systems of a node that lack the space a run needs
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Adds up what each path needs (the packages copied to the cache, the installed size under the
    install path) per file system - paths on one file system share its free space - and returns
    the file systems whose free space is smaller, each with a message naming the mount, what
    needs the space and how much is free.
  - A path whose free space cannot be read counts as lacking space.
options:
  _input:
    description: What each path needs - a list of C({path, bytes, what}).
    type: list
    elements: dict
    required: true
  space:
    description: The C(space) of the C(ascend_host) fact of M(cubestudio.ascend.ascend_host_facts), read for every path of the input.
    type: dict
    required: true
seealso:
  - module: cubestudio.ascend.ascend_host_facts
"""

EXAMPLES = r"""
- name: Read the free space of the cache and the install path
  cubestudio.ascend.ascend_host_facts:
    paths: [/var/cache/ascend/packages, /usr/local/Ascend]

- name: Refuse a node without the space
  vars:
    short: >-
      {{ [{'path': '/var/cache/ascend/packages', 'bytes': 500000000, 'what': 'the packages'},
          {'path': '/usr/local/Ascend', 'bytes': 1500000000, 'what': 'the driver'}]
         | cubestudio.ascend.space_shortfalls(ansible_facts['ascend_host']['space']) }}
  ansible.builtin.assert:
    that: short | length == 0
    fail_msg: "{{ short | map(attribute='message') | join('; ') }}"
"""

RETURN = r"""
_value:
  description:
    - One entry per file system that lacks space, in the order of the input; empty when
      everything fits.
    - C(mount), C(paths), C(need_bytes), C(free_bytes) (null when unreadable) and C(message).
  type: list
  elements: dict
"""


def space_shortfalls(needs, space):
    """The file systems that lack space; AnsibleFilterError on bad input."""
    if not isinstance(needs, list) or not all(isinstance(n, dict) for n in needs):
        raise AnsibleFilterError(
            "space_shortfalls expects a list of {path, bytes, what}"
        )
    if not isinstance(space, dict):
        raise AnsibleFilterError(
            "space_shortfalls expects the space of ascend_host_facts"
        )
    try:
        return shortfalls(
            [dict(n, bytes=int(n.get("bytes", -1))) for n in needs], space
        )
    except (KeyError, TypeError, ValueError) as error:
        raise AnsibleFilterError(f"space_shortfalls: {error}") from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"space_shortfalls": space_shortfalls}
