#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_k8s_decide.py does the work on the
# controller, with the logic in plugins/module_utils/_k8s/_k8s_record.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_k8s_decide
short_description: Decide whether a Kubernetes layer re-applies, waits and runs its smoke pod on a node (internal to the roles)
version_added: 0.2.0
description:
  - Compares the desired objects (with their C(cubestudio.ascend/spec-hash), P(cubestudio.ascend.k8s_spec_annotate#filter)),
    the answer of P(cubestudio.ascend.ascend_k8s_read#module) and the layer's record on the Node
    (annotation C(cubestudio.ascend/<layer>-verified)) with the node's state.
  - C(skip) is true when every object is as last applied, the node's labels are set, the record was written for the
    same objects, labels and state (chips, health, engine, settings), the DaemonSet is rolled out, the layer's pod on
    the node is ready and (device plugin) allocatable equals the healthy chips.
  - Runs on the controller and changes nothing.
author: cubestudio maintainers (@cubestudio)
options:
  layer:
    description: The layer; names its record's annotation.
    type: str
    required: true
    choices: [device_plugin, exporter]
  node_name:
    description: The node's name in Kubernetes.
    type: str
    required: true
  cluster:
    description: The registered answer of P(cubestudio.ascend.ascend_k8s_read#module) (C(nodes), C(objects), C(pods)).
    type: dict
    required: true
  objects:
    description: The objects the role applies, with their hashes (P(cubestudio.ascend.k8s_spec_annotate#filter)).
    type: list
    elements: dict
    required: true
  state:
    description: What else the record must match (chips, health, engine, image, settings), compared as a whole.
    type: dict
    default: {}
  labels:
    description: The node labels the role sets.
    type: dict
    default: {}
  resource:
    description: The extended resource whose allocatable must equal O(expected_allocatable).
    type: str
  expected_allocatable:
    description: The healthy chips.
    type: int
  smoke:
    description: When the smoke pod runs - when the layer changed, always, or never.
    type: str
    choices: [changed, always, never]
    default: changed
  smoke_test:
    description: The smoke test at all; V(false) is O(smoke=never).
    type: bool
    default: true
  fast_rerun:
    description: V(false) runs the layer in full whatever the record says.
    type: bool
    default: true
  run_tags:
    description: The run's tags (C(ansible_run_tags)).
    type: list
    elements: str
    default: []
  verify_tags:
    description: Tags that, when asked for on the command line, run the layer in full (C(verify), C(<layer>_verify)).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - cubestudio.ascend.attributes
notes:
  - Internal to the roles C(cubestudio.ascend.device_plugin) and C(cubestudio.ascend.exporter). Its options and
    results follow what they need and may change in any release; it is documented for them and for debugging, not
    as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
  - An answer that is not P(cubestudio.ascend.ascend_k8s_read#module)'s fails the task with the cause.
attributes:
  action:
    description: Runs as an action plugin on the controller; nothing is sent to the target.
    support: full
  async:
    description: Can be used with the C(async) keyword.
    support: none
  bypass_host_loop:
    description: Runs once for all hosts instead of once per host.
    support: none
  check_mode:
    support: full
    details:
      - The action only reads, so check mode runs it normally.
  diff_mode:
    support: N/A
    details:
      - The action changes nothing.
  platform:
    platforms: all
    support: full
    details:
      - Runs on the controller whatever the target platform.
"""

EXAMPLES = r"""
- name: Decide
  cubestudio.ascend.ascend_k8s_decide:
    layer: exporter
    node_name: node-1
    cluster: "{{ cluster }}"
    objects: "{{ objects }}"
    state:
      npus: 8
    run_tags: "{{ ansible_run_tags }}"
    verify_tags: [verify, exporter_verify]
  register: decision
"""

RETURN = r"""
decision:
  description: The decision.
  returned: success
  type: dict
  contains:
    skip:
      description: Nothing to do - no apply, no rollout wait, no smoke pod (unless asked).
      type: bool
    reasons:
      description: Why the layer runs; empty when skipped.
      type: list
      elements: str
    smoke:
      description: Run the smoke pod.
      type: bool
    record:
      description: The record to write on the Node after a verified run.
      type: dict
    annotation:
      description: The Node annotation that holds the record.
      type: str
      sample: cubestudio.ascend/exporter-verified
    summary:
      description: One line for the run's summary.
      type: str
    node:
      description: The live Node in the shape of M(kubernetes.core.k8s_info) (C(resources), empty when not registered).
      type: dict
"""
