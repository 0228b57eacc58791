# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which containers use Ascend devices, read from real docker inspect / ctr output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._containers import (
    ContainersParseError,
    containerd_usage,
    docker_is_down,
    docker_usage,
    is_device_path,
    live_tasks,
    oci_usage,
    parse_ctr_tasks,
    parse_ids,
    parse_json,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "containers"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def docker_records() -> dict:
    records = json.loads(fixture("docker-20.10.24-inspect.json"))
    return {r["Name"].lstrip("/"): r for r in records}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/dev/davinci0", True),
        ("/dev/davinci15", True),
        ("/dev/davinci_manager", True),
        ("/dev/devmm_svm", True),
        ("/dev/hisi_hdc", True),
        ("/dev/davinci", False),
        ("/dev/davinci0x", False),
        ("/dev/null", False),
        ("/usr/local/dcmi", False),
        ("dev/davinci0", False),
        (None, False),
        (3, False),
    ],
)
def test_device_paths(path, expected):
    assert is_device_path(path) is expected


def test_docker_train_job_maps_devices_not_the_dcmi_mount():
    usage = docker_usage(docker_records()["train-job"])
    assert usage["devices"] == [
        "/dev/davinci0",
        "/dev/davinci1",
        "/dev/davinci_manager",
        "/dev/devmm_svm",
        "/dev/hisi_hdc",
    ]
    assert usage["reasons"] == ["devices"]
    assert usage["uses_npu"] is True
    assert usage["all_devices"] is False
    assert usage["running"] is True
    assert usage["engine"] == "docker"
    assert usage["name"] == "train-job"
    assert usage["image"] == "cubestudio/workload:latest"
    assert usage["runtime"] == "runc"
    assert usage["id"].startswith("3b715f32782d")


def test_docker_env_job_counts_through_the_runtime_variable():
    usage = docker_usage(docker_records()["env-job"])
    assert usage["devices"] == []
    assert usage["visible_devices"] == "2,3"
    assert usage["reasons"] == ["env"]
    assert usage["uses_npu"] is True


def test_docker_dev_bind_sees_every_device():
    usage = docker_usage(docker_records()["dev-bind"])
    assert usage["all_devices"] is True
    assert usage["reasons"] == ["dev_mount"]


def test_docker_privileged_sees_every_device():
    usage = docker_usage(docker_records()["priv-created"])
    assert usage["privileged"] is True
    assert usage["all_devices"] is True
    assert usage["reasons"] == ["privileged"]
    assert usage["running"] is False


def test_docker_plain_container_does_not_count():
    usage = docker_usage(docker_records()["plain-web"])
    assert usage["uses_npu"] is False
    assert usage["reasons"] == []
    assert usage["visible_devices"] is None


@pytest.mark.parametrize("name", ["created-only", "exited"])
def test_docker_stopped_containers_are_not_running(name):
    usage = docker_usage(docker_records()[name])
    assert usage["running"] is False
    assert usage["uses_npu"] is True


def test_docker_running_ids_are_the_ps_output():
    running = {r["Id"] for r in docker_records().values() if docker_usage(r)["running"]}
    assert set(parse_ids(fixture("docker-20.10.24-ps-q.txt"))) == running


def test_docker_record_must_be_an_object():
    with pytest.raises(ContainersParseError):
        docker_usage(["not", "a", "record"])


def test_docker_daemon_down_is_recognised():
    assert docker_is_down(fixture("docker-20.10.24-ps-no-daemon.txt"))
    assert not docker_is_down("permission denied while trying to connect")
    assert not docker_is_down(fixture("ctr-1.6.20-no-daemon.txt"))


def test_containerd_pod_container():
    info = json.loads(fixture("ctr-1.6.20-info-infer-ctr.json"))
    usage = containerd_usage(info, "k8s.io")
    assert usage["devices"] == ["/dev/davinci2"]
    assert usage["visible_devices"] == "2"
    assert usage["reasons"] == ["devices", "env"]
    assert usage["pod"] == "serving/infer-0"
    assert usage["name"] == "model"
    assert usage["namespace"] == "k8s.io"
    assert usage["engine"] == "containerd"
    assert usage["image"] == "docker.io/cubestudio/workload:latest"
    assert usage["runtime"] == "io.containerd.runc.v2"


def test_containerd_idle_container_does_not_count():
    info = json.loads(fixture("ctr-1.6.20-info-idle-ctr.json"))
    usage = containerd_usage(info, "k8s.io")
    assert usage["uses_npu"] is False
    assert usage["pod"] is None
    assert usage["name"] == "idle-ctr"


def test_containerd_sees_docker_containers_in_moby():
    info = json.loads(fixture("ctr-1.6.20-info-moby-train-job.json"))
    usage = containerd_usage(info, "moby")
    docker = docker_usage(docker_records()["train-job"])
    assert usage["id"] == docker["id"]
    assert usage["devices"] == docker["devices"]


def test_oci_spec_mounts():
    spec = {
        "process": {"env": ["PATH=/bin"]},
        "mounts": [
            {"destination": "/dev", "type": "bind", "source": "/dev", "options": []},
            {
                "destination": "/dev/davinci4",
                "type": "none",
                "source": "/dev/davinci4",
                "options": ["rbind", "rw"],
            },
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {
                "destination": "/dev/hisi_hdc",
                "type": "tmpfs",
                "source": "/dev/hisi_hdc",
            },
        ],
    }
    usage = oci_usage(spec)
    assert usage["devices"] == ["/dev/davinci4"]
    assert usage["all_devices"] is True
    assert usage["reasons"] == ["devices", "dev_mount"]


