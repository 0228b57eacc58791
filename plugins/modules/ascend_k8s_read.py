#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_k8s_read
short_description: Read what the Kubernetes layer needs from the API in one call, with one client
version_added: 0.2.0
description:
  - Reads, with one client of the Python kubernetes library, the Nodes, objects, pods and
    CustomResourceDefinitions the device_plugin and exporter roles need to decide whether a
    re-run has anything to do (the Kubernetes layer's record, issue 24). Run it on the host that
    talks to the API, once for the play (C(run_once)) - it reads every node of the play at once.
  - Each object comes back trimmed to what the decision needs (names, labels, annotations,
    generation, deletionTimestamp and status; a Node without its image list).
  - Reads only. The decision lives in the collection's private C(module_utils._k8s._k8s_record).
options:
  kubeconfig:
    description: The kubeconfig; empty means the library's default (C(~/.kube/config)).
    type: path
  nodes:
    description: Names of the Nodes to read.
    type: list
    elements: str
    default: []
  objects:
    description:
      - Objects to read, as their definitions or references (C(apiVersion), C(kind),
        C(metadata.name), C(metadata.namespace)); cluster-scoped kinds ignore the namespace.
    type: list
    elements: dict
    default: []
  pods:
    description:
      - Pod lists to read, each a dict with C(namespace) and C(label_selector); the pods come
        back grouped by the node they run on (only the nodes of O(nodes)).
    type: list
    elements: dict
    default: []
  crds:
    description: Names of CustomResourceDefinitions whose presence to report.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - The module only reads, so check mode runs it normally.
  diff_mode:
    support: none
  platform:
    platforms: posix
    support: full
requirements:
  - The Python kubernetes library on the host that runs the module.
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read the nodes, the DaemonSet and its pods in one call
  cubestudio.ascend.ascend_k8s_read:
    nodes: [node-1, node-2]
    objects:
      - {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ascend-device-plugin-daemonset, namespace: kube-system}}
    pods:
      - namespace: kube-system
        label_selector: "{{ lookup('cubestudio.ascend.ascend_settings', 'device_plugin_pod_selector') }}"
    crds: [servicemonitors.monitoring.coreos.com]
  delegate_to: localhost
  run_once: true
  register: cluster
"""

RETURN = r"""
nodes:
  description: Each Node by name, trimmed; null when it does not exist.
  returned: always
  type: dict
  sample: {node-1: {kind: Node, metadata: {name: node-1, labels: {}}, status: {allocatable: {huawei.com/Ascend910: "8"}}}}
objects:
  description: Each object by C(kind/namespace/name), trimmed; null when it does not exist.
  returned: always
  type: dict
  sample: {"DaemonSet/kube-system/ascend-device-plugin-daemonset": {kind: DaemonSet, metadata: {generation: 1}, status: {}}}
pods:
  description: The pods of O(pods), by the node they run on (every node of O(nodes) is a key).
  returned: always
  type: dict
  sample: {node-1: []}
crds:
  description: Whether each CustomResourceDefinition of O(crds) exists.
  returned: always
  type: dict
  sample: {servicemonitors.monitoring.coreos.com: false}
"""

import json
import platform
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s import _k8s_record

try:
    from kubernetes import config as k8s_config
    from kubernetes.client.rest import ApiException

    HAS_KUBERNETES = True
    KUBERNETES_ERROR = None
except ImportError:  # pragma: no cover - reported by fail_json
    HAS_KUBERNETES = False
    KUBERNETES_ERROR = traceback.format_exc()


class Reader:
    """GETs with one API client."""

    def __init__(self, kubeconfig):
        self.api = k8s_config.new_client_from_config(config_file=kubeconfig or None)

    def get(self, path, query=None):
        query = list((query or {}).items())
        headers = {"Accept": "application/json"}
        try:
            if hasattr(self.api, "param_serialize"):
                # kubernetes >= 35 (openapi-generator 7): serialize, then call.
                request = self.api.param_serialize(
                    "GET",
                    path,
                    query_params=query,
                    header_params=headers,
                    auth_settings=["BearerToken"],
                )
                response = self.api.call_api(*request)
                status = getattr(response, "status", 200)
                data = response.read()
                if status == 404:
                    return None
                if status >= 400:
                    raise ApiException(
                        status=status, reason=getattr(response, "reason", "")
                    )
                return json.loads(data)
            response = self.api.call_api(
                path,
                "GET",
                query_params=query,
                header_params=headers,
                auth_settings=["BearerToken"],
                _preload_content=False,
                _return_http_data_only=True,
            )
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return json.loads(response.data)


def main():
    module = AnsibleModule(
        argument_spec={
            "kubeconfig": {"type": "path"},
            "nodes": {"type": "list", "elements": "str", "default": []},
            "objects": {"type": "list", "elements": "dict", "default": []},
            "pods": {"type": "list", "elements": "dict", "default": []},
            "crds": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    if not HAS_KUBERNETES:
        module.fail_json(
            msg=missing_required_lib("kubernetes"), exception=KUBERNETES_ERROR
        )
    params = module.params
    try:
        refs = [_k8s_record.ref(obj) for obj in params["objects"]]
        for item in params["pods"]:
            if not item.get("namespace") or not item.get("label_selector"):
                raise _k8s_record.RecordError(
                    "each of pods needs namespace and label_selector: %r" % (item,)
                )
    except _k8s_record.RecordError as exc:
        module.fail_json(msg=str(exc))
    try:
        reader = Reader(params["kubeconfig"])
    except Exception as exc:  # the library raises several kinds for a bad kubeconfig
        module.fail_json(
            msg="Cannot load the kubeconfig %s: %s"
            % (params["kubeconfig"] or "~/.kube/config", exc)
        )
    result = {"nodes": {}, "objects": {}, "pods": {}, "crds": {}}
    current = "the API"
    try:
        for name in params["nodes"]:
            current = "Node " + name
            result["nodes"][name] = _k8s_record.trim(
                reader.get("/api/v1/nodes/" + name)
            )
            result["pods"][name] = []
        for reference in refs:
            current = _k8s_record.ref_key(reference)
            result["objects"][current] = _k8s_record.trim(
                reader.get(_k8s_record.api_path(reference))
            )
        for item in params["pods"]:
            current = "pods %s in %s" % (item["label_selector"], item["namespace"])
            answer = reader.get(
                "/api/v1/namespaces/%s/pods" % item["namespace"],
                {"labelSelector": item["label_selector"]},
            ) or {"items": []}
            for pod in answer.get("items") or []:
                node = (pod.get("spec") or {}).get("nodeName")
                if node in result["pods"]:
                    result["pods"][node].append(_k8s_record.trim(pod))
        for name in params["crds"]:
            current = "CustomResourceDefinition " + name
            result["crds"][name] = (
                reader.get(
                    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name
                )
                is not None
            )
    except ApiException as exc:
        module.fail_json(
            msg="The Kubernetes API refused to read %s: %s %s"
            % (current, exc.status, exc.reason)
        )
    except (
        Exception
    ) as exc:  # connection refused, TLS, DNS: the cluster does not answer
        kubeconfig = params["kubeconfig"] or "~/.kube/config"
        module.fail_json(
            msg="The Kubernetes API cannot be reached from %s (reading %s) with the kubeconfig %s: %s. "
            "Fix: the kubeconfig (device_plugin_kubeconfig, exporter_kubeconfig or ascend_kubeconfig) "
            "must name a running cluster whose API server this host reaches "
            "(kubectl --kubeconfig %s get nodes answers)."
            % (platform.node(), current, kubeconfig, exc, kubeconfig)
        )
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
