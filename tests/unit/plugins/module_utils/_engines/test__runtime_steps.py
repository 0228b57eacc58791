# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_runtime role's decisions between its steps (issue 23), on the test bed's kubelet
files and ctr's own output (fixtures/kubelet, fixtures/containers)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._kubelet_engine import (
    decide_engines,
    kubelet_endpoint,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    CHECK_MODE,
    NO_NPU_DRIVER,
    cgroup_options,
    changed_engines,
    check_output,
    containerd_failure,
    containerd_restart,
    cri_plugin_state,
    engine_choice,
    image_state,
    package_steps,
    service_states,
    verify_decision,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
KUBELET = FIXTURES / "kubelet"
CONTAINERS = FIXTURES / "containers"
NPU_SMI = FIXTURES / "npu-smi"

# service_facts' shape (ansible.builtin.service_facts RETURN): name -> name, state, status, source.
SERVICES = {
    "containerd.service": {
        "name": "containerd.service",
        "state": "running",
        "status": "enabled",
        "source": "systemd",
    },
    "kubelet.service": {
        "name": "kubelet.service",
        "state": "running",
        "status": "enabled",
        "source": "systemd",
    },
    "docker.service": {
        "name": "docker.service",
        "state": "stopped",
        "status": "disabled",
        "source": "systemd",
    },
    "ssh.service": {
        "name": "ssh.service",
        "state": "running",
        "status": "enabled",
        "source": "systemd",
    },
}


def _ctr_lines(name):
    return (CONTAINERS / name).read_text().splitlines()


def _testbed_info(requested="auto", state="present"):
    """container_engine_info's answer on the test bed's node (its kubelet files)."""
    raw = (KUBELET / "testbed-1.34-kubelet.cmdline").read_bytes()
    argv = [a.decode() for a in raw.split(b"\0") if a]
    config = (KUBELET / "testbed-1.34-config.yaml").read_text()
    kubelet = kubelet_endpoint([argv], config, True)
    running = service_states(SERVICES)["running"]
    info = decide_engines(requested, kubelet, running, list(SERVICES), state)
    return dict(info, kubelet=kubelet)


def test_service_states():
    states = service_states(SERVICES)
    assert states["running"] == [
        "containerd.service",
        "kubelet.service",
        "ssh.service",
    ]
    assert states["installed"] == list(SERVICES)
    # service_facts found nothing: no services fact at all.
    assert service_states(None) == {"running": [], "installed": []}


def test_engine_choice_on_the_testbed():
    choice = engine_choice(_testbed_info(), SERVICES, "node-1")
    assert choice["engines"] == ["containerd"]
    assert choice["engine"] == "containerd"
    assert choice["kubelet"]["endpoint"] == "unix:///run/containerd/containerd.sock"
    assert choice["missing"] == [] and choice["problem"] == ""
    assert choice["kubelet_running"] is True
    assert choice["restart_kubelet"] is True
    assert (
        engine_choice(_testbed_info(), SERVICES, "n", restart_kubelet=False)[
            "restart_kubelet"
        ]
        is False
    )
    assert (
        engine_choice(_testbed_info(), SERVICES, "n", restart_allowed=False)[
            "restart_kubelet"
        ]
        is False
    )


def test_engine_choice_refuses_a_missing_engine():
    services = {k: v for k, v in SERVICES.items() if k != "docker.service"}
    info = _testbed_info(requested="docker")
    choice = engine_choice(info, services, "node-1")
    assert choice["engines"] == ["containerd", "docker"]
    assert choice["missing"] == ["docker"]
    assert choice["problem"] == (
        "The Ascend runtime goes into containerd and docker (%s) but docker.service does not "
        "exist on node-1: install docker first, or set ascend_runtime_engine to the engine the "
        "node uses." % info["reason"]
    )


def test_engine_choice_refuses_no_engine():
    info = decide_engines("auto", None, ["ssh.service"], ["ssh.service"])
    choice = engine_choice(dict(info, kubelet=None), {}, "node-1")
    assert choice["engines"] == [] and choice["kubelet_running"] is False
    assert choice["problem"].startswith("No container engine runs on node-1 (neither")
    assert choice["restart_kubelet"] is False


def test_cgroup_options_from_the_testbed_kubelet():
    config = yaml.safe_load((KUBELET / "testbed-1.34-config.yaml").read_text())
    assert cgroup_options("auto", config) == {
        "driver": "cgroupfs",
        "runtime_options": {"SystemdCgroup": False},
    }
    # The setting wins over the file.
    assert cgroup_options("systemd", config) == {
        "driver": "systemd",
        "runtime_options": {"SystemdCgroup": True},
    }


