# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The device_plugin_pod filter: which of a node's pods is the Ascend device plugin's."""

from __future__ import annotations

import os

from ansible.errors import AnsibleError, AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    PlanError,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._settings import (
    selector as label_selector,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
    load_data,
)

DOCUMENTATION = r"""
name: device_plugin_pod
short_description: The Ascend device plugin's pod among the pods of a node
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Finds the device plugin's DaemonSets among the cluster's (by their selector, the pod label of
    C(data/mindcluster.yml) C(name=ascend-device-plugin-ds), or their C(ascend-k8sdeviceplugin) image) and returns the first pod of one of them
    among the given pods, the way the doctor judges the plugin.
options:
  _input:
    description: The pods of the node (C(kubernetes.core.k8s_info) resources).
    type: list
    elements: dict
    required: true
  daemonsets:
    description: Every DaemonSet of the cluster.
    type: list
    elements: dict
    required: true
  selector:
    description:
      - The device plugin's pod label as a selector (C(key=value)); the default is the one of
        C(data/mindcluster.yml), as C(lookup('cubestudio.ascend.ascend_settings', 'device_plugin_pod_selector')) returns it.
    type: str
    required: false
"""

EXAMPLES = r"""
- name: Read the device plugin pod's recent log
  vars:
    pod: "{{ node_pods | cubestudio.ascend.device_plugin_pod(daemonsets) }}"
  kubernetes.core.k8s_log:
    namespace: "{{ pod['namespace'] }}"
    name: "{{ pod['name'] }}"
    tail_lines: 200
  when: pod | length > 0
"""

RETURN = r"""
_value:
  description: C(namespace) and C(name) of the pod; empty when the node has none.
  type: dict
"""


def _catalogue_selector() -> str:
    try:
        catalogue = load_data(
            os.path.join(DATA_DIR, "mindcluster.yml"),
            "MindCluster catalogue",
            validate_catalogue,
            PlanError,
        )
    except AnsibleError as error:
        raise AnsibleFilterError("device_plugin_pod: %s" % error.message) from None
    return label_selector(catalogue["device_plugin"]["pod_labels"])


def device_plugin_pod(pods, daemonsets, selector=None):
    if not isinstance(pods, list) or not isinstance(daemonsets, list):
        raise AnsibleFilterError(
            "device_plugin_pod expects a list of pods and a list of DaemonSets"
        )
    if selector is not None and not isinstance(selector, str):
        raise AnsibleFilterError(
            "device_plugin_pod expects a selector string (key=value), not %r"
            % (selector,)
        )
    # Imported here: Ansible imports every filter file of the collection in each task that
    # uses one of its filters, and the doctor's checks are large (docs/benchmarks.md).
    from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
        plugin_pod,
    )

    return plugin_pod(
        daemonsets, pods, _catalogue_selector() if selector is None else selector
    )


class FilterModule:
    def filters(self):
        return {"device_plugin_pod": device_plugin_pod}
