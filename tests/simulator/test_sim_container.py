# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Inside a simulated node container: Docker and containerd run containers through the
simulated ascend-docker-runtime, and a container sees only the NPUs it asked for.

One node container per test session (about half a minute in all). These tests FAIL when
Docker, the node image or the workload image is missing; set
ASCEND_SIM_SKIP_CONTAINER_TESTS=1 to skip them instead. Select them with ``-m container``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import tarfile
import time

import pytest
from ascend_sim import artifacts, catalog
from simutil import HERE

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _npu_smi

pytestmark = pytest.mark.container

REPO = os.path.dirname(os.path.dirname(HERE))
NODE_IMAGE = os.environ.get("ASCEND_SIM_NODE_IMAGE", "cubestudio/ascend-node:latest")
WORKLOAD = os.path.join(REPO, ".build", "images", "workload.tar")
RUNTIME = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _docker(*args, **kw):
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, check=False, **kw
    )


class Node:
    def __init__(self, name):
        self.name = name

    def sh(self, command, stdin=None, check=True, timeout=120):
        result = subprocess.run(
            ["docker", "exec", "-i", self.name, "bash", "-c", command],
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            pytest.fail(
                "in the node: %s\nrc=%d\n%s%s"
                % (command, result.returncode, result.stdout, result.stderr)
            )
        return result

    def wait_for_systemd(self):
        deadline = time.time() + 60
        state = ""
        while time.time() < deadline:
            state = self.sh("systemctl is-system-running", check=False).stdout.strip()
            if state in ("running", "degraded"):
                return
            time.sleep(0.5)
        pytest.fail("systemd in %s did not start (state %r)" % (self.name, state))

    def wait_active(self, unit, timeout=60):
        """Until systemd reports ``unit`` active (not a fixed pause); fail with its status."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if (
                self.sh("systemctl is-active --quiet %s" % unit, check=False).returncode
                == 0
            ):
                return
            time.sleep(0.5)
        status = self.sh("systemctl status --no-pager %s" % unit, check=False).stdout
        pytest.fail("%s did not become active in %d s:\n%s" % (unit, timeout, status))

    def start_engines(self):
        self.sh("systemctl start containerd docker")
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.sh("docker info", check=False).returncode == 0:
                return
            time.sleep(0.5)
        pytest.fail("docker did not start in the node")


def _preconditions():
    if os.environ.get("ASCEND_SIM_SKIP_CONTAINER_TESTS") == "1":
        pytest.skip("ASCEND_SIM_SKIP_CONTAINER_TESTS=1")
    try:
        info = _docker("info", timeout=30)
    except FileNotFoundError:
        pytest.fail(
            "docker CLI not found (install docker.io, or set ASCEND_SIM_SKIP_CONTAINER_TESTS=1)"
        )
    if info.returncode != 0:
        pytest.fail(
            "Docker does not answer (run tools/bootstrap.sh dockerd, or set "
            "ASCEND_SIM_SKIP_CONTAINER_TESTS=1): %s" % info.stderr.strip()
        )
    if _docker("image", "inspect", NODE_IMAGE).returncode != 0:
        pytest.fail("node image %s missing: run tools/bootstrap.sh images" % NODE_IMAGE)
    if not os.path.isfile(WORKLOAD):
        pytest.fail(
            "workload image %s missing: run tools/bootstrap.sh images" % WORKLOAD
        )


def _copy_in(name, source_dir, arcname, target_dir):
    """tar source_dir (as arcname) into target_dir of the container."""
    with subprocess.Popen(
        ["docker", "exec", "-i", name, "tar", "-C", target_dir, "-x"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        with tarfile.open(fileobj=proc.stdin, mode="w|") as archive:
            archive.add(
                source_dir,
                arcname=arcname,
                filter=lambda info: None if "__pycache__" in info.name else info,
            )
        proc.stdin.close()
        proc.wait(timeout=120)
        assert proc.returncode == 0, proc.stderr.read()


@pytest.fixture(scope="session")
def node(tmp_path_factory):
    """A 910B3 x 8 node: simulator in /opt/ascend-sim, driver 24.1.0, firmware, runtime 26.1.0."""
    _preconditions()
    name = "ascend-sim-pytest-%d" % os.getpid()
    volumes = ["%s-docker" % name, "%s-containerd" % name]
    run = _docker(
        "run", "-d", "--name", name, "--hostname", "ascend-sim-node",
        "--cgroupns=private",
        "--cap-add", "SYS_ADMIN", "--cap-add", "NET_ADMIN", "--cap-add", "SYS_PTRACE",
        "--tmpfs", "/run", "--tmpfs", "/run/lock", "--tmpfs", "/tmp", "--tmpfs", "/sys/fs/cgroup:rw",
        "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
        "-v", "%s:/var/lib/docker" % volumes[0], "-v", "%s:/var/lib/containerd" % volumes[1],
        NODE_IMAGE,
    )  # fmt: skip
    if run.returncode != 0:
        pytest.fail("cannot start the node container: %s" % run.stderr)
    handle = Node(name)
    try:
        handle.wait_for_systemd()
        packages = str(tmp_path_factory.mktemp("node-packages"))
        arch = platform.machine()
        artifacts.build(
            packages, trains=("24.1.0", "26.1.0"), arches=(arch,), chips=("910b",)
        )
        handle.sh("mkdir -p /opt /root/packages")
        _copy_in(name, HERE, "ascend-sim", "/opt")
        _copy_in(name, packages, ".", "/root/packages")
        copied = _docker("cp", "-L", WORKLOAD, "%s:/root/workload.tar" % name)
        assert copied.returncode == 0, copied.stderr
        handle.driver = catalog.driver_file("910b", "24.1.0", arch)
        handle.firmware = catalog.firmware_file("910b", "7.5.0.2.220")
        handle.runtime = catalog.docker_runtime_file("26.1.0", arch)
        handle.legacy_runtime = catalog.docker_runtime_file("6.0.0", arch)
        handle.sh(
            "/opt/ascend-sim/bin/ascend-sim hw-init --model 910B3 --cards 8 "
            "--sysfs-root /var/lib/ascend-sim/sys"
        )
        handle.sh(
            "groupadd -g 1000 HwHiAiUser && useradd -u 1000 -g HwHiAiUser -m HwHiAiUser"
        )
        handle.sh(
            "bash /root/packages/%s --nox11 --full --quiet --install-for-all"
            % handle.driver
        )
        fw = handle.sh(
            "bash /root/packages/%s --nox11 --full --quiet" % handle.firmware,
            check=False,
        )
        assert fw.returncode == 2, fw.stdout + fw.stderr
        handle.sh("bash /root/packages/%s --install" % handle.runtime, stdin="y\n")
        handle.start_engines()
        handle.sh("docker import /root/workload.tar ascend-workload:latest >/dev/null")
        handle.sh("mkdir -p /root/rootfs && tar -C /root/rootfs -xf /root/workload.tar")
        yield handle
    finally:
        _docker("rm", "-f", "-v", name)
        for volume in volumes:
            _docker("volume", "rm", "-f", volume)


def docker_run(
    node, env_value, command="npu-smi info", runtime="--runtime=ascend", check=True
):
    env = "" if env_value is None else "-e ASCEND_VISIBLE_DEVICES=%s" % env_value
    return node.sh(
        "docker run --rm %s %s ascend-workload:latest sh -c '%s'"
        % (runtime, env, command),
        check=check,
    )


def npu_ids(text):
    return [npu["id"] for npu in _npu_smi.parse_info(text)["npus"]]


def test_node_has_the_simulated_hardware(node):
    parsed = _npu_smi.parse_info(node.sh("npu-smi info").stdout)
    assert (parsed["npu_count"], parsed["driver_version"], parsed["healthy"]) == (
        8,
        "24.1.0",
        True,
    )
    lines = node.sh("lspci | grep d802").stdout.splitlines()
    assert len(lines) == 8
    assert (
        "c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)"
        in lines
    )
    assert (
        node.sh("docker info --format '{{.DefaultRuntime}}'").stdout.strip() == "ascend"
    )


def test_docker_one_npu(node):
    result = docker_run(node, "0")
    assert npu_ids(result.stdout) == [0]
    devices = docker_run(node, "0", "ls /dev").stdout.split()
    assert [d for d in devices if d.startswith(("davinci", "devmm", "hisi"))] == [
        "davinci0",
        "davinci_manager",
        "devmm_svm",
        "hisi_hdc",
    ]


def test_docker_range_and_list(node):
    assert npu_ids(docker_run(node, "0-2,4").stdout) == [0, 1, 2, 4]
    assert npu_ids(docker_run(node, "npu-5,npu-7").stdout) == [5, 7]


def test_docker_void_and_no_variable(node):
    for value in ("void", None):
        out = docker_run(
            node, value, "ls /dev; command -v npu-smi || echo NO-NPU-SMI"
        ).stdout
        assert "davinci" not in out and "NO-NPU-SMI" in out


def test_docker_default_runtime_is_ascend(node):
    assert npu_ids(docker_run(node, "3", runtime="").stdout) == [3]


def test_docker_invalid_value_fails_the_container(node):
    result = docker_run(node, "0,npu-1", "true", check=False)
    assert result.returncode != 0
    assert "ascend-docker-runtime: invalid ASCEND_VISIBLE_DEVICES" in result.stderr


def test_runc_runtime_bypasses_ascend(node):
    out = docker_run(node, "0", "ls /dev", runtime="--runtime=runc").stdout
    assert "davinci" not in out


def test_containerd_through_the_runtime(node):
    result = node.sh(
        "ctr run --rm --rootfs --cpu-shares 0 --runc-binary %s --env %s --env ASCEND_VISIBLE_DEVICES=1 "
        "/root/rootfs sim-ctr-1 npu-smi info" % (RUNTIME, PATH_ENV)
    )
    assert npu_ids(result.stdout) == [1]
    log = node.sh("tail -n 20 /var/log/ascend-docker-runtime/runtime-run.log").stdout
    assert "create sim-ctr-1: devices /dev/davinci1" in log


def test_containerd_accepts_the_edited_configurations(node):
    """containerd 1.6 restarts with the config.toml of the legacy and the modern installer."""
    node.sh("cp /etc/containerd/config.toml /root/config.toml.orig")
    try:
        node.sh("containerd config default > /etc/containerd/config.toml")
        node.sh(
            "bash /root/packages/%s --install --install-scene=containerd"
            % node.legacy_runtime
        )
        node.sh("systemctl restart containerd")
        node.wait_active("containerd")
        dump = node.sh("containerd config dump").stdout
        assert (
            'runtime = "%s"' % RUNTIME in dump
        )  # cgroup v1 branch: io.containerd.runtime.v1.linux
        node.sh(
            "bash /root/packages/%s --install --install-scene=containerd"
            % node.runtime,
            stdin="y\n",
        )
        node.sh("systemctl restart containerd")
        node.wait_active("containerd")
        dump = node.sh("containerd config dump").stdout
        assert 'default_runtime_name = "ascend"' in dump
        assert 'BinaryName = "%s"' % RUNTIME in dump
    finally:
        node.sh(
            "cp /root/config.toml.orig /etc/containerd/config.toml && systemctl restart containerd"
        )
        node.sh("bash /root/packages/%s --install" % node.runtime, stdin="y\n")
        node.sh("systemctl restart docker")
    assert npu_ids(docker_run(node, "6").stdout) == [6]


def test_reboot_activates_firmware_and_recreates_devices(node):
    """A container restart is the node's reboot: /dev is new, the boot unit brings the NPUs back."""
    board = _npu_smi.parse_board(node.sh("npu-smi info -t board -i 0").stdout)
    assert board["firmware_version"] == "7.1.0.11.220"  # flashed, not yet active
    restarted = _docker("restart", "-t", "10", node.name, timeout=120)
    assert restarted.returncode == 0, restarted.stderr
    node.wait_for_systemd()
    assert (
        node.sh("systemctl is-active ascend-sim-boot.service").stdout.strip()
        == "active"
    )
    board = _npu_smi.parse_board(node.sh("npu-smi info -t board -i 0").stdout)
    assert (board["firmware_version"], board["compatibility"]) == ("7.5.0.2.220", "OK")
    assert (
        "reboot:       not needed"
        in node.sh("/opt/ascend-sim/bin/ascend-sim state show").stdout
    )
    node.start_engines()
    assert npu_ids(docker_run(node, "0-7").stdout) == list(range(8))


# ----------------------------------------------------------------------------- Huawei's tools
# As an operator or Huawei's scripts call them on the node: the bare name from PATH (through
# the driver's /usr/bin/hccn_tool link), as root and as the run user (HwHiAiUser).

AS_USER = "runuser -u HwHiAiUser -- "


@pytest.mark.parametrize("user", ["", AS_USER], ids=["root", "HwHiAiUser"])
def test_hccn_tool_by_its_bare_name_through_the_driver_s_link(node, user):
    assert (
        node.sh("readlink /usr/bin/hccn_tool").stdout.strip()
        == "/usr/local/Ascend/driver/tools/hccn_tool"
    )
    assert node.sh("command -v hccn_tool").stdout.strip() == "/usr/bin/hccn_tool"
    assert node.sh(user + "hccn_tool -i 0 -link -g").stdout == "link status: UP\n"
    assert node.sh(user + "hccn_tool -i 0 -mtu -g").stdout == "mtu:1500\n"
    # -cfg status is a get: the run user may ask; set commands stay root's.
    assert (
        node.sh(user + "hccn_tool -i 0 -cfg status").stdout == "config status:SUCCESS\n"
    )
    v6 = node.sh(user + "hccn_tool -i 0 -ip -inet6 -g", check=False)
    assert (v6.returncode, v6.stderr) == (
        13,
        "Get ipconf failed, because no ip was preset there!\n",
    )
    if user:
        refused = node.sh(user + "hccn_tool -i 0 -mtu -s size 9000", check=False)
        assert (refused.returncode, refused.stderr) == (
            12,
            "permission denied: pls check this cmd run permission.\n",
        )


@pytest.mark.parametrize("user", ["", AS_USER], ids=["root", "HwHiAiUser"])
def test_npu_smi_product_topo_and_mcu_version(node, user):
    product = node.sh(user + "npu-smi info -t product -i 0 -c 0").stdout
    assert product.startswith("        Product Type                   : ")
    full = _npu_smi.parse_key_values(
        node.sh(user + "npu-smi info -t product -i 0").stdout
    )
    assert full[0] == {"NPU ID": "0", "Chip Count": "1"}
    topo = node.sh(user + "npu-smi info -t topo").stdout.split("\n\nLegend:")[0]
    lines = topo.splitlines()
    assert lines[0].split() == ["NPU%d" % n for n in range(8)] + ["CPU", "Affinity"]
    assert [line.split()[0] for line in lines[1:]] == ["NPU%d" % n for n in range(8)]
    assert lines[1].split()[1:9] == ["X"] + ["HCCS"] * 7
    mcu = node.sh(user + "npu-smi upgrade -b mcu -i 0 | grep Version").stdout
    assert mcu.split(":")[-1].strip() == "23.3.13"
    bad = node.sh(user + "npu-smi upgrade -b mcu -i 9", check=False)
    assert bad.returncode == 255 and "Invalid card id." in bad.stdout
