# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The engines the Ascend runtime is wired into, from the kubelet's CRI endpoint (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._kubelet_engine import (
    KUBELET_DEFAULT_ENDPOINT,
    EngineRefusal,
    containerd_default_runtime,
    decide_engines,
    default_runtime_problem,
    endpoint_from_cmdline,
    endpoint_from_config,
    engine_of_endpoint,
    kubelet_endpoint,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
KUBELET = FIXTURES / "kubelet"
ENGINE = FIXTURES / "engine-config"
CONTAINERD = "unix:///run/containerd/containerd.sock"
CRI_DOCKERD = "unix:///var/run/cri-dockerd.sock"
RUNNING_BOTH = ["docker.service", "containerd.service", "kubelet.service"]


def _testbed_argv():
    raw = (KUBELET / "testbed-1.34-kubelet.cmdline").read_bytes()
    return [a.decode() for a in raw.split(b"\0") if a]


def test_testbed_config_names_containerd():
    text = (KUBELET / "testbed-1.34-config.yaml").read_text()
    assert endpoint_from_config(text) == CONTAINERD


def test_testbed_command_line_has_no_endpoint():
    # kubeadm 1.27+ puts the endpoint in the file, not on the command line.
    assert _testbed_argv()[0] == "/usr/bin/kubelet"
    assert endpoint_from_cmdline(_testbed_argv()) is None


def test_testbed_kubelet_is_containerd_from_its_file():
    config = (KUBELET / "testbed-1.34-config.yaml").read_text()
    kubelet = kubelet_endpoint([_testbed_argv()], config, True)
    assert kubelet == {
        "endpoint": CONTAINERD,
        "source": "configuration file",
        "running": True,
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["/usr/bin/kubelet", "--container-runtime-endpoint=" + CRI_DOCKERD],
        ["/usr/bin/kubelet", "--container-runtime-endpoint", CRI_DOCKERD],
        ["kubelet", "-container-runtime-endpoint=" + CRI_DOCKERD],
        [
            "kubelet",
            "--container-runtime-endpoint=" + CONTAINERD,
            "--container-runtime-endpoint=" + CRI_DOCKERD,
        ],
    ],
)
def test_command_line_spellings(argv):
    assert endpoint_from_cmdline(argv) == CRI_DOCKERD


def test_command_line_overrides_the_file():
    config = (KUBELET / "testbed-1.34-config.yaml").read_text()
    argv = _testbed_argv() + ["--container-runtime-endpoint=" + CRI_DOCKERD]
    kubelet = kubelet_endpoint([argv], config, True)
    assert kubelet["endpoint"] == CRI_DOCKERD
    assert kubelet["source"] == "command line"


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "containerRuntimeEndpoint: 'unix:///run/k3s/containerd/containerd.sock'",
            "unix:///run/k3s/containerd/containerd.sock",
        ),
        (
            'containerRuntimeEndpoint: "unix:///run/cri-dockerd.sock"  # shim',
            "unix:///run/cri-dockerd.sock",
        ),
        (
            "containerRuntimeEndpoint: unix:///var/run/crio/crio.sock # CRI-O",
            "unix:///var/run/crio/crio.sock",
        ),
        ("containerRuntimeEndpoint: ''", None),
        ("  containerRuntimeEndpoint: nested, not the kubelet's", None),
    ],
)
def test_config_values(line, expected):
    text = (
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
        + line
        + "\n"
    )
    assert endpoint_from_config(text) == expected


def test_no_kubelet_without_process_service_or_endpoint():
    assert kubelet_endpoint([], None, False) is None
    assert (
        kubelet_endpoint(
            [], "kind: KubeletConfiguration\ncgroupDriver: systemd\n", False
        )
        is None
    )


def test_running_kubelet_without_endpoint_uses_its_default():
    kubelet = kubelet_endpoint([], "cgroupDriver: systemd\n", True)
    assert kubelet == {
        "endpoint": KUBELET_DEFAULT_ENDPOINT,
        "source": "kubelet default",
        "running": True,
    }


@pytest.mark.parametrize(
    "endpoint, engine",
    [
        (CONTAINERD, "containerd"),
        ("unix:///var/run/containerd/containerd.sock", "containerd"),
        ("/run/containerd/containerd.sock", "containerd"),
        ("unix:///run/k3s/containerd/containerd.sock", "containerd"),
        (CRI_DOCKERD, "docker"),
        ("unix:///run/cri-dockerd.sock", "docker"),
        ("unix:///var/run/dockershim.sock", "docker"),
        ("unix:///var/run/crio/crio.sock", None),
        ("unix:///var/run/isulad.sock", None),
        ("", None),
    ],
)
def test_engine_of_endpoint(endpoint, engine):
    assert engine_of_endpoint(endpoint) == engine


def kubelet_on(endpoint, source="configuration file"):
    return {"endpoint": endpoint, "source": source, "running": True}


