# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filters the ascend_runtime tasks and handlers call instead of deciding in Jinja: the
values as the tasks hand them (booleans as text too, registered results of skipped tasks), bad
input as AnsibleFilterError."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter import (
    containerd_restart,
    containerd_restart_failure,
    cri_plugin_state,
    npu_smi_info,
    runtime_cgroup,
    runtime_check_output,
    runtime_engines,
    runtime_engines_changed,
    runtime_image,
    runtime_package_steps,
    runtime_verify,
    service_states,
)

FIXTURES = Path(__file__).parent.parent / "module_utils" / "fixtures"
SKIPPED = {
    "changed": False,
    "skipped": True,
    "skip_reason": "Conditional result was False",
}


def _filter(module, name):
    return module.FilterModule().filters()[name]


SERVICE_STATES = _filter(service_states, "service_states")
ENGINES = _filter(runtime_engines, "runtime_engines")
CGROUP = _filter(runtime_cgroup, "runtime_cgroup")
STEPS = _filter(runtime_package_steps, "runtime_package_steps")
CHANGED = _filter(runtime_engines_changed, "runtime_engines_changed")
VERIFY = _filter(runtime_verify, "runtime_verify")
IMAGE = _filter(runtime_image, "runtime_image")
OUTPUT = _filter(runtime_check_output, "runtime_check_output")
CRI = _filter(cri_plugin_state, "cri_plugin_state")
RESTART = _filter(containerd_restart, "containerd_restart")
FAILURE = _filter(containerd_restart_failure, "containerd_restart_failure")
NPU_SMI_INFO = _filter(npu_smi_info, "npu_smi_info")

FACTS = {
    "architecture": "x86_64",
    "services": {
        "docker.service": {"name": "docker.service", "state": "running"},
        "containerd.service": {"name": "containerd.service", "state": "running"},
        "kubelet.service": {"name": "kubelet.service", "state": "stopped"},
    },
}
INFO = {
    "changed": False,
    "engines": ["docker"],
    "engine": "docker",
    "kubelet": None,
    "kubelet_engine": None,
    "reason": "no kubelet on the node; docker is the running engine",
}


def test_service_states():
    assert SERVICE_STATES(FACTS) == {
        "running": ["docker.service", "containerd.service"],
        "installed": list(FACTS["services"]),
    }
    assert SERVICE_STATES({"architecture": "x86_64"}) == {
        "running": [],
        "installed": [],
    }
    with pytest.raises(AnsibleFilterError, match="ansible_facts"):
        SERVICE_STATES("docker")
    with pytest.raises(AnsibleFilterError, match="not the dict of service_facts"):
        SERVICE_STATES({"services": ["docker.service"]})


def test_runtime_engines():
    inputs = {
        "info": INFO,
        "facts": FACTS,
        "host": "node-1",
        "restart_allowed": "True",
        "restart_kubelet": "true",
    }
    out = ENGINES(inputs)
    assert out["engines"] == ["docker"] and out["engine"] == "docker"
    assert out["problem"] == "" and out["kubelet"] is None
    # kubelet.service is stopped: it is not restarted.
    assert out["kubelet_running"] is False and out["restart_kubelet"] is False
    missing = ENGINES(dict(inputs, facts={"services": {}}))
    assert missing["missing"] == ["docker"]
    assert "docker.service does not exist on node-1" in missing["problem"]
    with pytest.raises(AnsibleFilterError, match="expects a dict with info and facts"):
        ENGINES({"info": INFO})


def test_runtime_cgroup_reads_the_slurped_testbed_file():
    raw = (FIXTURES / "kubelet" / "testbed-1.34-config.yaml").read_bytes()
    slurp = {"content": base64.b64encode(raw).decode(), "encoding": "base64"}
    inputs = {
        "setting": "auto",
        "kubelet_config": slurp,
        "path": "/var/lib/kubelet/config.yaml",
    }
    assert CGROUP(inputs) == {
        "driver": "cgroupfs",
        "runtime_options": {"SystemdCgroup": False},
    }
    # No file (the slurp skipped), or not asked for (the block skipped).
    assert CGROUP(dict(inputs, kubelet_config=SKIPPED)) == {
        "driver": "",
        "runtime_options": {},
    }
    assert CGROUP(dict(inputs, setting="systemd", kubelet_config=SKIPPED)) == {
        "driver": "systemd",
        "runtime_options": {"SystemdCgroup": True},
    }
    # An empty file.
    assert CGROUP(dict(inputs, kubelet_config={"content": ""}))["driver"] == ""


def test_runtime_cgroup_refuses_bad_input():
    bad = {"content": base64.b64encode(b"a: [b\n").decode()}
    with pytest.raises(AnsibleFilterError, match=r"/k\.yaml is not YAML"):
        CGROUP({"setting": "auto", "kubelet_config": bad, "path": "/k.yaml"})
    with pytest.raises(AnsibleFilterError, match="cannot be read"):
        CGROUP(
            {"setting": "auto", "kubelet_config": {"content": "!!"}, "path": "/k.yaml"}
        )
    with pytest.raises(AnsibleFilterError, match="setting must be"):
        CGROUP({"setting": "systemd-ish", "kubelet_config": SKIPPED})
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        CGROUP("auto")


