# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_image filter: the engine's image lookup -> present, or why the check is skipped."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    image_state,
)

DOCUMENTATION = r"""
name: runtime_image
short_description: Whether the image of the Ascend runtime's check container is on the node
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Docker has the image when C(docker image inspect) exits 0, containerd when C(ctr images ls --quiet) prints it.
    Without the image and without leave to pull it, the reason the check is skipped.
  - The decision of the ascend_runtime role's verify step, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(engine) (C(docker) or C(containerd)), C(docker) and C(containerd) the registered results of the two
        lookups (the other engine's is skipped), C(image), C(namespace) the containerd namespace, C(pull).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Note whether the image is on the node
  vars:
    __inputs:
      engine: docker
      docker: "{{ image_docker }}"
      containerd: "{{ image_containerd }}"
      image: ubuntu:22.04
      namespace: k8s.io
      pull: false
  ansible.builtin.set_fact:
    image: "{{ __inputs | cubestudio.ascend.runtime_image }}"
"""

RETURN = r"""
_value:
  description: C(present) (bool) and C(skip) (the reason the check is skipped, '' when it is not).
  type: dict
"""


def runtime_image(inputs):
    """``{present, skip}``; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "engine" not in inputs:
        raise AnsibleFilterError(
            "runtime_image expects a dict with engine, docker, containerd, image, namespace and pull"
        )
    try:
        return image_state(
            inputs["engine"],
            inputs,
            str(inputs.get("image") or ""),
            str(inputs.get("namespace") or ""),
            boolean(inputs.get("pull", False), strict=False),
        )
    except ValueError as error:
        raise AnsibleFilterError("runtime_image: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_image": runtime_image}
