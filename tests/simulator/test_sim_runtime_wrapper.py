# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated ascend-docker-runtime as an OCI runtime wrapper, with a recording fake runc."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from simutil import driver_pkg, runtime_pkg

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _npu_smi

WRAPPER = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
MANAGEMENT = ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]


@pytest.fixture
def host(node, tmp_path):
    """Driver and runtime installed; a fake runc that records its arguments and the spec."""
    assert (
        node.run(
            driver_pkg("24.1.0"), "--full", "--quiet", "--install-for-all"
        ).returncode
        == 0
    )
    assert node.run(runtime_pkg("7.3.0"), "--install").returncode == 0
    record = tmp_path / "runc-called"
    fake = tmp_path / "runc"
    fake.write_text(
        "#!/bin/sh\n"
        'printf "%%s\\n" "$@" > %s\n'
        'b=.; prev=; for a in "$@"; do [ "$prev" = --bundle ] && b=$a; prev=$a; done\n'
        '[ -f "$b/config.json" ] && cp "$b/config.json" %s.spec\n'
        "exit 0\n" % (record, record)
    )
    os.chmod(fake, 0o755)
    node.env["ASCEND_SIM_RUNC"] = str(fake)
    node.record = record
    return node


def bundle(tmp_path, env):
    path = tmp_path / "bundle"
    path.mkdir(exist_ok=True)
    spec = {
        "ociVersion": "1.0.2",
        "process": {"args": ["npu-smi", "info"], "env": ["PATH=/usr/bin"] + env},
        "root": {"path": "rootfs"},
        "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
        "linux": {"resources": {"devices": [{"allow": False, "access": "rwm"}]}},
    }
    (path / "config.json").write_text(json.dumps(spec))
    return path


def runtime(host, *args, cwd=None):
    return subprocess.run(
        [host.p(WRAPPER), *args],
        capture_output=True,
        text=True,
        env=host.env,
        check=False,
        cwd=cwd,
    )


def create(host, tmp_path, env, extra_global=()):
    path = bundle(tmp_path, env)
    args = [
        *extra_global,
        "create",
        "--bundle",
        str(path),
        "--pid-file",
        str(tmp_path / "pid"),
        "ctr-1",
    ]
    result = runtime(host, *args)
    spec = json.loads((path / "config.json").read_text())
    return result, spec, args


def devices(spec):
    return [d["path"] for d in spec["linux"].get("devices", [])]


def mounts(spec):
    return [m["destination"] for m in spec.get("mounts", [])]


@pytest.mark.parametrize(
    ("value", "ids"),
    [
        ("0", [0]),
        ("0-2,4", [0, 1, 2, 4]),
        ("1,3", [1, 3]),
        ("npu-1,npu-3", [1, 3]),
        ("Ascend910-5", [5]),
        ("all", list(range(8))),
        ("2,2,1-2", [1, 2]),
    ],
)
def test_selected_devices_and_mounts(host, tmp_path, value, ids):
    result, spec, args = create(host, tmp_path, ["ASCEND_VISIBLE_DEVICES=" + value])
    assert result.returncode == 0, result.stderr
    assert devices(spec) == ["/dev/davinci%d" % i for i in ids] + MANAGEMENT
    rules = spec["linux"]["resources"]["devices"]
    assert rules[0] == {"allow": False, "access": "rwm"}
    assert len(rules) == 1 + len(ids) + 3
    assert all(
        r["allow"] and r["type"] == "c" and r["access"] == "rwm" for r in rules[1:]
    )
    entry = spec["linux"]["devices"][0]
    info = os.stat(host.p("/dev/davinci%d" % ids[0]))
    assert (entry["major"], entry["minor"]) == (
        os.major(info.st_rdev),
        os.minor(info.st_rdev),
    )
    assert entry["type"] == "c" and entry["fileMode"] == 0o666
    assert mounts(spec) == [
        "/proc",
        "/usr/local/Ascend/driver/lib64",
        "/usr/local/Ascend/driver/include",
        "/usr/local/dcmi",
        "/usr/local/bin/npu-smi",  # the driver installs npu-smi in both places
        "/usr/local/sbin/npu-smi",
        "/usr/local/Ascend/driver/version.info",
        "/etc/ascend_install.info",
        "/var/lib/ascend-sim",
    ]
    added = spec["mounts"][1]
    assert added["source"] == host.p("/usr/local/Ascend/driver/lib64")
    assert "ro" in added["options"] and "rbind" in added["options"]
    # Then the real runc runs with exactly the original arguments.
    assert host.record.read_text().splitlines() == args


