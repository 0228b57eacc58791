# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kubernetes layer's record (plugins/module_utils/_k8s/_k8s_record.py): skip or run, and why."""

from __future__ import annotations

import copy
import json

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s import (
    _k8s_record as kr,
)

# The device plugin's objects as roles/device_plugin/templates/device-plugin.yaml.j2 renders
# them for 7.3.0 (trimmed to the fields that matter here).
DESIRED = [
    {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "ascend-device-plugin-sa-910", "namespace": "kube-system"},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "pods-node-ascend-device-plugin-role-910"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
    },
    {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": "ascend-device-plugin-daemonset-910",
            "namespace": "kube-system",
        },
        "spec": {
            "selector": {"matchLabels": {"name": "ascend-device-plugin-ds"}},
            "template": {
                "metadata": {"labels": {"name": "ascend-device-plugin-ds"}},
                "spec": {
                    "nodeSelector": {"accelerator": "huawei-Ascend910"},
                    "containers": [
                        {
                            "name": "device-plugin-01",
                            "image": "ascend-k8sdeviceplugin:v7.3.0",
                            "imagePullPolicy": "Never",
                        }
                    ],
                },
            },
        },
    },
]
NODE = "node-1"
LABELS = {"accelerator": "huawei-Ascend910", "accelerate": "ascend"}
STATE = {"chips": 8, "healthy": 8, "engine": "containerd://1.7.24", "archive": "x.tar"}
RESOURCE = "huawei.com/Ascend910"


def live_of(desired):
    """The cluster as the role left it after a verified run."""
    objects = {}
    for obj in desired:
        live = copy.deepcopy(obj)
        live["metadata"]["generation"] = 2
        if obj["kind"] == "DaemonSet":
            live["status"] = {
                "observedGeneration": 2,
                "desiredNumberScheduled": 1,
                "updatedNumberScheduled": 1,
                "numberAvailable": 1,
            }
        objects[kr.ref_key(kr.ref(obj))] = kr.trim(live)
    return objects


def params(**over):
    desired = kr.annotate(copy.deepcopy(DESIRED))
    first = kr.decide(
        {
            "layer": "device_plugin",
            "desired": desired,
            "live": {},
            "node": None,
            "labels": LABELS,
            "state": STATE,
        }
    )
    node = {
        "kind": "Node",
        "metadata": {
            "name": NODE,
            "labels": dict(LABELS, **{"kubernetes.io/os": "linux"}),
            "annotations": {
                kr.record_annotation("device_plugin"): json.dumps(first["record"])
            },
        },
        "status": {"allocatable": {RESOURCE: "8", "cpu": "2"}},
    }
    pods = [
        {
            "kind": "Pod",
            "metadata": {"name": "ascend-device-plugin-daemonset-910-x7"},
            "status": {
                "containerStatuses": [{"name": "device-plugin-01", "ready": True}]
            },
            "spec": {"nodeName": NODE},
        }
    ]
    base = {
        "layer": "device_plugin",
        "desired": desired,
        "live": live_of(desired),
        "node": node,
        "pods": pods,
        "labels": LABELS,
        "state": STATE,
        "resource": RESOURCE,
        "expected_allocatable": 8,
        "smoke": "changed",
    }
    base.update(over)
    return base


def test_nothing_changed_skips_apply_wait_and_smoke():
    decision = kr.decide(params())
    assert decision == {
        "skip": True,
        "reasons": [],
        "smoke": False,
        "record": decision["record"],
    }
    assert "skipped as unchanged" in kr.summary("device_plugin", decision)


def test_smoke_always_runs_the_pod_but_skips_the_apply():
    decision = kr.decide(params(smoke="always"))
    assert decision["skip"] and decision["smoke"]
    assert "smoke pod run as asked" in kr.summary("device_plugin", decision)


def test_smoke_never_and_changed():
    p = params(smoke="never", state=dict(STATE, healthy=7), expected_allocatable=7)
    decision = kr.decide(p)
    assert not decision["skip"] and not decision["smoke"]
    assert decision["reasons"] == [
        "healthy changed (8 -> 7)",
        "allocatable huawei.com/Ascend910 is 8, 7 healthy chips expected",
    ]


def test_a_chip_going_unhealthy_runs_the_layer_and_the_smoke_pod():
    decision = kr.decide(params(state=dict(STATE, healthy=7), expected_allocatable=7))
    assert not decision["skip"] and decision["smoke"]
    assert "healthy changed (8 -> 7)" in decision["reasons"]


def test_a_changed_object_is_named():
    desired = copy.deepcopy(DESIRED)
    desired[2]["spec"]["template"]["spec"]["containers"][0]["image"] = (
        "ascend-k8sdeviceplugin:v26.1.0"
    )
    p = params()
    p["desired"] = kr.annotate(desired)
    decision = kr.decide(p)
    assert not decision["skip"]
    assert decision["reasons"][0] == (
        "DaemonSet/kube-system/ascend-device-plugin-daemonset-910 differs from the desired one"
    )
    assert "the objects or labels changed since the verified run" in decision["reasons"]