@pytest.mark.parametrize(
    "config", [None, {}, "not a mapping", {"cgroupDriver": None}, {"kind": "x"}]
)
def test_cgroup_options_unknown_driver_enforces_nothing(config):
    assert cgroup_options("auto", config) == {"driver": "", "runtime_options": {}}


def test_cgroup_options_an_unknown_value_is_kept_but_not_enforced():
    assert cgroup_options("auto", {"cgroupDriver": " weird "}) == {
        "driver": "weird",
        "runtime_options": {},
    }


@pytest.mark.parametrize(
    "action, steps",
    [
        ("install", ["install"]),
        ("upgrade", ["upgrade"]),
        ("reinstall", ["uninstall", "install"]),
        ("uninstall", ["uninstall"]),
    ],
)
def test_package_steps(action, steps):
    out = package_steps(action, "docker", "/etc/docker/daemon.json", "/etc/c.toml")
    assert out == {"steps": steps, "engine_file": "/etc/docker/daemon.json"}
    assert package_steps(action, "containerd", "/d", "/c")["engine_file"] == "/c"


def test_package_steps_refuses_none():
    with pytest.raises(ValueError, match="action must be one of"):
        package_steps("none", "docker", "/d", "/c")


def test_changed_engines():
    skipped = {"changed": False, "skipped": True}
    assert changed_engines({"docker": skipped, "containerd": {"changed": True}}) == [
        "containerd"
    ]
    assert changed_engines(
        {"docker": {"changed": True}, "containerd": {"changed": True}}
    ) == [
        "docker",
        "containerd",
    ]
    assert changed_engines({}) == []
    assert changed_engines({"docker": {"results": [{"changed": True}]}}) == ["docker"]


def _verify(**kw):
    args = {
        "check_mode": False,
        "engine": "containerd",
        "changed": [],
        "restart_allowed": True,
        "npu_smi_present": True,
        "kubelet": {"endpoint": "unix:///run/containerd/containerd.sock"},
        "set_default": True,
    }
    args.update(kw)
    return verify_decision(**args)


def test_verify_decision():
    assert _verify() == {"skip": "", "check_default": True}
    assert _verify(check_mode=True, npu_smi_present=False) == {
        "skip": CHECK_MODE,
        "check_default": False,
    }
    held = _verify(changed=["containerd"], restart_allowed=False)
    assert held == {
        "skip": "containerd was not restarted (ascend_runtime_restart_allowed is false)",
        "check_default": False,
    }
    # Changed and restarted: the check runs.
    assert _verify(changed=["containerd"]) == {"skip": "", "check_default": True}
    # Not restarted, but nothing changed: the engine runs its file.
    assert _verify(restart_allowed=False)["skip"] == ""
    assert _verify(npu_smi_present=False) == {
        "skip": NO_NPU_DRIVER,
        "check_default": True,
    }
    assert _verify(kubelet=None)["check_default"] is False
    assert _verify(set_default=False)["check_default"] is False


def test_image_state_docker():
    present = image_state("docker", {"docker": {"rc": 0}}, "img", "k8s.io", False)
    assert present == {"present": True, "skip": ""}
    absent = image_state("docker", {"docker": {"rc": 1}}, "img", "k8s.io", False)
    assert absent["present"] is False
    assert absent["skip"].startswith("image img is not on the node (docker images) and")
    # Pulled next: no reason to skip.
    assert image_state("docker", {"docker": {"rc": 1}}, "img", "k8s.io", True) == {
        "present": False,
        "skip": "",
    }


def test_image_state_containerd():
    results = {"docker": {"skipped": True}, "containerd": {"rc": 0, "stdout": "\n"}}
    absent = image_state("containerd", results, "img", "k8s.io", False)
    assert absent["present"] is False
    assert "(containerd namespace k8s.io)" in absent["skip"]
    results["containerd"]["stdout"] = "docker.io/library/ubuntu:22.04\n"
    assert image_state("containerd", results, "img", "k8s.io", False)["present"] is True
    with pytest.raises(ValueError, match="docker or containerd"):
        image_state("cri-o", results, "img", "k8s.io", False)


