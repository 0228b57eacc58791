# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The npu_in_use filter: are the NPUs in use (processes, containers), and by what."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._in_use import (
    NpuUseError,
    npu_use,
)

DOCUMENTATION = r"""
name: npu_in_use
short_description: Whether the NPUs of a node are in use, and by what
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The collection's one rule for "the NPUs are in use", the check Huawei's deployer makes
    before it touches the driver - a process in the process table of C(npu-smi info), a running
    container that uses the Ascend devices, or a container engine that runs but cannot be
    asked (then nothing can be said).
  - The C(npu_driver) role refuses to install, upgrade or uninstall the driver and the firmware
    while this says C(in_use) (troubleshooting row T6).
options:
  _input:
    description:
      - The C(processes) of the C(ascend_npu_smi) fact of M(cubestudio.ascend.npu_smi_facts).
        An empty list or null when npu-smi is not installed.
    type: list
    elements: dict
    required: true
  containers:
    description:
      - The C(ascend_npu_containers) fact of M(cubestudio.ascend.npu_container_facts), read
        with C(fail_on_error=false) so that an engine that cannot be asked counts.
    type: dict
    required: true
seealso:
  - module: cubestudio.ascend.npu_smi_facts
  - module: cubestudio.ascend.npu_container_facts
"""

EXAMPLES = r"""
- name: Refuse while the NPUs are in use
  vars:
    use: >-
      {{ ansible_facts['ascend_npu_smi']['processes']
      | cubestudio.ascend.npu_in_use(ansible_facts['ascend_npu_containers']) }}
  ansible.builtin.assert:
    that: not use['in_use']
    fail_msg: "{{ use['summary'] }}: stop the workloads first."
"""

RETURN = r"""
_value:
  description:
    - C(in_use) (bool), C(summary) (one sentence naming the processes, the containers and the
      engines that cannot be asked; empty when not in use), and the C(processes),
      C(containers) and C(errors) it was decided on.
  type: dict
"""


def npu_in_use(processes, containers):
    """The npu_use verdict; AnsibleFilterError with the reason on bad input."""
    try:
        return npu_use(processes, containers)
    except NpuUseError as exc:
        raise AnsibleFilterError("npu_in_use: %s" % exc) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"npu_in_use": npu_in_use}
