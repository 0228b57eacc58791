# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The exporter_uninstall_steps filter: the nodes still selecting the exporter -> what goes."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    exporter_uninstall_steps as _steps,
)

DOCUMENTATION = r"""
name: exporter_uninstall_steps
short_description: What the exporter's uninstall removes on a node, and whether its objects go
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The exporter is one DaemonSet for the cluster. Its objects go only when no node outside the play still carries
    its node selector; a node of the play that still carries it keeps the exporter (its labels go in the device
    plugin's uninstall); a node it leaves gets its pod waited for and the image and tarball removed.
  - The decision of the exporter role's uninstall, in Python (C(plugins/module_utils/_k8s/_mindcluster.py)).
options:
  _input:
    description:
      - C(selected) the Node objects that carry the DaemonSet's node selector (k8s_info's C(resources)),
        C(hostvars) and C(play_hosts) (each play host's node is its C(__exporter_node) read), C(node) this host's
        node name, C(image_archive) (exporter_image_archive), C(check_mode).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Decide what the exporter's uninstall removes
  vars:
    __inputs:
      selected: "{{ __exporter_still_selected['resources'] }}"
      hostvars: "{{ hostvars }}"
      play_hosts: "{{ ansible_play_hosts }}"
      node: node-1
      image_archive: ""
      check_mode: "{{ ansible_check_mode }}"
  ansible.builtin.set_fact:
    steps: "{{ __inputs | cubestudio.ascend.exporter_uninstall_steps }}"
"""

RETURN = r"""
_value:
  description: >-
    C(remove_objects) (the exporter's objects go), C(stays) (the exporter stays on this node), C(wait_pod) and
    C(remove_image) (on a node the exporter leaves), each a boolean.
  type: dict
"""


def _name(node) -> str:
    try:
        return node["metadata"]["name"]
    except (KeyError, TypeError):
        raise AnsibleFilterError(
            "exporter_uninstall_steps: a Node without metadata.name: %r" % (node,)
        ) from None


def _play_nodes(hostvars, play_hosts) -> list:
    names = []
    for host in play_hosts or []:
        try:
            found = hostvars[host]["__exporter_node"]["resources"]
        except (KeyError, TypeError):
            continue
        names += [_name(node) for node in found or []][:1]
    return names


def exporter_uninstall_steps(inputs):
    """The uninstall's booleans; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "selected" not in inputs or "node" not in inputs:
        raise AnsibleFilterError(
            "exporter_uninstall_steps expects a dict with selected, hostvars, play_hosts, node, image_archive "
            "and check_mode"
        )
    return _steps(
        [_name(node) for node in inputs.get("selected") or []],
        _play_nodes(inputs.get("hostvars") or {}, inputs.get("play_hosts")),
        str(inputs["node"]),
        str(inputs.get("image_archive") or ""),
        boolean(inputs.get("check_mode", False), strict=False),
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"exporter_uninstall_steps": exporter_uninstall_steps}
