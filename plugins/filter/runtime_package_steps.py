# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_package_steps filter: the plan's package action -> the installer runs."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    package_steps,
)

DOCUMENTATION = r"""
name: runtime_package_steps
short_description: The installer runs of an Ascend Docker Runtime package action, and the engine file it rewrites
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - C(install), C(upgrade) and C(uninstall) are one run of the package each, C(reinstall) is an uninstall, then an
    install. The engine file is the one of the install scene (Docker's C(daemon.json) or containerd's
    C(config.toml)), which the installer rewrites.
  - The decision of the ascend_runtime role's install step, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(action) the plan's C(ascend_runtime.action) (not C(none)), C(engine) the install scene (C(docker) or
        C(containerd)), C(docker_config) and C(containerd_config) the paths of the engine files.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Set the package's steps and the engine file
  vars:
    __inputs:
      action: reinstall
      engine: containerd
      docker_config: /etc/docker/daemon.json
      containerd_config: /etc/containerd/config.toml
  ansible.builtin.set_fact:
    package: "{{ __inputs | cubestudio.ascend.runtime_package_steps }}"
"""

RETURN = r"""
_value:
  description: C(steps) (the installer actions, in order) and C(engine_file).
  type: dict
"""


def runtime_package_steps(inputs):
    """The steps and the engine file; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "action" not in inputs:
        raise AnsibleFilterError(
            "runtime_package_steps expects a dict with action, engine, docker_config and containerd_config"
        )
    try:
        return package_steps(
            inputs["action"],
            inputs.get("engine") or "",
            inputs.get("docker_config") or "",
            inputs.get("containerd_config") or "",
        )
    except ValueError as error:
        raise AnsibleFilterError("runtime_package_steps: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_package_steps": runtime_package_steps}
