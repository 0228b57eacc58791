# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_k8s_read: one client, the paths it reads, 404 as null, refusals with their cause."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_k8s_read

NODE = {
    "kind": "Node",
    "metadata": {
        "name": "node-1",
        "labels": {"accelerator": "huawei-Ascend910"},
        "uid": "u",
    },
    "status": {
        "allocatable": {"huawei.com/Ascend910": "8"},
        "images": [{"names": ["x"]}],
    },
}
DS_PATH = (
    "/apis/apps/v1/namespaces/kube-system/daemonsets/ascend-device-plugin-daemonset"
)
PODS = {
    "items": [
        {
            "kind": "Pod",
            "metadata": {"name": "a"},
            "spec": {"nodeName": "node-1", "containers": []},
        },
        {
            "kind": "Pod",
            "metadata": {"name": "b"},
            "spec": {"nodeName": "other", "containers": []},
        },
    ]
}


class FakeApiException(Exception):
    def __init__(self, status, reason="Forbidden"):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class FakeReader:
    instances: list = []
    answers: dict = {}

    def __init__(self, kubeconfig):
        self.kubeconfig = kubeconfig
        self.paths = []
        FakeReader.instances.append(self)

    def get(self, path, query=None):
        self.paths.append((path, query))
        answer = FakeReader.answers.get(path)
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture(autouse=True)
def fake_client(monkeypatch):
    FakeReader.instances = []
    FakeReader.answers = {
        "/api/v1/nodes/node-1": NODE,
        DS_PATH: {"kind": "DaemonSet", "metadata": {"generation": 3}, "status": {}},
        "/api/v1/namespaces/kube-system/pods": PODS,
    }
    monkeypatch.setattr(ascend_k8s_read, "HAS_KUBERNETES", True)
    monkeypatch.setattr(
        ascend_k8s_read, "ApiException", FakeApiException, raising=False
    )
    monkeypatch.setattr(ascend_k8s_read, "Reader", FakeReader)


ARGS = {
    "kubeconfig": "/root/.kube/config",
    "nodes": ["node-1", "node-2"],
    "objects": [
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "ascend-device-plugin-daemonset",
                "namespace": "kube-system",
            },
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "r"},
        },
    ],
    "pods": [
        {"namespace": "kube-system", "label_selector": "name=ascend-device-plugin-ds"}
    ],
    "crds": ["servicemonitors.monitoring.coreos.com"],
}


def test_everything_in_one_client(module_runner):
    result, _calls = module_runner(ascend_k8s_read.main, dict(ARGS))
    assert "failed" not in result and result["changed"] is False
    assert len(FakeReader.instances) == 1
    assert result["nodes"]["node-1"]["status"] == {
        "allocatable": {"huawei.com/Ascend910": "8"}
    }
    assert result["nodes"]["node-2"] is None
    assert result["objects"]["DaemonSet/kube-system/ascend-device-plugin-daemonset"][
        "metadata"
    ] == {"generation": 3}
    assert result["objects"]["ClusterRole//r"] is None
    assert [p["metadata"]["name"] for p in result["pods"]["node-1"]] == ["a"]
    assert result["pods"]["node-2"] == []
    assert result["crds"] == {"servicemonitors.monitoring.coreos.com": False}
    assert (
        "/api/v1/namespaces/kube-system/pods",
        {"labelSelector": "name=ascend-device-plugin-ds"},
    ) in FakeReader.instances[0].paths


def test_a_refusal_names_what_was_read(module_runner):
    FakeReader.answers[DS_PATH] = FakeApiException(403)
    result, _calls = module_runner(ascend_k8s_read.main, dict(ARGS))
    assert result["failed"] is True
    assert (
        "refused to read DaemonSet/kube-system/ascend-device-plugin-daemonset: 403"
        in result["msg"]
    )


def test_an_unreachable_api_and_bad_input(module_runner):
    FakeReader.answers["/api/v1/nodes/node-1"] = ConnectionRefusedError(
        "connection refused"
    )
    result, _calls = module_runner(ascend_k8s_read.main, dict(ARGS))
    assert result["failed"] is True
    assert "cannot be reached from " in result["msg"]
    assert "(reading Node node-1)" in result["msg"]
    assert "Fix: the kubeconfig" in result["msg"]
    result, _calls = module_runner(
        ascend_k8s_read.main, dict(ARGS, pods=[{"namespace": "kube-system"}])
    )
    assert result["failed"] is True and "label_selector" in result["msg"]
    result, _calls = module_runner(
        ascend_k8s_read.main, dict(ARGS, objects=[{"kind": "DaemonSet"}])
    )
    assert (
        result["failed"] is True
        and "apiVersion, kind and metadata.name" in result["msg"]
    )


def test_without_the_kubernetes_library(module_runner, monkeypatch):
    monkeypatch.setattr(ascend_k8s_read, "HAS_KUBERNETES", False)
    result, _calls = module_runner(ascend_k8s_read.main, dict(ARGS))
    assert result["failed"] is True and "kubernetes" in result["msg"]
