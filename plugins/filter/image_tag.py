# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The image_tag filter: the field guide's image tag from a node's versions or a release set."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._image_versions import (
    render_tag,
)

DOCUMENTATION = r"""
name: image_tag
short_description: The image tag that carries a node's CANN and driver versions
version_added: 0.2.0
author: cubestudio maintainers (@cubestudio)
description:
  - Renders the tag the field guide advises for a container image built for Ascend nodes,
    C(cann<CANN version>-drv<driver version>-<suffix>) in lower case (its example
    C(cann7.0.0-drv23.0.rc2-ascend)), so that the versions an image was built for are visible
    at a glance and the doctor (C(cubestudio.ascend.doctor)) can hold them against the node it
    runs on.
  - The input is a node's versions or a release set. The versions are read from the keys
    C(cann) and C(driver), each a version string or a fact with a C(version) key, so
    C(ansible_facts['ascend']) (of P(cubestudio.ascend.ascend_facts#module)), the C(versions) of a
    node record (P(cubestudio.ascend.ascend_node_record#module)) and the set of
    C(lookup('cubestudio.ascend.ascend_release', '25.5.0')) all work.
  - The same tag is read back by the collection's one parser of image versions, which also reads
    Huawei's own tags (C(8.0.0-910b-ubuntu22.04-py3.10)) and the label
    C(cubestudio.ascend/cann-version); the collection's C(docs/container-images.md) describes the
    three and the environment a container needs.
options:
  _input:
    description: The versions; a mapping with C(cann) (required) and C(driver) (optional, left out of the tag when null or empty).
    type: dict
    required: true
  suffix:
    description: The last field of the tag; empty leaves it out.
    type: str
    default: ascend
  driver:
    description: Put the driver into the tag; V(false) renders only C(cann<version>-<suffix>) (an image meant for several driver releases).
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Tag for the node's installed versions (the demo node - driver 25.5.0, CANN 8.5.0 - gives cann8.5.0-drv25.5.0-ascend)
  ansible.builtin.debug:
    msg: "registry.example.com/train/llm:{{ ansible_facts['ascend'] | cubestudio.ascend.image_tag }}"

- name: Tag for a release set, before any node runs it
  ansible.builtin.set_fact:
    image_tag: "{{ lookup('cubestudio.ascend.ascend_release', '24.1.0') | cubestudio.ascend.image_tag }}"
    # cann8.0.0-drv24.1.0-ascend

- name: Tag without the driver, another suffix
  ansible.builtin.debug:
    msg: "{{ {'cann': '8.5.0'} | cubestudio.ascend.image_tag(suffix='torch2.8') }}"
    # cann8.5.0-torch2.8
"""

RETURN = r"""
_value:
  description: The tag, C(cann<cann>-drv<driver>-<suffix>) in lower case.
  type: str
  sample: cann8.5.0-drv25.5.0-ascend
"""


def image_tag(versions, suffix="ascend", driver=True):
    if not isinstance(versions, dict):
        raise AnsibleFilterError(
            "image_tag expects a mapping with cann (and driver), such as ansible_facts['ascend'] "
            "or lookup('cubestudio.ascend.ascend_release', ...), not %s"
            % type(versions).__name__
        )
    wanted = versions.get("driver") if driver else None
    if isinstance(wanted, str) and not wanted.strip():
        wanted = None
    if isinstance(wanted, dict) and not wanted.get("version"):
        wanted = None
    try:
        return render_tag(
            versions.get("cann"), wanted, "" if suffix is None else str(suffix)
        )
    except ValueError as error:
        raise AnsibleFilterError("image_tag: %s" % error) from None


class FilterModule:
    def filters(self):
        return {"image_tag": image_tag}
