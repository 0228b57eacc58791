# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The runtime_cgroup filter: the setting and kubelet's configuration -> the SystemdCgroup option."""

from __future__ import annotations

import base64

import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    CGROUP_DRIVERS,
    cgroup_options,
)

DOCUMENTATION = r"""
name: runtime_cgroup
short_description: The cgroup driver of the Ascend runtime and its SystemdCgroup option
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The cgroup driver is the setting, or with C(auto) the C(cgroupDriver) of kubelet's configuration file; the
    runtime's C(SystemdCgroup) option follows from it (C(systemd) true, C(cgroupfs) false). An unknown driver
    (C(auto) without the file or the key) gives no option, the runtime then keeps the setting of C(runc).
  - The decision of the ascend_runtime role's preflight, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
  - A kubelet configuration that is not YAML fails with the reason.
options:
  _input:
    description:
      - C(setting) the value of O(cubestudio.ascend.ascend_runtime#role:main:ascend_runtime_containerd_cgroup_driver)
        (C(auto), C(systemd) or C(cgroupfs)), C(kubelet_config) the result of C(ansible.builtin.slurp) of
        kubelet's configuration (skipped or without C(content) when it was not read), C(path) its path for the
        messages.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Decide the SystemdCgroup option of the runtime
  vars:
    __inputs:
      setting: auto
      kubelet_config: "{{ kubelet_slurp }}"
      path: /var/lib/kubelet/config.yaml
  ansible.builtin.set_fact:
    cgroup: "{{ __inputs | cubestudio.ascend.runtime_cgroup }}"
"""

RETURN = r"""
_value:
  description: C(driver) ('' when unknown) and C(runtime_options) (C({SystemdCgroup - bool}) or empty).
  type: dict
"""


def runtime_cgroup(inputs):
    """The driver and the options; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "setting" not in inputs:
        raise AnsibleFilterError(
            "runtime_cgroup expects a dict with setting and kubelet_config"
        )
    setting = str(inputs["setting"] or "auto")
    if setting != "auto" and setting not in CGROUP_DRIVERS:
        raise AnsibleFilterError(
            "runtime_cgroup: setting must be auto, systemd or cgroupfs, got %r"
            % setting
        )
    read = inputs.get("kubelet_config") or {}
    content = read.get("content") if isinstance(read, dict) else None
    config = None
    if setting == "auto" and content:
        path = inputs.get("path") or "kubelet's configuration"
        try:
            text = base64.b64decode(content, validate=True).decode("utf-8")
            config = yaml.safe_load(text)
        except ValueError as error:
            raise AnsibleFilterError(
                "runtime_cgroup: %s cannot be read: %s" % (path, error)
            ) from None
        except yaml.YAMLError as error:
            raise AnsibleFilterError(
                "runtime_cgroup: %s is not YAML: %s" % (path, error)
            ) from None
    return cgroup_options(setting, config)


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"runtime_cgroup": runtime_cgroup}
