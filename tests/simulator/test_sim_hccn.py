# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated hccn_tool against a temporary root (facts: /work/shared/ascend/hccn.md)."""

from __future__ import annotations

import os
import stat
import subprocess
import threading

import pytest
from ascend_sim import hardware
from simutil import SimRoot, driver_pkg

TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"


def hccn(node, *args, env=None):
    run_env = dict(node.env)
    run_env.update(env or {})
    return subprocess.run(
        [node.p(TOOL), *[str(a) for a in args]],
        capture_output=True,
        text=True,
        env=run_env,
        check=False,
    )


def ok(node, *args, env=None):
    result = hccn(node, *args, env=env)
    assert result.returncode == 0, (result.stdout, result.stderr)
    return result.stdout


def conf(node):
    return node.read("/etc/hccn.conf")


def make_node(sim, name, fabric, model="910B3", cards=8, chip="910b"):
    sim.env["ASCEND_SIM_FABRIC"] = fabric
    sim.add_hwhiaiuser()
    sim.hw_init("--model", model, "--cards", str(cards), "--node-id", name)
    result = sim.run(driver_pkg("24.1.0", chip=chip), "--full", "--quiet")
    assert result.returncode == 0, result.stdout
    return sim


@pytest.fixture
def fabric(tmp_path):
    path = tmp_path / "fabric"
    path.mkdir()
    return str(path)


@pytest.fixture
def a(sim, fabric):
    return make_node(sim, "node-a", fabric)


@pytest.fixture
def b(tmp_path, monkeypatch, packages, fabric):
    root = tmp_path / "root-b"
    root.mkdir()
    other = SimRoot(root, monkeypatch, packages)
    return make_node(other, "node-b", fabric)


def test_installed_as_regular_file_555_with_an_empty_conf(a):
    info = os.lstat(a.p(TOOL))
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o555
    assert info.st_uid == 0 and info.st_gid == 0
    assert conf(a) == ""
    assert stat.S_IMODE(os.stat(a.p("/etc/hccn.conf")).st_mode) == 0o644


def test_nothing_configured(a):
    result = hccn(a, "-i", 0, "-ip", "-g")
    assert (result.returncode, result.stdout) == (13, "")
    assert result.stderr == "Get ipconf failed, because no ip was preset there!\n"
    result = hccn(a, "-i", 0, "-gateway", "-g")
    assert result.returncode == 2
    assert result.stderr == "Get gateway failed, because no gateway was preset there!\n"
    assert ok(a, "-i", 0, "-netdetect", "-g") == "netdetect addr: 0.0.0.0\n"
    assert ok(a, "-i", 0, "-link", "-g") == "link status: UP\n"
    assert ok(a, "-i", 0, "-mtu", "-g") == "mtu:1500\n"
    # Init before detection (hccn.md; MindCluster counts it healthy): no detect address yet.
    assert ok(a, "-i", 0, "-net_health", "-g") == "net health status: Init\n"


def test_set_and_get_write_hccn_conf_and_state(a):
    a.write("/etc/hccn.conf", "# kept\nudp_port_mode_0=auto\naddress_0=10.9.9.9\n")
    out = ok(
        a, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0"
    )
    assert out == "Cmd executed successfully!\n"
    assert ok(a, "-i", 0, "-ip", "-g") == "ipaddr:10.20.0.2\nnetmask:255.255.255.0\n"
    ok(a, "-i", 0, "-gateway", "-s", "gateway", "10.20.0.1")
    ok(a, "-i", 0, "-netdetect", "-s", "address", "10.20.0.1")
    ok(a, "-i", 0, "-mtu", "-s", "size", "9000")
    assert ok(a, "-i", 0, "-gateway", "-g") == "default gateway:10.20.0.1, Iface:eth0\n"
    assert ok(a, "-i", 0, "-netdetect", "-g") == "netdetect addr: 10.20.0.1\n"
    assert ok(a, "-i", 0, "-mtu", "-g") == "mtu:9000\n"
    assert ok(a, "-i", 0, "-net_health", "-g") == "net health status: Success\n"
    # other keys and comments kept; a key set again moves to the end
    assert conf(a) == (
        "# kept\nudp_port_mode_0=auto\naddress_0=10.20.0.2\nnetmask_0=255.255.255.0\n"
        "gateway_0=10.20.0.1\nnetdetect_0=10.20.0.1\nmtu_0=9000\n"
    )
    net = a.state()["npus"][0]["chips"][0]["network"]
    assert net == {
        "address": "10.20.0.2",
        "netmask": "255.255.255.0",
        "gateway": "10.20.0.1",
        "netdetect": "10.20.0.1",
        "mtu": 9000,
    }
    # no JSON pod view any more: in pods the sh front answers from the device view
    assert not a.exists("/usr/local/Ascend/driver/tools/ascend-sim-hccn.view")


