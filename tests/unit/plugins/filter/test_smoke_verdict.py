# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The smoke_verdict filter: one NPU is fine; no npu-smi in the pod or every NPU names the
Ascend runtime as not the default of the kubelet's engine (from the Node); Pending says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.smoke_verdict import (
    FilterModule,
)

FILTER = FilterModule().filters()["smoke_verdict"]
FIXTURES = Path(__file__).resolve().parents[1] / "module_utils" / "fixtures" / "npu-smi"
EIGHT = (FIXTURES / "910b3-8card-23.0.7-with-processes.txt").read_text()
TWO = (FIXTURES / "910b2-2card-26.0.rc1-wide-with-container-pid.txt").read_text()
ONE = (FIXTURES / "310p3-1card-22.0.0-driver-22.0.2.txt").read_text()
R = "huawei.com/Ascend910"


def node(version="containerd://1.6.20"):
    return {"status": {"nodeInfo": {"containerRuntimeVersion": version}}}


def pod(phase, **state):
    status = {"phase": phase}
    if state:
        status["containerStatuses"] = [{"state": state}]
    return {"status": status}


def test_exactly_one_npu_is_ok_two_is_not():
    verdict = FILTER(pod("Succeeded"), ONE, node(), R)
    assert verdict == {
        "ok": True,
        "npu_count": 1,
        "phase": "Succeeded",
        "engine": "containerd",
        "cause": "",
    }
    verdict = FILTER(pod("Succeeded"), TWO, node(), R)
    assert not verdict["ok"] and verdict["npu_count"] == 2
    assert "The pod saw 2 NPUs" in verdict["cause"]


def test_no_npu_smi_in_the_pod_names_the_kubelet_s_engine():
    ended = {
        "terminated": {
            "reason": "StartError",
            "message": 'failed to create containerd task: exec: "npu-smi": '
            "executable file not found in $PATH: unknown",
        }
    }
    verdict = FILTER(pod("Failed", **ended), "", node(), R)
    assert not verdict["ok"] and verdict["engine"] == "containerd"
    cause = verdict["cause"]
    assert "npu-smi is not in the pod" in cause
    assert (
        "the Ascend runtime is not the default runtime of containerd, the engine the "
        "kubelet uses (the Node reports containerd://1.6.20; default_runtime_name in "
        "/etc/containerd/config.toml)"
    ) in cause
    assert "daemon.json" in cause and "T22" in cause


def test_docker_through_cri_dockerd_and_an_unknown_engine():
    verdict = FILTER(
        pod("Failed"), "sh: npu-smi: not found", node("docker://24.0.7"), R
    )
    assert "default runtime of docker" in verdict["cause"]
    assert "default-runtime in /etc/docker/daemon.json" in verdict["cause"]
    verdict = FILTER(pod("Failed"), "sh: npu-smi: not found", None, R)
    assert "default runtime of unknown" in verdict["cause"]


def test_every_npu_listed_and_pending():
    verdict = FILTER(pod("Succeeded"), EIGHT, node(), R)
    assert verdict["npu_count"] == 8
    assert "The pod saw 8 NPUs" in verdict["cause"]
    assert "containerd" in verdict["cause"]
    for phase_pod in (pod("Pending"), {}):
        verdict = FILTER(phase_pod, "", node(), R)
        assert not verdict["ok"]
        assert "no free huawei.com/Ascend910" in verdict["cause"]


def test_another_failure_is_reported_as_it_is():
    verdict = FILTER(pod("Failed", terminated={"reason": "OOMKilled"}), "", node(), R)
    assert verdict["cause"].startswith("The pod ended Failed (OOMKilled")


def test_wrong_types():
    with pytest.raises(AnsibleFilterError, match="Pod object"):
        FILTER("pod", "", {}, R)
    with pytest.raises(AnsibleFilterError, match="Node object"):
        FILTER({}, "", "node", R)


# The pod status the kubelet writes when its device manager cannot allocate at admission, as on
# a node whose device plugin is re-registering (kubelet 1.34, pkg/kubelet/lifecycle).
REFUSED = {
    "status": {
        "phase": "Failed",
        "reason": "UnexpectedAdmissionError",
        "message": "Pod was rejected: Allocate failed due to no healthy devices present; "
        "cannot allocate unhealthy devices huawei.com/Ascend910, which is unexpected",
    }
}


def test_a_pod_refused_at_admission_is_named_and_started_again():
    from ansible_collections.cubestudio.ascend.plugins.filter.smoke_admission_refused import (
        FilterModule as Refused,
    )

    refused = Refused().filters()["smoke_admission_refused"]
    assert refused(REFUSED) is True
    # A pod that ran and failed, one still pending, none at all: not refused at admission.
    assert refused(pod("Failed", terminated={"reason": "Error"})) is False
    assert refused(pod("Pending")) is False
    assert refused(None) is False
    with pytest.raises(AnsibleFilterError):
        refused("ascend-smoke-node-1")
    verdict = FILTER(REFUSED, "", node(), R)
    assert not verdict["ok"] and verdict["phase"] == "Failed"
    assert (
        "refused the pod at admission (UnexpectedAdmissionError: Pod was rejected"
        in (verdict["cause"])
    )
    assert "tried twice" in verdict["cause"]
