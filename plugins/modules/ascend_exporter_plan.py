#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_exporter_plan.py does the work on
# the controller, with the logic in plugins/module_utils/_k8s/_mindcluster.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_exporter_plan
short_description: Decide how Huawei's npu-exporter runs on a node (internal to the roles)
version_added: 0.1.0
description:
  - From the engine the kubelet uses and the wanted MindCluster release, decides the npu-exporter
    image, its C(-containerMode) and socket flags, its mounts and its health endpoint.
  - Runs on the controller and changes nothing; the catalogue of Huawei facts it reads is
    C(data/mindcluster.yml) in the collection.
author: cubestudio maintainers (@cubestudio)
notes:
  - Internal to the roles of cubestudio.ascend, used by the exporter role. Its options and results
    follow what they need and may change in any release; it is documented for them and for
    debugging, not as an interface.
options:
  version:
    description: MindCluster release of npu-exporter (the image tag without C(v)).
    type: str
    required: true
  engine:
    description:
      - C(containerd) or C(docker), or C(auto) for the engine in O(node_runtime), and C(containerd)
        (Kubernetes' default) when that is empty.
    type: str
    default: auto
  node_runtime:
    description: The Node's C(status.nodeInfo.containerRuntimeVersion), such as C(containerd://1.6.20).
    type: str
    default: ""
  image_registry:
    description: Registry (and path) in front of the image name; empty for images loaded on the nodes.
    type: str
    default: ""
  image_pull_policy:
    description: C(imagePullPolicy); empty for C(Never) without a registry and C(IfNotPresent) with one.
    type: str
    default: ""
  port:
    description: The metrics port (C(-port), 1025 to 40000).
    type: int
    default: 8082
  update_time:
    description: Seconds between two reads of the NPUs (C(-updateTime), 1 to 60).
    type: int
    default: 5
  node_name:
    description: The node's name in Kubernetes.
    type: str
    default: ""
  cluster:
    description:
      - The answer of P(cubestudio.ascend.ascend_k8s_read#module) (C(nodes), C(crds)). Gives the Node (its engine for
        O(engine=auto) when O(node_runtime) is empty) and whether the Prometheus operator's CRDs exist.
    type: dict
  prometheus_operator:
    description: Add the ServiceMonitor and PrometheusRule - V(true), V(false), or V(auto) (when both of the operator's CRDs exist in O(cluster)).
    type: str
    default: auto
  grafana_dashboard:
    description: Add the Grafana dashboard ConfigMap.
    type: bool
    default: true
  catalogue_file:
    description: A site copy of C(data/mindcluster.yml) (same structure).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
"""

EXAMPLES = r"""
- name: Plan the exporter
  cubestudio.ascend.ascend_exporter_plan:
    version: 7.3.0
    node_runtime: containerd://1.6.20
"""

RETURN = r"""
plan:
  description: The plan, also set as the fact C(ascend_exporter_plan).
  returned: success
  type: dict
  contains:
    engine:
      description: C(containerd) or C(docker).
      type: str
    image:
      description: The image reference of the DaemonSet.
      type: str
      sample: npu-exporter:v7.3.0
    pod_labels:
      description: The label of the pods and the DaemonSet's selector (C(data/mindcluster.yml)).
      type: dict
      sample: {app: npu-exporter}
    pod_selector:
      description: C(pod_labels) as a label selector, for M(kubernetes.core.k8s_info) and C(kubectl -l).
      type: str
      sample: app=npu-exporter
    service:
      description: The name of the Service in front of the exporter's pods.
      type: str
      sample: npu-exporter
    command:
      description: The exporter's command line.
      type: str
    port:
      description: The metrics port.
      type: int
      sample: 8082
    volumes:
      description: Host paths of the DaemonSet, each C([name, container path, node path, read-only, hostPath type]).
      type: list
      elements: list
    node_name:
      description: O(node_name).
      type: str
    node:
      description: The Node from O(cluster) in the shape of M(kubernetes.core.k8s_info) (C(resources), empty when absent).
      type: dict
    operator:
      description: The ServiceMonitor and PrometheusRule go with the exporter.
      type: bool
    operator_crds:
      description: The CRDs to look for (O(prometheus_operator=auto)), else empty.
      type: list
      elements: str
    manifests:
      description: The role's templates to apply, in order.
      type: list
      elements: str
      sample: [npu-exporter.yaml.j2, dashboard.yaml.j2]
"""