def test_ip_in_another_subnet_drops_the_gateway(a):
    ok(a, "-i", 1, "-ip", "-s", "address", "10.20.0.3", "netmask", "255.255.255.0")
    ok(a, "-i", 1, "-gateway", "-s", "gateway", "10.20.0.1")
    ok(a, "-i", 1, "-ip", "-s", "address", "10.30.0.3", "netmask", "255.255.255.0")
    assert hccn(a, "-i", 1, "-gateway", "-g").returncode == 2
    assert "gateway_1" not in conf(a)


@pytest.mark.parametrize(
    ("args", "rc", "message"),
    [
        (
            ["-ip", "-s", "address", "10.20.0.256", "netmask", "255.255.255.0"],
            6,
            "The ip address you configured is invalid!",
        ),
        (
            ["-ip", "-s", "address", "10.20.0.2", "netmask", "255.0.255.0"],
            6,
            "The ip address you configured is invalid!",
        ),
        (
            ["-ip", "-s", "address", "192.168.1.20", "netmask", "255.255.255.0"],
            7,
            "The ip address configured is conflicted!",
        ),
        (
            ["-ip", "-s", "address", "10.20.0.2"],
            4,
            "The total count of input parameters is wrong!",
        ),
        (
            ["-gateway", "-s", "gateway", "10.20.0.1"],
            26,
            "Unable to configure gateway, because ip is not configured!",
        ),
        (
            ["-mtu", "-s", "size", "9703"],
            13,
            "The value of mtu you input is out of the valid range!",
        ),
        (
            ["-mtu", "-s", "size", "67"],
            13,
            "The value of mtu you input is out of the valid range!",
        ),
        (["-tls", "-s", "enable", "2"], 16, "Get invalid enable value!"),
        (
            ["-netdetect", "-s", "address", "255.255.255.255"],
            6,
            "Can not config broadcast address!",
        ),
        (["-nosuch", "-g"], 3, "Get invalid major cmd."),
        (["-ip", "-x"], 3, "Get unknown option!"),
    ],
)
def test_refusals_change_nothing(a, args, rc, message):
    before = (conf(a), a.state())
    result = hccn(a, "-i", 2, *args)
    assert result.returncode == rc
    assert result.stderr.splitlines()[0] == message
    assert result.stdout == ""
    assert (conf(a), a.state()) == before


def test_grammar_errors(a):
    result = hccn(a, "-x")
    assert result.returncode == 1
    assert result.stderr.startswith("Get invalid major cmd type.")
    for dev in ("a", "123", "8"):
        result = hccn(a, "-i", dev, "-link", "-g")
        assert (result.returncode, result.stderr) == (4, "Get invalid device id.\n")