def test_check_output_picks_the_engine_that_ran():
    text = (NPU_SMI / "910b4-4card-24.1.rc3-noprocs.txt").read_text()
    results = {"docker": {"skipped": True}, "containerd": {"rc": 0, "stdout": text}}
    assert check_output("containerd", results) == text
    assert check_output("docker", results) == ""


def test_cri_plugin_state_on_ctr_output():
    assert (
        cri_plugin_state(_ctr_lines("ctr-1.6.20-plugins-ls-cri-not-listed.txt")) == ""
    )
    assert cri_plugin_state(_ctr_lines("ctr-1.6.20-plugins-ls-one-ok.txt")) == "ok"
    assert (
        cri_plugin_state(_ctr_lines("ctr-1.6.20-plugins-ls-one-error.txt")) == "error"
    )
    # The header is never a row, even when it would match.
    assert cri_plugin_state(["TYPE ID PLATFORMS ok"]) == ""
    assert cri_plugin_state(None) == ""


def test_containerd_restart():
    ok = {"rc": 0, "stdout_lines": _ctr_lines("ctr-1.6.20-plugins-ls-one-ok.txt")}
    error = {"rc": 0, "stdout_lines": _ctr_lines("ctr-1.6.20-plugins-ls-one-error.txt")}
    restarted = {"changed": True}
    backup = {"changed": True, "backup_file": "/etc/containerd/config.toml.1.bak"}
    assert containerd_restart(False, restarted, ok, backup) == {
        "up": True,
        "restore": "",
    }
    assert containerd_restart(False, restarted, error, backup) == {
        "up": False,
        "restore": "copy",
    }
    # The file did not exist before: it goes.
    assert containerd_restart(False, restarted, error, {"changed": True}) == {
        "up": False,
        "restore": "remove",
    }
    # The restart failed (changed false), the wait was skipped.
    failed = {"changed": False, "failed": False, "msg": "Unable to restart"}
    assert containerd_restart(False, failed, {"skipped": True}, backup)["up"] is False
    # Timed out: rc of the last try.
    assert (
        containerd_restart(False, restarted, {"rc": 1, "stdout_lines": []}, backup)[
            "up"
        ]
        is False
    )
    # Check mode: nothing was restarted, nothing goes back.
    assert containerd_restart(True, {"changed": True}, {"skipped": True}, {}) == {
        "up": True,
        "restore": "",
    }


def test_containerd_failure_restart_failed_file_put_back():
    # systemd_service's message when containerd refuses to start, as the test fault gives it.
    restart = {
        "changed": False,
        "failed": False,
        "msg": "Unable to restart service containerd: Job for containerd.service failed because\n"
        "the control process exited with error code.",
    }
    again = {"rc": 0, "stdout_lines": _ctr_lines("ctr-1.6.20-plugins-ls-one-ok.txt")}
    config = {
        "changed": True,
        "backup_file": "/etc/containerd/config.toml.2026-12-05@00:00:00~",
    }
    message = containerd_failure(
        "/etc/containerd/config.toml",
        restart,
        {"skipped": True},
        again,
        config,
        20,
        ["containerd: invalid cgroup driver", "containerd.service: Failed"],
    )
    assert message == (
        "containerd did not come back after /etc/containerd/config.toml was changed for the "
        "Ascend runtime (Unable to restart service containerd: Job for containerd.service failed "
        "because the control process exited with error code.). The previous file was put back "
        "from /etc/containerd/config.toml.2026-12-05@00:00:00~ and containerd was restarted: it "
        "answers again with the previous configuration. The Ascend runtime is not configured: "
        "fix what containerd refuses (its log: containerd: invalid cgroup driver | "
        "containerd.service: Failed) and run again."
    )


def test_containerd_failure_causes():
    restarted = {"changed": True}
    silent = {"rc": 1, "stdout_lines": []}
    error = {"rc": 0, "stdout_lines": _ctr_lines("ctr-1.6.20-plugins-ls-one-error.txt")}
    timed_out = containerd_failure("/c.toml", restarted, silent, silent, {}, 20, [])
    assert "(it did not answer within 20 s)." in timed_out
    assert "The file did not exist before and was removed and containerd" in timed_out
    assert "it still does not answer, see journalctl -u containerd." in timed_out
    assert "(its log: )" in timed_out
    not_ok = containerd_failure("/c.toml", restarted, error, silent, {}, 20, [])
    assert (
        "(its CRI plugin is not ok: TYPE ID PLATFORMS STATUS "
        "io.containerd.snapshotter.v1 devmapper linux/amd64 error)." in not_ok
    )