def test_oci_devices_sort_numerically():
    spec = {"linux": {"devices": [{"path": "/dev/davinci%d" % n} for n in (10, 2, 1)]}}
    assert oci_usage(spec)["devices"] == [
        "/dev/davinci1",
        "/dev/davinci2",
        "/dev/davinci10",
    ]


def test_oci_spec_missing():
    with pytest.raises(ContainersParseError):
        containerd_usage({"ID": "x", "Spec": None}, "default")
    with pytest.raises(ContainersParseError):
        containerd_usage([], "default")


def test_ctr_tasks_k8s():
    tasks = parse_ctr_tasks(fixture("ctr-1.6.20-tasks-k8s.io.txt"))
    assert tasks == [
        {"id": "infer-ctr", "pid": 664, "status": "RUNNING"},
        {"id": "idle-ctr", "pid": 713, "status": "RUNNING"},
    ]
    assert live_tasks(tasks) == ["infer-ctr", "idle-ctr"]


def test_ctr_tasks_moby_match_docker_ps():
    tasks = parse_ctr_tasks(fixture("ctr-1.6.20-tasks-moby.txt"))
    assert sorted(live_tasks(tasks)) == sorted(
        parse_ids(fixture("docker-20.10.24-ps-q.txt"))
    )


def test_ctr_tasks_stopped_are_not_live():
    text = "TASK    PID    STATUS\nweb     0      STOPPED\napi     12     PAUSED\n"
    assert live_tasks(parse_ctr_tasks(text)) == ["api"]


@pytest.mark.parametrize(
    "text",
    [
        "ID PID STATUS\nx 1 RUNNING\n",
        "TASK PID STATUS\nx RUNNING\n",
        "TASK PID STATUS\nx pid RUNNING\n",
    ],
)
def test_ctr_tasks_unknown_text_is_an_error(text):
    with pytest.raises(ContainersParseError):
        parse_ctr_tasks(text)


def test_ctr_tasks_empty_output():
    assert parse_ctr_tasks("") == []
    assert parse_ctr_tasks("TASK    PID    STATUS    \n") == []


def test_namespaces():
    assert parse_ids(fixture("ctr-1.6.20-namespaces-q.txt")) == ["k8s.io", "moby"]


def test_parse_json_error():
    with pytest.raises(ContainersParseError, match="docker inspect did not print JSON"):
        parse_json("Error: No such object: x", "docker inspect")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
_KEYS = st.sampled_from(
    [
        "HostConfig",
        "Config",
        "State",
        "Mounts",
        "Devices",
        "Env",
        "Name",
        "Id",
        "Spec",
        "linux",
        "devices",
        "mounts",
        "process",
        "env",
        "path",
        "source",
        "type",
        "options",
        "Labels",
        "Runtime",
        "Privileged",
        "Running",
        "PathOnHost",
        "Source",
        "Image",
        "ID",
    ]
)
# Records shaped like the real ones (known keys at every level) with any JSON values.
_RECORDS = st.recursive(
    _JSON,
    lambda children: (
        st.dictionaries(_KEYS, children, max_size=6) | st.lists(children, max_size=3)
    ),
    max_leaves=30,
)


@given(_RECORDS)
def test_any_json_record_is_read_or_refused(value):
    """Whatever JSON a broken engine prints: a result or ContainersParseError, never a crash."""
    readers = (docker_usage, oci_usage, lambda v: containerd_usage(v, "ns"))
    for reader in readers:
        try:
            usage = reader(value)
        except ContainersParseError:
            continue
        assert isinstance(usage["uses_npu"], bool)
        assert all(is_device_path(d) for d in usage["devices"])


def test_only_the_ascend_environment_and_the_version_labels_leave_the_node():
    """The doctor's image checks (rows T48, T49) read a container's ASCEND_*/LD_LIBRARY_PATH and
    its cubestudio.ascend/ labels; every other variable (a secret, perhaps) and label stays."""
    info = json.loads(fixture("ctr-1.6.20-info-infer-ctr.json"))
    usage = containerd_usage(info, "k8s.io")
    assert usage["env"] == {"ASCEND_VISIBLE_DEVICES": "2"}
    assert usage["labels"] == {}
    info["Spec"]["process"]["env"] += [
        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver",
        "ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest",
        "HF_TOKEN=secret",
        "BROKEN",
    ]
    # The CRI copies the image's labels into the container's.
    info["Labels"]["cubestudio.ascend/cann-version"] = "8.5.0"
    usage = containerd_usage(info, "k8s.io")
    assert usage["env"] == {
        "ASCEND_VISIBLE_DEVICES": "2",
        "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64/driver",
        "ASCEND_TOOLKIT_HOME": "/usr/local/Ascend/ascend-toolkit/latest",
    }
    assert usage["labels"] == {"cubestudio.ascend/cann-version": "8.5.0"}
    record = docker_records()["env-job"]
    record["Config"]["Labels"] = {
        "cubestudio.ascend/driver-version": "25.5.0",
        "maintainer": "x",
    }
    usage = docker_usage(record)
    assert usage["env"] == {"ASCEND_VISIBLE_DEVICES": "2,3"}
    assert usage["labels"] == {"cubestudio.ascend/driver-version": "25.5.0"}