def test_conflicts_on_the_host_and_gateway_segment(a):
    ok(a, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0")
    # the same address again on the same port is no conflict
    ok(a, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0")
    result = hccn(
        a, "-i", 1, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0"
    )
    assert (result.returncode, result.stderr) == (
        7,
        "The ip address configured is conflicted!\n",
    )
    result = hccn(a, "-i", 0, "-gateway", "-s", "gateway", "10.21.0.1")
    assert result.returncode == 8
    assert "doesn't match that of the configured ip adress!" in result.stderr


def test_missing_conf(a):
    os.unlink(a.p("/etc/hccn.conf"))
    result = hccn(
        a, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0"
    )
    assert result.returncode == 29 and "The hccn.conf can't access" in result.stderr
    result = hccn(a, "-i", 0, "-cfg", "recovery")
    assert result.returncode == 29
    assert result.stderr.splitlines()[-1].startswith("Recovery failed.")
    assert "network" not in a.state()["npus"][0]["chips"][0]


def test_link_set_down_and_cfg_recovery(a):
    assert ok(a, "-i", 3, "-link", "-s", "down") == "Cmd executed successfully!\n"
    assert ok(a, "-i", 3, "-link", "-g") == "link status: DOWN\n"
    assert ok(a, "-i", 3, "-net_health", "-g") == "net health status: Fault\n"
    ok(a, "-i", 3, "-cfg", "recovery")
    assert ok(a, "-i", 3, "-link", "-g") == "link status: UP\n"


def test_tls_get_records_switch_and_set(a):
    line = ok(a, "-i", 0, "-tls", "-g")
    assert line == (
        "dev_id:0, tls switch[0](0:disable, 1:enable), tls preconfigured[1](0:non-preset, "
        "1:preset), tls alarm time threshold[60]days\n"
    )
    assert conf(a) == "tls_enable_0=0\n"
    out = ok(a, "-i", 0, "-tls", "-s", "enable", "1")
    assert out.splitlines() == [
        "[Warning] The currently loaded is a preset certificate, which has security "
        "risks.It is recommended to configure a security certificate.",
        "Cmd executed successfully!",
    ]
    assert "tls switch[1]" in ok(a, "-i", 0, "-tls", "-g")
    assert conf(a) == "tls_enable_0=1\n"


def test_boot_replays_hccn_conf(a):
    for dev in range(8):
        ok(
            a,
            "-i",
            dev,
            "-ip",
            "-s",
            "address",
            "10.20.0.%d" % (10 + dev),
            "netmask",
            "255.255.255.0",
        )
    ok(a, "-i", 0, "-netdetect", "-s", "address", "10.20.0.1")
    # a device reset loses what was set; the boot unit's recovery brings back what hccn.conf has
    state = a.state()
    for npu in state["npus"]:
        for chip in npu["chips"]:
            chip["network"] = {}
    hardware.save_state(state, a.path)
    a.write("/etc/hccn.conf", conf(a).replace("address_7=10.20.0.17\n", ""))
    assert hccn(a, "-i", 0, "-ip", "-g").returncode == 13
    assert a.cli("boot").returncode == 0
    assert ok(a, "-i", 0, "-ip", "-g") == "ipaddr:10.20.0.10\nnetmask:255.255.255.0\n"
    assert ok(a, "-i", 0, "-netdetect", "-g") == "netdetect addr: 10.20.0.1\n"
    assert hccn(a, "-i", 7, "-ip", "-g").returncode == 13
    out = ok(a, "-a", "-cfg", "recovery")
    assert out.splitlines()[0] == "dev:0 recovery success"
    assert out.splitlines()[-1] == "Cmd executed successfully!"


def test_busy_lock_and_fault(a):
    lock = a.p("/var/log/hccn_tool/hccn.lock")
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    import fcntl

    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        result = hccn(a, "-i", 0, "-link", "-g")
    assert (result.returncode, result.stdout) == (
        11,
        "hccn_tool is busy, please try again.\n",
    )
    assert ok(a, "-i", 0, "-link", "-g") == "link status: UP\n"
    assert a.cli("fault", "set", "hccn-busy").returncode == 0
    assert hccn(a, "-i", 0, "-link", "-g").returncode == 11
    assert a.cli("fault", "clear", "hccn-busy").returncode == 0
    assert hccn(a, "-i", 0, "-link", "-g").returncode == 0


def test_parallel_sets_never_lose_a_key(a):
    results = []

    def one(dev):
        results.append(
            hccn(
                a,
                "-i",
                dev,
                "-ip",
                "-s",
                "address",
                "10.20.0.%d" % (10 + dev),
                "netmask",
                "255.255.255.0",
            )
        )

    threads = [threading.Thread(target=one, args=(dev,)) for dev in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done = [r for r in results if r.returncode == 0]
    busy = [r for r in results if r.returncode == 11]
    assert len(done) + len(busy) == 8 and done
    text = conf(a)
    nets = [c.get("network", {}) for c in hardware.chips(a.state())]
    for dev, net in enumerate(nets):
        assert ("address_%d=" % dev in text) == bool(net.get("address"))


def test_link_down_and_detect_faults(a):
    ok(a, "-i", 1, "-ip", "-s", "address", "10.20.0.3", "netmask", "255.255.255.0")
    ok(a, "-i", 1, "-netdetect", "-s", "address", "10.20.0.1")
    assert a.cli("fault", "set", "detect-unreachable", "--npu", "1").returncode == 0
    assert ok(a, "-i", 1, "-net_health", "-g") == "net health status: Receive timeout\n"
    assert a.cli("fault", "set", "link-down", "--npu", "1").returncode == 0
    assert ok(a, "-i", 1, "-link", "-g") == "link status: DOWN\n"
    assert ok(a, "-i", 0, "-link", "-g") == "link status: UP\n"
    assert ok(a, "-i", 1, "-net_health", "-g") == "net health status: Fault\n"
    # -link -s up cannot bring a port up whose cable is down
    ok(a, "-i", 1, "-link", "-s", "up")
    assert ok(a, "-i", 1, "-link", "-g") == "link status: DOWN\n"
    assert a.cli("fault", "clear", "all").returncode == 0
    assert ok(a, "-i", 1, "-link", "-g") == "link status: UP\n"
    assert ok(a, "-i", 1, "-net_health", "-g") == "net health status: Success\n"
    # detect outside the subnet without a gateway
    ok(a, "-i", 1, "-netdetect", "-s", "address", "10.99.0.1")
    assert ok(a, "-i", 1, "-net_health", "-g") == "net health status: Unreachable\n"


def test_cross_node_ping(a, b):
    ok(a, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0")
    ok(a, "-i", 1, "-ip", "-s", "address", "10.20.0.3", "netmask", "255.255.255.0")
    ok(b, "-i", 0, "-ip", "-s", "address", "10.20.0.10", "netmask", "255.255.255.0")
    out = ok(a, "-i", 0, "-ping", "-g", "address", "10.20.0.10")
    lines = out.splitlines()
    assert lines[0] == "device 0 PING 10.20.0.10"
    assert lines[-1] == "3 packets transmitted, 3 received, 0.00% packet loss"
    assert ok(b, "-i", 0, "-ping", "-g", "address", "10.20.0.3", "pkt", "1024")
    # an NPU of the same node, an address nobody has: no answer
    for target in ("10.20.0.3", "10.20.0.99"):
        result = hccn(a, "-i", 0, "-ping", "-g", "address", target)
        assert result.returncode == 1 and result.stderr == "Command execute failed!\n"
        assert "recv time out seq=0" in result.stdout
        assert result.stdout.splitlines()[-1].endswith("100.00% packet loss")
    # the peer's link down
    assert b.cli("fault", "set", "link-down", "--npu", "0").returncode == 0
    assert hccn(a, "-i", 0, "-ping", "-g", "address", "10.20.0.10").returncode == 1
    result = hccn(b, "-i", 0, "-ping", "-g", "address", "10.20.0.2")
    assert (result.returncode, result.stderr) == (
        22,
        "Execute failed: Link status is down.\n",
    )
    assert b.cli("fault", "clear", "link-down").returncode == 0
    ok(a, "-i", 0, "-ping", "-g", "address", "10.20.0.10")
    # a phantom node of the bed claims b's address: no stable answer, and b's port is faulty
    assert (
        a.cli("fault", "set", "ip-conflict", "--address", "10.20.0.10").returncode == 0
    )
    assert hccn(a, "-i", 1, "-ping", "-g", "address", "10.20.0.10").returncode == 1
    ok(b, "-i", 0, "-netdetect", "-s", "address", "10.20.0.1")
    assert ok(b, "-i", 0, "-net_health", "-g") == "net health status: Fault\n"
    assert a.cli("fault", "clear", "ip-conflict").returncode == 0
    assert ok(b, "-i", 0, "-net_health", "-g") == "net health status: Success\n"


def test_pod_view_without_state(a, tmp_path):
    ok(a, "-i", 2, "-ip", "-s", "address", "10.20.0.4", "netmask", "255.255.255.0")
    # a pod: the driver folder (and /dev) are there, the simulator state is not
    os.rename(a.p(hardware.STATE_RELPATH), str(tmp_path / "state.json"))
    assert ok(a, "-i", 2, "-link", "-g") == "link status: UP\n"
    assert ok(a, "-i", 2, "-ip", "-g") == "ipaddr:10.20.0.4\nnetmask:255.255.255.0\n"
    # Setting needs the node's state: the sh front in a pod refuses it.
    assert (
        hccn(
            a, "-i", 2, "-ip", "-s", "address", "10.20.0.5", "netmask", "255.255.255.0"
        ).returncode
        != 0
    )


def test_non_roce_product_refuses(sim, fabric):
    make_node(sim, "node-p", fabric, model="310P3", cards=2, chip="310p")
    result = hccn(sim, "-i", 0, "-ip", "-g")
    assert (result.returncode, result.stdout) == (
        13,
        "The command is not supported on this product.\n",
    )


def test_a3_sibling_die_conflict(sim, fabric):
    make_node(sim, "node-a3", fabric, model="A3", cards=2, chip="a3")
    ok(sim, "-i", 0, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0")
    result = hccn(
        sim, "-i", 1, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0"
    )
    assert result.returncode == 7
    # another NPU may reuse it (the tool only checks the sibling die)
    ok(sim, "-i", 2, "-ip", "-s", "address", "10.20.0.2", "netmask", "255.255.255.0")


def _bare(node, path_dir, *args):
    """``hccn_tool ARGS`` by its bare name, found on PATH in ``path_dir``."""
    env = dict(node.env)
    env["PATH"] = path_dir + os.pathsep + env["PATH"]
    return subprocess.run(
        ["hccn_tool", *[str(a) for a in args]],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_the_driver_links_the_bare_name_and_the_link_finds_the_tool(a, tmp_path):
    """host_servers_setup.sh bin_config: /usr/bin/hccn_tool -> <install>/driver/tools/hccn_tool
    (hccn.md 1.1). The link's target is the node's absolute path (dangling below a temporary
    root: the container tests call it by the bare name); a link of one's own, found on PATH
    by the bare name, reaches the tool, which follows the link (not ``${0%/*}``) to its
    engine and the device view, with and without the node's state."""
    link = a.p("/usr/bin/hccn_tool")
    assert os.path.islink(link) and os.readlink(link) == TOOL
    ok(a, "-i", 1, "-ip", "-s", "address", "10.20.0.3", "netmask", "255.255.255.0")
    mine = tmp_path / "bin"
    mine.mkdir()
    os.symlink(os.path.relpath(a.p(TOOL), str(mine)), str(mine / "hccn_tool"))
    result = _bare(a, str(mine), "-i", 1, "-ip", "-g")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "ipaddr:10.20.0.3\nnetmask:255.255.255.0\n",
        "",
    )
    assert _bare(a, str(mine), "-i", 1, "-link", "-g").stdout == "link status: UP\n"
    # In a pod (no simulator state) the sh front answers from the view, through the link too.
    os.rename(a.p(hardware.STATE_RELPATH), str(tmp_path / "state.json"))
    result = _bare(a, str(mine), "-i", 1, "-ip", "-g")
    assert result.stdout == "ipaddr:10.20.0.3\nnetmask:255.255.255.0\n", result.stderr


def test_the_uninstall_removes_the_link(a):
    result = subprocess.run(
        ["bash", a.p("/usr/local/Ascend/driver/script/uninstall.sh")],
        capture_output=True,
        text=True,
        env=a.env,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not a.exists("/usr/bin/hccn_tool")


def test_ipv6_get_is_the_a2_tool_s(a):
    """The A2/A3 tool compiles -inet6 (DRV hccn_tool/CMakeLists.txt: HCCN_TOOL_ADAPT_IPV6);
    a port without an IPv6 address answers as -ip -g without an IPv4 one (tool_ipv6.c)."""
    result = hccn(a, "-i", 0, "-ip", "-inet6", "-g")
    assert (result.returncode, result.stdout, result.stderr) == (
        13,
        "",
        "Get ipconf failed, because no ip was preset there!\n",
    )
    assert hccn(a, "-i", 0, "-ip", "-inet6", "-g", "x").returncode == 4
    assert hccn(a, "-i", 0, "-ip", "-inet6").returncode == 4


def test_cfg_status_is_a_get(a):
    """-cfg status is a get (DRV cmd.c get_cmd_config_list): its own line, no "Cmd executed
    successfully!", nothing in hccn_config.log."""
    log = "/var/log/hccn_tool/hccn_config.log"

    def config_log():
        return a.read(log) if a.exists(log) else ""

    before = config_log()
    assert ok(a, "-i", 0, "-cfg", "status") == "config status:SUCCESS\n"
    assert config_log() == before
    ok(a, "-i", 0, "-cfg", "recovery")
    assert ok(a, "-i", 0, "-cfg", "status") == "config status:SUCCESS\n"
    assert "-cfg recovery" in config_log()