def test_runtime_package_steps():
    inputs = {
        "action": "reinstall",
        "engine": "docker",
        "docker_config": "/etc/docker/daemon.json",
        "containerd_config": "/etc/containerd/config.toml",
    }
    assert STEPS(inputs) == {
        "steps": ["uninstall", "install"],
        "engine_file": "/etc/docker/daemon.json",
    }
    with pytest.raises(
        AnsibleFilterError, match="runtime_package_steps: action must be"
    ):
        STEPS(dict(inputs, action="none"))
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        STEPS(["install"])


def test_runtime_engines_changed():
    assert CHANGED({"docker": SKIPPED, "containerd": {"changed": True}}) == [
        "containerd"
    ]
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        CHANGED(None)


def test_runtime_verify():
    inputs = {
        "check_mode": "False",
        "engine": "docker",
        "changed": ["docker"],
        "restart_allowed": "false",
        "npu_smi": {"present": True, "path": "/usr/local/sbin/npu-smi"},
        "kubelet": None,
        "set_default": "true",
    }
    assert VERIFY(inputs) == {
        "skip": "docker was not restarted (ascend_runtime_restart_allowed is false)",
        "check_default": False,
    }
    assert VERIFY(dict(inputs, restart_allowed=True)) == {
        "skip": "",
        "check_default": False,
    }
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        VERIFY(dict(inputs, npu_smi=None))


def test_runtime_image():
    inputs = {
        "engine": "docker",
        "docker": {
            "rc": 1,
            "stdout": "",
            "stderr": "Error: No such image: ubuntu:22.04",
        },
        "containerd": SKIPPED,
        "image": "ubuntu:22.04",
        "namespace": "k8s.io",
        "pull": "false",
    }
    out = IMAGE(inputs)
    assert out["present"] is False
    assert out["skip"] == (
        "image ubuntu:22.04 is not on the node (docker images) and ascend_runtime_verify_pull is "
        "false: load it, point ascend_runtime_verify_image at a local image, or set "
        "ascend_runtime_verify_pull to true"
    )
    assert IMAGE(dict(inputs, pull="yes")) == {"present": False, "skip": ""}
    with pytest.raises(AnsibleFilterError, match="engine must be docker or containerd"):
        IMAGE(dict(inputs, engine=""))


def test_runtime_check_output_is_parsed_by_npu_smi_info():
    text = (FIXTURES / "npu-smi" / "910b4-4card-24.1.rc3-noprocs.txt").read_text()
    inputs = {
        "engine": "containerd",
        "docker": SKIPPED,
        "containerd": {"rc": 0, "stdout": text},
    }
    seen = NPU_SMI_INFO(OUTPUT(inputs))
    assert seen["npu_count"] == 4
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        OUTPUT({"docker": SKIPPED})


def test_cri_plugin_state():
    lines = (FIXTURES / "containers" / "ctr-1.6.20-plugins-ls-one-ok.txt").read_text()
    assert CRI(lines.splitlines()) == "ok"
    assert CRI(None) == ""
    with pytest.raises(AnsibleFilterError, match="stdout_lines"):
        CRI(lines)


def test_containerd_restart():
    lines = (
        FIXTURES / "containers" / "ctr-1.6.20-plugins-ls-one-error.txt"
    ).read_text()
    inputs = {
        "check_mode": "false",
        "restart": {"changed": True},
        "ready": {"rc": 0, "stdout_lines": lines.splitlines()},
        "config": {"changed": True, "backup_file": "/etc/containerd/config.toml.bak"},
    }
    assert RESTART(inputs) == {"up": False, "restore": "copy"}
    assert RESTART(dict(inputs, check_mode="true")) == {"up": True, "restore": ""}
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        RESTART(dict(inputs, restart=None))


def test_containerd_restart_failure():
    inputs = {
        "path": "/etc/containerd/config.toml",
        "restart": {
            "changed": False,
            "msg": "Unable to restart service containerd: Job for containerd.service failed",
        },
        "ready": SKIPPED,
        "again": {
            "rc": 0,
            "stdout_lines": [
                "TYPE ID PLATFORMS STATUS",
                "io.containerd.grpc.v1 cri linux/amd64 ok",
            ],
        },
        "config": {"changed": True, "backup_file": "/etc/containerd/config.toml.bak"},
        "timeout": "20",
        "journal": {"rc": 0, "stdout_lines": ["refused"]},
    }
    message = FAILURE(inputs)
    assert (
        "(Unable to restart service containerd: Job for containerd.service failed)."
        in message
    )
    assert (
        "The previous file was put back from /etc/containerd/config.toml.bak and"
        in message
    )
    assert "it answers again with the previous configuration." in message
    assert "(its log: refused)" in message
    # journalctl missing: no lines.
    assert "(its log: )" in FAILURE(
        dict(inputs, journal={"rc": 2, "msg": "No such file"})
    )
    with pytest.raises(AnsibleFilterError, match="expects a dict"):
        FAILURE(dict(inputs, restart=None))
