# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The smoke_admission_refused filter: did the kubelet refuse the smoke pod at admission."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._smoke import (
    admission_refused,
)

DOCUMENTATION = r"""
name: smoke_admission_refused
short_description: Whether the kubelet refused a pod at admission
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - True when the pod failed with the reason C(UnexpectedAdmissionError) - the kubelet refused it before it started,
    for a device plugin while the plugin (re-)registers after a kubelet, engine or plugin restart. The device_plugin
    role starts its smoke pod once more then.
options:
  _input:
    description: The Pod object (C(kubernetes.core.k8s_info) resource); empty when it was never created.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Start the pod again when the kubelet refused it at admission
  ansible.builtin.debug:
    msg: refused
  when: pod | cubestudio.ascend.smoke_admission_refused
"""

RETURN = r"""
_value:
  description: True when the kubelet refused the pod at admission.
  type: bool
"""


def smoke_admission_refused(pod):
    """A bool; AnsibleFilterError on input of the wrong type."""
    if pod is not None and not isinstance(pod, dict):
        raise AnsibleFilterError("smoke_admission_refused expects the Pod object")
    return admission_refused(pod or {})


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"smoke_admission_refused": smoke_admission_refused}