def test_the_trap_docker_asked_on_a_containerd_kubelet_wires_both():
    decision = decide_engines("docker", kubelet_on(CONTAINERD), RUNNING_BOTH)
    assert decision["engines"] == ["containerd", "docker"]
    assert decision["engine"] == "containerd"
    assert "ascend_runtime_engine is docker" in decision["reason"]


def test_auto_with_both_engines_running_is_the_kubelets():
    decision = decide_engines("auto", kubelet_on(CONTAINERD), RUNNING_BOTH)
    assert decision["engines"] == ["containerd"]
    decision = decide_engines("auto", kubelet_on(CRI_DOCKERD), RUNNING_BOTH)
    assert decision["engines"] == ["docker"]


def test_containerd_asked_on_a_cri_dockerd_kubelet_wires_both():
    decision = decide_engines("containerd", kubelet_on(CRI_DOCKERD), RUNNING_BOTH)
    assert decision["engines"] == ["docker", "containerd"]
    assert decision["engine"] == "docker"


def test_same_engine_asked_is_listed_once():
    decision = decide_engines("containerd", kubelet_on(CONTAINERD), RUNNING_BOTH)
    assert decision["engines"] == ["containerd"]


def test_cri_o_is_refused_with_the_endpoint_named():
    with pytest.raises(EngineRefusal) as info:
        decide_engines(
            "auto", kubelet_on("unix:///var/run/crio/crio.sock"), ["crio.service"]
        )
    assert "unix:///var/run/crio/crio.sock" in str(info.value)
    assert "configuration file" in str(info.value)


@pytest.mark.parametrize(
    "running, requested, engines",
    [
        (["docker.service", "containerd.service"], "auto", ["docker"]),
        (["containerd.service"], "auto", ["containerd"]),
        ([], "auto", []),
        (["docker.service"], "containerd", ["containerd"]),
    ],
)
def test_without_kubelet_as_before(running, requested, engines):
    assert decide_engines(requested, None, running)["engines"] == engines


def test_unknown_request_is_refused():
    with pytest.raises(EngineRefusal):
        decide_engines("crio", None, [])


@pytest.mark.parametrize(
    "fixture, default",
    [
        ("containerd-1.6.20-default.toml", "runc"),
        ("containerd-1.7.24-default.toml", "runc"),
        ("containerd-2.1.9-default.toml", "runc"),
        ("cks-v2-runsc-kata.toml", "runc"),
    ],
)
def test_containerd_default_runtime_of_real_files(fixture, default):
    assert containerd_default_runtime((ENGINE / fixture).read_text()) == default


def test_containerd_default_runtime_after_the_role():
    text = (ENGINE / "containerd-1.6.20-default.toml").read_text()
    text = text.replace(
        'default_runtime_name = "runc"', 'default_runtime_name = "ascend"'
    )
    assert containerd_default_runtime(text) == "ascend"


def test_containerd_default_runtime_refuses_other_text():
    with pytest.raises(ValueError):
        containerd_default_runtime("not = [toml")
    with pytest.raises(ValueError):
        containerd_default_runtime(
            'version = 2\n[plugins."io.containerd.internal.v1.opt"]\n'
        )


def test_problem_of_the_trap_names_endpoint_default_daemon_json_and_row():
    message = default_runtime_problem(
        kubelet_on(CONTAINERD), "containerd", "runc", "ascend", "ascend"
    )
    assert CONTAINERD in message
    assert "default runtime is runc, not ascend" in message
    assert "Only Docker's daemon.json has ascend" in message
    assert "T22" in message
    assert "site.yml --tags ascend_runtime" in message


def test_no_problem_when_the_kubelets_engine_defaults_to_the_runtime():
    assert (
        default_runtime_problem(
            kubelet_on(CONTAINERD), "containerd", "ascend", "ascend", None
        )
        == ""
    )


def test_problem_without_docker_does_not_blame_daemon_json():
    message = default_runtime_problem(
        kubelet_on(CRI_DOCKERD), "docker", "runc", "ascend", "runc"
    )
    assert "daemon.json has" not in message
    assert "cri-dockerd" in message


def test_absent_takes_the_runtime_out_of_every_installed_engine():
    installed = ["docker.service", "containerd.service", "kubelet.service"]
    decision = decide_engines(
        "auto", kubelet_on(CONTAINERD), RUNNING_BOTH, installed, "absent"
    )
    assert decision["engines"] == ["containerd", "docker"]
    assert decision["engine"] == "containerd"
    decision = decide_engines(
        "auto", None, ["containerd.service"], ["containerd.service"], "absent"
    )
    assert decision["engines"] == ["containerd"]


def test_present_does_not_add_installed_engines():
    installed = ["docker.service", "containerd.service"]
    decision = decide_engines("auto", kubelet_on(CONTAINERD), RUNNING_BOTH, installed)
    assert decision["engines"] == ["containerd"]
