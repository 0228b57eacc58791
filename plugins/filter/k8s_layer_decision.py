# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The k8s_layer_decision filter: does a Kubernetes layer have anything to do on a node."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils import _k8s_record

DOCUMENTATION = r"""
name: k8s_layer_decision
short_description: Decide whether a Kubernetes layer re-applies, waits and runs its smoke pod on a node
version_added: 0.9.0
author: cubestudio maintainers (@cubestudio)
description:
  - Compares the desired objects (with their C(cubestudio.ascend/spec-hash)), the answer of
    M(cubestudio.ascend.ascend_k8s_read) and the layer's record on the Node (C(cubestudio.ascend/<layer>-verified)) with the node's state.
  - C(skip) is true when every object is as last applied, the node's labels are set, the record was written for
    the same objects, labels and state (chips, health, engine, settings), the DaemonSet is rolled out, the
    layer's pod on the node is ready and (device plugin) allocatable equals the healthy chips.
options:
  _input:
    description: The answer of M(cubestudio.ascend.ascend_k8s_read).
    type: dict
    required: true
  layer:
    description: The layer (C(device_plugin), C(exporter)).
    type: str
    required: true
  node_name:
    description: The node's name in Kubernetes.
    type: str
    required: true
  desired:
    description: The objects the role applies, with their hashes (P(cubestudio.ascend.k8s_spec_annotate#filter)).
    type: list
    elements: dict
    required: true
  state:
    description: What else the record must match (chips, health, engine, settings).
    type: dict
    required: true
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
    description: When the smoke pod runs.
    type: str
    choices: [changed, always, never]
    default: changed
  force:
    description: Run the layer in full whatever the record says, for this reason (empty - decide from the record).
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Decide
  ansible.builtin.set_fact:
    decision: >-
      {{ cluster | cubestudio.ascend.k8s_layer_decision('device_plugin', 'node-1', objects, {'healthy': 8},
         smoke='changed') }}
"""

RETURN = r"""
_value:
  description:
    - C(skip) (bool), C(reasons) (why the layer runs; empty when skipped), C(smoke) (run the smoke pod),
      C(record) (the record to write on the Node after a verified run), C(summary) (one line for the run's summary).
  type: dict
"""


def k8s_layer_decision(
    answer,
    layer,
    node_name,
    desired,
    state,
    labels=None,
    resource=None,
    expected_allocatable=None,
    smoke="changed",
    force="",
):
    """The decision of _k8s_record.decide for one node; AnsibleFilterError on bad input."""
    if not isinstance(answer, dict):
        raise AnsibleFilterError("k8s_layer_decision expects ascend_k8s_read's answer")
    try:
        decision = _k8s_record.decide(
            {
                "layer": layer,
                "desired": list(desired or []),
                "live": answer.get("objects") or {},
                "node": (answer.get("nodes") or {}).get(node_name),
                "pods": (answer.get("pods") or {}).get(node_name) or [],
                "labels": dict(labels or {}),
                "state": dict(state or {}),
                "resource": resource,
                "expected_allocatable": expected_allocatable,
                "smoke": smoke,
                "force": str(force) if force else "",
            }
        )
    except (_k8s_record.RecordError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("k8s_layer_decision: %s" % exc) from exc
    decision["summary"] = _k8s_record.summary(layer, decision)
    decision["annotation"] = _k8s_record.record_annotation(layer)
    return decision


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"k8s_layer_decision": k8s_layer_decision}
