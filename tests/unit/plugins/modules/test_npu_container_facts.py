# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""npu_container_facts with run_command patched, answering with real docker and ctr output."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.module_utils import basic

from ansible_collections.cubestudio.ascend.plugins.modules import npu_container_facts

FIXTURES = Path(__file__).parents[1] / "module_utils" / "fixtures" / "containers"
TRAIN_JOB = "3b715f32782d2350b8d08e7054363257ca77759a92d90c61eb323c659657dfe5"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


@pytest.fixture
def programs(monkeypatch):
    """Which programs get_bin_path finds (timeout is left out: argv stay readable)."""
    found = {"docker": "/usr/bin/docker", "ctr": "/usr/bin/ctr"}

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return found.get(name)

    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", get_bin_path)
    return found


@pytest.fixture
def socket(tmp_path):
    path = tmp_path / "containerd.sock"
    path.write_text("")
    return str(path)


def engines(socket_path):
    """A fake docker + containerd answering with the captured outputs."""

    def answer(argv):
        if argv[:2] == ["/usr/bin/docker", "ps"]:
            return 0, fixture("docker-20.10.24-ps-q.txt"), ""
        if argv[:2] == ["/usr/bin/docker", "inspect"]:
            return 0, fixture("docker-20.10.24-inspect.json"), ""
        assert argv[:3] == ["/usr/bin/ctr", "--address", socket_path]
        rest = argv[3:]
        if rest == ["namespaces", "list", "-q"]:
            return 0, fixture("ctr-1.6.20-namespaces-q.txt"), ""
        if rest[2:] == ["tasks", "list"]:
            return 0, fixture("ctr-1.6.20-tasks-%s.txt" % rest[1]), ""
        if rest[2:4] == ["containers", "info"]:
            name = rest[4]
            if rest[1] == "moby":
                assert len(name) == 64
                if name != TRAIN_JOB:
                    return 1, "", "ctr: container %s: not found" % name
                name = "moby-train-job"
            return 0, fixture("ctr-1.6.20-info-%s.json" % name), ""
        raise AssertionError(argv)

    return answer


def test_both_engines(module_runner, programs, socket):
    result, calls = module_runner(
        npu_container_facts.main, {"containerd_address": socket}, engines(socket)
    )
    assert "failed" not in result
    assert result["changed"] is False
    fact = result["ansible_facts"]["ascend_npu_containers"]
    names = [(c["engine"], c["name"]) for c in fact["containers"]]
    # train-job appears in Docker and in containerd's moby namespace: listed once.
    assert names == [
        ("docker", "dev-bind"),
        ("docker", "env-job"),
        ("docker", "train-job"),
        ("containerd", "model"),
    ]
    assert fact["errors"] == []
    assert fact["engines"]["docker"] == {
        "present": True,
        "running": True,
        "containers": 4,
        "error": None,
    }
    assert fact["engines"]["containerd"]["namespaces"] == ["k8s.io", "moby"]
    assert fact["engines"]["containerd"]["containers"] == 6
    assert calls[0] == ["/usr/bin/docker", "ps", "-q", "--no-trunc"]
    assert calls[1][:2] == ["/usr/bin/docker", "inspect"]
    assert len(calls[1]) == 6


def test_containerd_only(module_runner, programs, socket):
    result, calls = module_runner(
        npu_container_facts.main,
        {"containerd_address": socket, "engines": ["containerd"]},
        engines(socket),
    )
    fact = result["ansible_facts"]["ascend_npu_containers"]
    assert [(c["namespace"], c["name"]) for c in fact["containers"]] == [
        ("k8s.io", "model"),
        ("moby", TRAIN_JOB),
    ]
    assert "docker" not in fact["engines"]
    assert all(c[0] == "/usr/bin/ctr" for c in calls)


def test_no_engine_installed(module_runner, programs, socket):
    programs.clear()
    result, calls = module_runner(
        npu_container_facts.main, {"containerd_address": socket}, []
    )
    fact = result["ansible_facts"]["ascend_npu_containers"]
    assert calls == []
    assert fact["containers"] == []
    assert fact["engines"]["docker"]["present"] is False
    assert fact["engines"]["containerd"]["present"] is False


