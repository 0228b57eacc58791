# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The smoke_verdict filter: did the device plugin's smoke pod see exactly one NPU, and why not."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._smoke import (
    verdict,
)

DOCUMENTATION = r"""
name: smoke_verdict
short_description: The verdict on a pod that asked for one NPU and ran npu-smi info
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Reads the pod's phase and container state and what it printed (C(npu-smi info)), and the
    Node's C(containerRuntimeVersion) (the engine the kubelet uses).
  - C(ok) when the pod succeeded and listed exactly one NPU; otherwise C(cause) names the cause
    and the fix - for a pod without C(npu-smi) or with every NPU, that the Ascend runtime is not
    the default runtime of the kubelet's engine.
options:
  _input:
    description: The Pod object (C(kubernetes.core.k8s_info) resource); empty when it was never created.
    type: dict
    required: true
  log:
    description: What the pod printed.
    type: str
    required: true
  node:
    description: The Node object of the node the pod ran on.
    type: dict
    required: true
  resource:
    description: The extended resource the pod asked for (C(huawei.com/Ascend910)).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: The pod saw exactly one NPU
  vars:
    verdict: "{{ pod | cubestudio.ascend.smoke_verdict(log_text, node, 'huawei.com/Ascend910') }}"
  ansible.builtin.assert:
    that: verdict['ok']
    fail_msg: "{{ verdict['cause'] }}"
"""

RETURN = r"""
_value:
  description:
    - C(ok), C(npu_count) (null when the output is no npu-smi table), C(phase), C(engine) (of the
      kubelet, from the Node) and C(cause) (empty when C(ok)).
  type: dict
"""


def smoke_verdict(pod, log, node, resource):
    """The verdict on the smoke pod; AnsibleFilterError on input of the wrong type."""
    if pod is not None and not isinstance(pod, dict):
        raise AnsibleFilterError("smoke_verdict expects the Pod object")
    if node is not None and not isinstance(node, dict):
        raise AnsibleFilterError("smoke_verdict expects the Node object")
    return verdict(
        pod or {}, "" if log is None else str(log), node or {}, str(resource)
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"smoke_verdict": smoke_verdict}