@pytest.mark.parametrize(
    "env", [[], ["ASCEND_VISIBLE_DEVICES=void"], ["ASCEND_VISIBLE_DEVICES="]]
)
def test_no_devices(host, tmp_path, env):
    result, spec, _args = create(host, tmp_path, env)
    assert result.returncode == 0
    assert devices(spec) == [] and mounts(spec) == ["/proc"]
    assert host.record.exists()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0,npu-1", "device ids and device names cannot be mixed"),
        ("gpu-1", "is neither an id, a range nor a name"),
        ("3-1", "range 3-1"),
        ("0,,1", "empty item"),
        ("9", "no such device /dev/davinci9"),
    ],
)
def test_invalid_visible_devices_fail_the_create(host, tmp_path, value, message):
    log = tmp_path / "log.json"
    result, spec, _args = create(
        host,
        tmp_path,
        ["ASCEND_VISIBLE_DEVICES=" + value],
        extra_global=("--root", "/run/runc", "--log", str(log), "--log-format", "json"),
    )
    assert result.returncode == 1
    assert message in result.stderr and result.stderr.startswith(
        "ascend-docker-runtime: "
    )
    assert not host.record.exists()  # runc never ran
    assert devices(spec) == []
    entry = json.loads(log.read_text().splitlines()[-1])
    assert entry["level"] == "error" and message in entry["msg"]
    assert message in host.read("/var/log/ascend-docker-runtime/runtime-run.log")


def test_runtime_options_and_mount_lists(host, tmp_path):
    result, spec, _args = create(
        host, tmp_path, ["ASCEND_VISIBLE_DEVICES=1", "ASCEND_RUNTIME_OPTIONS=NODRV"]
    )
    assert result.returncode == 0
    assert devices(spec) == ["/dev/davinci1"] + MANAGEMENT and mounts(spec) == ["/proc"]
    for options, message in (
        ("BOGUS", "only NODRV and VIRTUAL"),
        ("VIRTUAL", "not simulated"),
    ):
        result, _spec, _args = create(
            host,
            tmp_path,
            ["ASCEND_VISIBLE_DEVICES=1", "ASCEND_RUNTIME_OPTIONS=" + options],
        )
        assert result.returncode == 1 and message in result.stderr
    for value, message in (
        ("base,extra", "extra.list does not exist"),
        ("Base", "lower-case names only"),
    ):
        result, _spec, _args = create(
            host,
            tmp_path,
            ["ASCEND_VISIBLE_DEVICES=1", "ASCEND_RUNTIME_MOUNTS=" + value],
        )
        assert result.returncode == 1 and message in result.stderr


def test_other_commands_go_to_runc_unchanged(host, tmp_path):
    for args in (
        ["--root", "/run/x", "state", "ctr-1"],
        ["--version"],
        ["features"],
        ["delete", "--force", "ctr-1"],
    ):
        result = runtime(host, *args)
        assert result.returncode == 0
        assert host.record.read_text().splitlines() == args


def test_bundle_option_forms(host, tmp_path):
    for form in ("-b", "--bundle="):
        path = bundle(tmp_path, ["ASCEND_VISIBLE_DEVICES=0"])
        args = (
            ["create", form + str(path)]
            if form.endswith("=")
            else ["create", form, str(path)]
        )
        assert runtime(host, *args, "c").returncode == 0
        assert (
            devices(json.loads((path / "config.json").read_text()))
            == ["/dev/davinci0"] + MANAGEMENT
        )
    path = bundle(tmp_path, ["ASCEND_VISIBLE_DEVICES=3"])
    assert runtime(host, "create", "c", cwd=str(path)).returncode == 0  # bundle = cwd
    assert devices(json.loads((path / "config.json").read_text()))[0] == "/dev/davinci3"