def test_daemons_not_running_is_no_container(module_runner, programs, tmp_path):
    answers = [(1, "", fixture("docker-20.10.24-ps-no-daemon.txt"))]
    result, calls = module_runner(
        npu_container_facts.main,
        {"containerd_address": str(tmp_path / "absent.sock")},
        answers,
    )
    fact = result["ansible_facts"]["ascend_npu_containers"]
    assert "failed" not in result
    assert fact["containers"] == []
    assert fact["engines"]["docker"]["running"] is False
    assert fact["engines"]["containerd"] == {
        "present": True,
        "running": False,
        "containers": 0,
        "namespaces": [],
        "error": None,
    }
    assert len(calls) == 1


def test_containerd_socket_without_daemon_fails(module_runner, programs, socket):
    programs.pop("docker")
    answers = [(1, "", fixture("ctr-1.6.20-no-daemon.txt").splitlines()[0])]
    result, _calls = module_runner(
        npu_container_facts.main, {"containerd_address": socket}, answers
    )
    assert result["failed"] is True
    assert result["msg"].startswith("cannot tell which containers use the NPUs:")
    assert "failed to dial" in result["msg"]


def test_errors_without_failing(module_runner, programs, socket):
    answers = [
        (
            1,
            "",
            "permission denied while trying to connect to the Docker daemon socket",
        ),
        (1, "", "ctr: failed to dial"),
    ]
    result, _calls = module_runner(
        npu_container_facts.main,
        {"containerd_address": socket, "fail_on_error": False},
        answers,
    )
    assert "failed" not in result
    errors = result["ansible_facts"]["ascend_npu_containers"]["errors"]
    assert len(errors) == 2
    assert errors[0].startswith(
        "docker: docker ps failed with exit code 1: permission denied"
    )
    assert errors[1].startswith("containerd: containerd's socket")


def test_container_gone_between_ps_and_inspect(module_runner, programs, socket):
    programs.pop("ctr")
    records = fixture("docker-20.10.24-inspect.json")
    answers = [
        (0, fixture("docker-20.10.24-ps-q.txt") + "f" * 64 + "\n", ""),
        (1, records, "Error: No such object: " + "f" * 64),
    ]
    result, _calls = module_runner(npu_container_facts.main, {}, answers)
    fact = result["ansible_facts"]["ascend_npu_containers"]
    assert [c["name"] for c in fact["containers"]] == [
        "dev-bind",
        "env-job",
        "train-job",
    ]


def test_unreadable_inspect_is_an_error(module_runner, programs):
    programs.pop("ctr")
    answers = [(0, TRAIN_JOB + "\n", ""), (0, "not json", "")]
    result, _calls = module_runner(npu_container_facts.main, {}, answers)
    assert result["failed"] is True
    assert "docker inspect did not print JSON" in result["msg"]


def test_unreadable_task_list_is_an_error(module_runner, programs, socket):
    programs.pop("docker")
    answers = [(0, "k8s.io\n", ""), (0, "something else\n", "")]
    result, _calls = module_runner(
        npu_container_facts.main, {"containerd_address": socket}, answers
    )
    assert result["failed"] is True
    assert "unexpected header of ctr tasks list" in result["msg"]


def test_timeout_wraps_every_call(module_runner, programs, socket):
    programs["timeout"] = "/usr/bin/timeout"
    programs.pop("ctr")
    answers = [(0, "", "")]
    _result, calls = module_runner(npu_container_facts.main, {"timeout": 7}, answers)
    assert calls == [
        [
            "/usr/bin/timeout",
            "--kill-after=5",
            "7",
            "/usr/bin/docker",
            "ps",
            "-q",
            "--no-trunc",
        ]
    ]


def test_timeout_must_be_positive(module_runner, programs):
    result, _calls = module_runner(npu_container_facts.main, {"timeout": 0}, [])
    assert result["failed"] is True
    assert "timeout must be a positive number" in result["msg"]
