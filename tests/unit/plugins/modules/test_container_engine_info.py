# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""container_engine_info with a fake /proc and the test bed's kubelet files, run_command patched."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.module_utils import basic

from ansible_collections.cubestudio.ascend.plugins.modules import container_engine_info

FIXTURES = Path(__file__).parents[1] / "module_utils" / "fixtures"
KUBELET = FIXTURES / "kubelet"
ENGINE = FIXTURES / "engine-config"
BOTH = ["docker.service", "containerd.service", "kubelet.service"]


@pytest.fixture
def programs(monkeypatch):
    found = {"docker": "/usr/bin/docker", "containerd": "/usr/bin/containerd"}
    monkeypatch.setattr(
        basic.AnsibleModule,
        "get_bin_path",
        lambda self, name, required=False, opt_dirs=None: found.get(name),
    )


@pytest.fixture
def node(tmp_path):
    """A /proc with the test bed's kubelet (pid 812) and a shell, and the kubelet's file."""
    proc = tmp_path / "proc"
    (proc / "812").mkdir(parents=True)
    (proc / "812" / "cmdline").write_bytes(
        (KUBELET / "testbed-1.34-kubelet.cmdline").read_bytes()
    )
    (proc / "1").mkdir()
    (proc / "1" / "cmdline").write_bytes(b"/lib/systemd/systemd\0")
    (proc / "self").mkdir()
    config = tmp_path / "config.yaml"
    config.write_text((KUBELET / "testbed-1.34-config.yaml").read_text())
    daemon = tmp_path / "daemon.json"
    daemon.write_text(
        '{"runtimes": {"ascend": {"path": "/x"}}, "default-runtime": "ascend"}\n'
    )
    return {"proc": proc, "config": config, "daemon": daemon, "root": tmp_path}


def args(node, **extra):
    base = {
        "proc_root": str(node["proc"]),
        "kubelet_config": str(node["config"]),
        "docker_config": str(node["daemon"]),
        "containerd_config": str(node["root"] / "config.toml"),
        "running_services": BOTH,
    }
    base.update(extra)
    return base


def test_docker_asked_on_the_test_bed_kubelet_wires_both(module_runner, node):
    result, calls = module_runner(
        container_engine_info.main, args(node, engine="docker")
    )
    assert "failed" not in result
    assert result["engines"] == ["containerd", "docker"]
    assert result["engine"] == "containerd"
    assert result["kubelet"]["source"] == "configuration file"
    assert result["kubelet"]["engine"] == "containerd"
    assert calls == []


def test_the_trap_is_named(module_runner, node, programs):
    dump = (ENGINE / "containerd-1.6.20-default.toml").read_text()
    result, calls = module_runner(
        container_engine_info.main, args(node, check_default=True), [(0, dump, "")]
    )
    assert calls[0][:4] == [
        "/usr/bin/containerd",
        "--config",
        str(node["root"] / "config.toml"),
        "config",
    ]
    assert result["default_runtime"] == "runc"
    assert "Only Docker's daemon.json has ascend" in result["problem"]
    assert "T22" in result["problem"]


def test_cri_o_is_refused(module_runner, node):
    (node["proc"] / "812" / "cmdline").write_bytes(
        b"/usr/bin/kubelet\0--container-runtime-endpoint=unix:///var/run/crio/crio.sock\0"
    )
    result, _calls = module_runner(container_engine_info.main, args(node))
    assert result["failed"]
    assert "unix:///var/run/crio/crio.sock (from its command line)" in result["msg"]


def test_absent_skips_an_engine_without_its_file(module_runner, node):
    result, _calls = module_runner(
        container_engine_info.main,
        args(node, state="absent", installed_services=BOTH),
    )
    # containerd is the kubelet's engine; Docker's daemon.json exists, so Docker is cleaned too.
    assert result["engines"] == ["containerd", "docker"]
    node["daemon"].unlink()
    result, _calls = module_runner(
        container_engine_info.main,
        args(node, state="absent", installed_services=BOTH),
    )
    assert result["engines"] == ["containerd"]
