#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_device_plugin_plan.py does the work
# on the controller, with the logic in plugins/module_utils/_k8s/_mindcluster.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_device_plugin_plan
short_description: Decide how the Ascend device plugin runs on a node (internal to the roles)
version_added: 0.1.0
description:
  - From a node's facts (P(cubestudio.ascend.ascend_facts#module) and
    P(cubestudio.ascend.npu_smi_facts#module)) and the wanted MindCluster release, decides the
    device plugin's family and resource name, the node labels MindCluster expects, the image, the
    flags, mounts and environment of its DaemonSet, and how many NPUs the node must advertise.
  - Runs on the controller and changes nothing; the catalogue of Huawei facts it reads is
    C(data/mindcluster.yml) in the collection.
  - An unknown Board ID gets no C(accelerator-type) label and a warning, never a wrong value.
author: cubestudio maintainers (@cubestudio)
options:
  npu_family:
    description: The node's NPU family, C(ansible_facts.ascend.npu_family).
    type: str
  architecture:
    description: The node's machine architecture (C(x86_64) or C(aarch64)).
    type: str
    required: true
  npu_smi:
    description: The node's C(ansible_facts.ascend_npu_smi).
    type: dict
    required: true
  board_id:
    description: The Board ID of the node's first NPU (C(npu-smi info -t board)), for the C(accelerator-type) label.
    type: str
  version:
    description: MindCluster release of the device plugin (the image tag without C(v)).
    type: str
    required: true
  image_registry:
    description: Registry (and path) in front of the image name; empty for images loaded on the nodes.
    type: str
    default: ""
  image_pull_policy:
    description: The DaemonSet's C(imagePullPolicy); empty for C(Never) without a registry (images loaded on the nodes) and C(IfNotPresent) with one.
    type: str
    default: ""
  kubelet_root:
    description: The kubelet's root folder on the node (C(--root-dir)).
    type: str
    default: /var/lib/kubelet
  extra_labels:
    description: More node labels; they win over the computed ones.
    type: dict
    default: {}
  node_name:
    description: The node's name in Kubernetes.
    type: str
    required: true
  stack:
    description:
      - The C(ascend) fact of M(cubestudio.ascend.ascend_facts). The installed driver, firmware,
        CANN and Ascend Docker Runtime versions become the node labels
        C(cubestudio.ascend/driver-version), C(cubestudio.ascend/firmware-version),
        C(cubestudio.ascend/cann-version) and C(cubestudio.ascend/runtime-version); a part that is
        not installed gets no label.
      - A value is made valid for label syntax by replacing every character outside
        C([-A-Za-z0-9_.]) with C(_), dropping non-alphanumerics at both ends and cutting it to 63
        characters (C(8.1.RC1) stays C(8.1.RC1)).
    type: dict
    default: {}
  catalogue_file:
    description: A site copy of C(data/mindcluster.yml) (same structure).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the roles of cubestudio.ascend, used by the device_plugin role. Its options and
    results follow what they need and may change in any release; it is documented for them and for
    debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
"""

EXAMPLES = r"""
- name: Plan the device plugin
  cubestudio.ascend.ascend_device_plugin_plan:
    npu_family: "{{ ansible_facts['ascend']['npu_family'] }}"
    architecture: "{{ ansible_facts['architecture'] }}"
    npu_smi: "{{ ansible_facts['ascend_npu_smi'] }}"
    version: 7.3.0
    node_name: "{{ ansible_facts['nodename'] }}"
"""

RETURN = r"""
plan:
  description: The plan, also set as the fact C(ascend_device_plugin_plan).
  returned: success
  type: dict
  contains:
    family:
      description: Device plugin family (C(910), C(310P), C(310)).
      type: str
      sample: "910"
    resource:
      description: The extended resource the node advertises.
      type: str
      sample: huawei.com/Ascend910
    labels:
      description: Node labels to set.
      type: dict
      sample: {accelerator: huawei-Ascend910, host-arch: huawei-x86, workerselector: dls-worker-node}
    warnings:
      description: What could not be decided (an unknown Board ID).
      type: list
      elements: str
    expected_allocatable:
      description: The chips whose health is OK, what allocatable must show.
      type: int
      sample: 8
    image:
      description: The image reference of the DaemonSet.
      type: str
      sample: ascend-k8sdeviceplugin:v7.3.0
    pod_labels:
      description: The label of the pods and the DaemonSet's selector (C(data/mindcluster.yml)).
      type: dict
      sample: {name: ascend-device-plugin-ds}
    pod_selector:
      description: C(pod_labels) as a label selector, for M(kubernetes.core.k8s_info) and C(kubectl -l).
      type: str
      sample: name=ascend-device-plugin-ds
    command:
      description: The device plugin's command line.
      type: str
    volumes:
      description: Host folders of the DaemonSet, each C([name, container path, node path, read-only, hostPath type]).
      type: list
      elements: list
    env:
      description: Environment of the container, each C([name, value]); a null value is the node name from the downward API.
      type: list
      elements: list
"""