def test_a_missing_object_a_missing_label_and_no_record():
    p = params()
    p["live"]["ClusterRole//pods-node-ascend-device-plugin-role-910"] = None
    del p["node"]["metadata"]["labels"]["accelerate"]
    p["node"]["metadata"]["annotations"] = {}
    decision = kr.decide(p)
    assert decision["reasons"] == [
        "ClusterRole//pods-node-ascend-device-plugin-role-910 is missing",
        "node labels differ: accelerate",
        "no record of a verified run on the node",
    ]


def test_a_pod_not_ready_or_being_deleted_or_a_rollout_runs_the_layer():
    p = params()
    p["pods"][0]["status"]["containerStatuses"][0]["ready"] = False
    assert kr.decide(p)["reasons"] == ["no ready pod of the layer on the node"]
    p = params()
    p["pods"][0]["metadata"]["deletionTimestamp"] = "2026-12-05T10:00:00Z"
    assert kr.decide(p)["reasons"] == ["no ready pod of the layer on the node"]
    p = params()
    p["live"]["DaemonSet/kube-system/ascend-device-plugin-daemonset-910"]["status"][
        "updatedNumberScheduled"
    ] = 0
    assert kr.decide(p)["reasons"] == ["the DaemonSet is not rolled out"]


def test_force_runs_everything_unless_smoke_is_never():
    decision = kr.decide(params(force="asked to verify (--tags verify)"))
    assert not decision["skip"] and decision["smoke"]
    assert decision["reasons"] == ["asked to verify (--tags verify)"]
    assert kr.decide(params(force=True))["reasons"] == ["asked to verify"]
    assert not kr.decide(params(force=True, smoke="never"))["smoke"]


def test_unregistered_node_and_bad_smoke():
    decision = kr.decide(params(node=None))
    assert "the node is not registered with the cluster" in decision["reasons"]
    with pytest.raises(kr.RecordError, match="smoke must be one of"):
        kr.decide(params(smoke="sometimes"))


def test_hash_ignores_its_own_annotation_and_key_order():
    obj = DESIRED[2]
    annotated = kr.annotate([obj])[0]
    assert kr.spec_hash(annotated) == kr.spec_hash(obj)
    assert annotated["metadata"]["annotations"][kr.SPEC_ANNOTATION] == kr.spec_hash(obj)
    assert kr.annotate([annotated]) == [annotated]
    reordered = json.loads(json.dumps(obj, sort_keys=True))
    assert kr.spec_hash(reordered) == kr.spec_hash(obj)
    assert kr.annotate([None, obj]) == [annotated]
    with pytest.raises(kr.RecordError):
        kr.spec_hash({"metadata": {}})
    with pytest.raises(kr.RecordError):
        kr.annotate("not a list")


def test_paths_plurals_and_refs():
    assert kr.plural("NetworkPolicy") == "networkpolicies"
    assert kr.plural("DaemonSet") == "daemonsets"
    assert kr.plural("Ingress") == "ingresses"
    assert kr.api_path(kr.ref(DESIRED[2])) == (
        "/apis/apps/v1/namespaces/kube-system/daemonsets/ascend-device-plugin-daemonset-910"
    )
    assert kr.api_path(kr.ref(DESIRED[1])) == (
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/pods-node-ascend-device-plugin-role-910"
    )
    assert (
        kr.api_path(
            kr.ref(
                {
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": "npu-exporter"},
                }
            )
        )
        == "/api/v1/namespaces/npu-exporter"
    )
    assert (
        kr.api_path(
            kr.ref({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}})
        )
        == "/api/v1/namespaces/default/services/s"
    )
    with pytest.raises(kr.RecordError):
        kr.ref({"kind": "Service"})
    with pytest.raises(kr.RecordError):
        kr.record_annotation("a/b")


def test_trim_drops_the_node_image_list_and_keeps_pod_node():
    node = {
        "kind": "Node",
        "metadata": {"name": "n", "uid": "u", "managedFields": []},
        "status": {"images": [{"names": ["x"]}], "allocatable": {"cpu": "2"}},
    }
    assert kr.trim(node) == {
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"allocatable": {"cpu": "2"}},
    }
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": "n", "containers": [{"image": "i"}]},
    }
    assert kr.trim(pod)["spec"] == {"nodeName": "n", "images": ["i"]}
    assert kr.trim(None) is None


def test_a_broken_record_counts_as_none():
    p = params()
    p["node"]["metadata"]["annotations"][kr.record_annotation("device_plugin")] = (
        "{not json"
    )
    assert kr.decide(p)["reasons"] == ["no record of a verified run on the node"]
