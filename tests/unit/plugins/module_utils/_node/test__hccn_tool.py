# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hccn_tool output read back (samples of /work/shared/ascend/hccn.md), the commands, verify."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._hccn_tool import (
    HccnToolError,
    conf_keys,
    parse_gateway,
    parse_health,
    parse_ip,
    parse_link,
    parse_mtu,
    parse_netdetect,
    parse_ping,
    parse_tls,
    port_commands,
    port_conf_keys,
    problems,
    remove_keys,
    setting_commands,
)

PORT = {
    "id": 3,
    "address": "10.20.0.13",
    "netmask": "255.255.255.0",
    "gateway": "10.20.0.1",
    "netdetect": "10.20.0.1",
}


def test_real_samples():
    # MC faultdiag npu_info_before.txt (Atlas 800 9000)
    assert parse_ip(0, "ipaddr:192.161.200.10\nnetmask:255.255.255.0\n\n") == {
        "address": "192.161.200.10",
        "netmask": "255.255.255.0",
    }
    assert parse_ip(13, "") == {}
    assert parse_link("link status: UP\n") == "UP"
    assert parse_health("net health status: Socket failed\n") == "Socket failed"
    assert parse_health("net health status: Init\n") == "Init"
    tls = (
        "dev_id:0, tls switch[0](0:disable, 1:enable), tls preconfigured[1](0:non-preset, "
        "1:preset), tls alarm time threshold[60]days\n"
    )
    assert parse_tls(tls) == 0
    ping = (
        "device 0 PING 10.10.100.10\nrecv time out seq=O\nrecv seq=1,time=0.097000ms\n"
        "recv seq=2,time=0.066000ms\n3 packets transmitted, 2 received, 33.33% packet loss\n"
    )
    assert parse_ping(ping) == (3, 2)
    assert parse_gateway(0, "default gateway:10.20.0.1, Iface:eth3\n") == "10.20.0.1"
    assert parse_gateway(2, "") == ""
    assert parse_netdetect("netdetect addr: 0.0.0.0\n") == ""
    assert parse_netdetect("netdetect addr: 10.20.0.1\n") == "10.20.0.1"
    assert parse_mtu("mtu:9000\n") == 9000


def test_garbage_is_refused():
    with pytest.raises(HccnToolError, match="unexpected -link -g output"):
        parse_link("link status:  UP\n")  # two spaces: MindCluster would not read it
    with pytest.raises(HccnToolError):
        parse_ip(0, "Cmd executed successfully!\n")


def test_only_what_differs():
    current = {
        "address": "10.20.0.13",
        "netmask": "255.255.255.0",
        "gateway": "10.20.0.1",
        "netdetect": "10.20.0.1",
    }
    assert port_commands(PORT, current) == []
    assert port_commands(PORT, {}) == [
        ["-i", "3", "-ip", "-s", "address", "10.20.0.13", "netmask", "255.255.255.0"],
        ["-i", "3", "-gateway", "-s", "gateway", "10.20.0.1"],
        ["-i", "3", "-netdetect", "-s", "address", "10.20.0.1"],
    ]
    # a new address: the gateway is set again (hccn_tool may have dropped it)
    moved = dict(current, address="10.20.0.99")
    assert [c[2] for c in port_commands(PORT, moved)] == ["-ip", "-gateway"]
    assert setting_commands(3, {"mtu": 1500, "tls": 1}, mtu=9000, tls=0) == [
        ["-i", "3", "-mtu", "-s", "size", "9000"],
        ["-i", "3", "-tls", "-s", "enable", "0"],
    ]
    assert setting_commands(3, {"mtu": 9000, "tls": 0}, mtu=9000, tls=0) == []
    assert setting_commands(3, {"mtu": 1500}, mtu=0, tls=None) == []


def test_remove_keys_keeps_everything_else():
    text = "# site\nudp_port_mode_3=auto\naddress_3=10.20.0.13\nnetmask_3=255.255.255.0\nmtu_3=9000\naddress_4=1.2.3.4\n"
    keys = port_conf_keys([3])
    assert (
        remove_keys(text, keys)
        == "# site\nudp_port_mode_3=auto\nmtu_3=9000\naddress_4=1.2.3.4\n"
    )
    assert "mtu_3" in port_conf_keys(
        [3], mtu=True
    ) and "tls_enable_3" in port_conf_keys([3], tls=True)
    assert conf_keys(text)["address_3"] == "10.20.0.13"


def test_problems():
    good = {3: {"address": "10.20.0.13", "link": "UP", "health": "Success"}}
    assert problems([PORT], good) == []
    assert problems([PORT], {3: dict(good[3], health="Init")}) == []
    found = problems([PORT], {3: {"address": None, "link": "DOWN", "health": "Fault"}})
    assert [f.split(" ", 2)[2][:12] for f in found] == [
        "has address ",
        "link status:",
        "net health s",
    ]
    ping = {
        "port": 3,
        "address": "10.20.0.20",
        "host": "b",
        "received": 0,
        "output": "x\n3 packets transmitted, 0 received, 100.00% packet loss\n",
    }
    assert problems([PORT], good, ping) == [
        "port 3 cannot reach 10.20.0.20 of b: 3 packets transmitted, 0 received, 100.00% packet loss"
    ]
    assert problems([PORT], good, dict(ping, received=3)) == []