def test_npu_smi_sees_only_the_devices_of_the_container(host, tmp_path):
    """What runc would make of the spec: a /dev with the selected nodes and the mounts."""
    _result, spec, _args = create(host, tmp_path, ["ASCEND_VISIBLE_DEVICES=0-2,4"])
    container = tmp_path / "container"
    (container / "dev").mkdir(parents=True)
    for device in spec["linux"]["devices"]:
        (container / device["path"].lstrip("/")).write_text("")
    for mount in spec["mounts"][1:]:
        target = container / mount["destination"].lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(mount["source"], target)
    env = dict(host.env, ASCEND_SIM_ROOT=str(container))
    smi = subprocess.run(
        [str(container / "usr/local/sbin/npu-smi"), "info"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    parsed = _npu_smi.parse_info(smi.stdout)
    assert [npu["id"] for npu in parsed["npus"]] == [0, 1, 2, 4]
    assert parsed["driver_version"] == "24.1.0"


def env_of(spec):
    return spec["process"]["env"]


@pytest.mark.parametrize(
    "env", [[], ["ASCEND_VISIBLE_DEVICES=void"], ["ASCEND_VISIBLE_DEVICES=0"]]
)
def test_every_container_gets_the_runtime_env_and_driver_libraries(host, tmp_path, env):
    result, spec, _args = create(host, tmp_path, env + ["LD_LIBRARY_PATH=/opt/lib"])
    assert result.returncode == 0, result.stderr
    assert env_of(spec)[: 1 + len(env)] == ["PATH=/usr/bin"] + env
    assert env_of(spec).count("ASCEND_DOCKER_RUNTIME=True") == 1
    assert (
        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/driver:"
        "/usr/local/Ascend/driver/lib64/common:/opt/lib"
    ) in env_of(spec)
    assert [e for e in env_of(spec) if e.startswith("LD_LIBRARY_PATH=")] == [
        e for e in env_of(spec) if "lib64" in e
    ]


def test_only_existing_driver_folders_are_added(host, tmp_path):
    os.rename(host.p("/usr/local/Ascend/driver/lib64/common"), str(tmp_path / "common"))
    _result, spec, _args = create(host, tmp_path, [])
    assert (
        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/driver"
        in env_of(spec)
    )
    os.rename(host.p("/usr/local/Ascend/driver"), str(tmp_path / "driver"))
    _result, spec, _args = create(host, tmp_path, [])
    assert env_of(spec) == ["PATH=/usr/bin", "ASCEND_DOCKER_RUNTIME=True"]


def test_device_plugin_mounts_with_mount_by_runtime_for_dp(host, tmp_path):
    host.write("/run/containerd/containerd.sock", "")
    host.write("/var/run/crio/crio.sock", "")
    _result, spec, _args = create(host, tmp_path, [])
    assert mounts(spec) == ["/proc"]  # not asked for
    _result, spec, _args = create(host, tmp_path, ["MOUNT_BY_RUNTIME_FOR_DP=true"])
    assert mounts(spec) == ["/proc", "/run/containerd", "/var/run/crio/crio.sock"]
    added = spec["mounts"][1]
    assert added["source"] == host.p("/run/containerd")
    assert added["type"] == "bind" and "ro" in added["options"]
    host.write("/run/docker.sock", "")
    os.makedirs(host.p("/run/docker"))
    _result, spec, _args = create(
        host, tmp_path, ["MOUNT_BY_RUNTIME_FOR_DP=true", "ASCEND_VISIBLE_DEVICES=1"]
    )
    assert mounts(spec)[:5] == [
        "/proc",
        "/run/docker.sock",
        "/run/docker",
        "/run/containerd",
        "/var/run/crio/crio.sock",
    ]
    assert devices(spec) == ["/dev/davinci1"] + MANAGEMENT
    log = host.read("/var/log/ascend-docker-runtime/runtime-run.log")
    assert "runtime mounts /run/docker.sock,/run/docker" in log
