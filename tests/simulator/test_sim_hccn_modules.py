# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hccn role's modules (hccn_config, hccn_info) against the simulated hccn_tool of a
temporary root: apply once, a re-run sends no set command, check mode changes nothing,
absent keeps the other keys of hccn.conf, verify names a link that is down."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from simutil import REPO, driver_pkg
from test_sim_hccn import TOOL, conf, hccn

ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")
PORTS = [
    {
        "id": dev,
        "address": "10.20.0.%d" % (10 + dev),
        "netmask": "255.255.255.0",
        "gateway": "10.20.0.1",
        "netdetect": "10.20.0.1",
    }
    for dev in range(8)
]


def module(node, name, args, check=False):
    env = dict(node.env)
    env["ANSIBLE_COLLECTIONS_PATH"] = os.path.join(REPO, ".build", "collections")
    env["ANSIBLE_STDOUT_CALLBACK"] = "json"
    env["ANSIBLE_LOAD_CALLBACK_PLUGINS"] = "1"
    argv = [
        ANSIBLE,
        "localhost",
        "-c",
        "local",
        "-e",
        "ansible_python_interpreter=" + sys.executable,
        "-m",
        "cubestudio.ascend." + name,
        "-a",
        json.dumps(args),
    ] + (["--check"] if check else [])
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        raise AssertionError(out.stdout + out.stderr) from None
    return doc["plays"][0]["tasks"][0]["hosts"]["localhost"]


@pytest.fixture
def node(sim):
    if not os.path.exists(ANSIBLE):
        pytest.fail(
            "ansible is not next to %s (run in the collection's venv)" % sys.executable
        )
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "910B3", "--cards", "8", "--node-id", "mod-a")
    assert sim.run(driver_pkg("24.1.0"), "--full", "--quiet").returncode == 0
    sim.write("/etc/hccn.conf", "dscp_tc_0=26:3,\n")
    return sim


def test_apply_rerun_check_and_absent(node):
    args = {
        "ports": PORTS,
        "mtu": 9000,
        "tls": 0,
        "executable": node.p(TOOL),
        "conf": node.p("/etc/hccn.conf"),
    }
    checked = module(node, "hccn_config", args, check=True)
    assert checked["changed"] is True and len(checked["commands"]) == 8 * 5
    assert conf(node) == "dscp_tc_0=26:3,\n"  # check mode sent no set command
    first = module(node, "hccn_config", args)
    assert first["changed"] is True, first
    assert (
        hccn(node, "-i", 7, "-ip", "-g").stdout
        == "ipaddr:10.20.0.17\nnetmask:255.255.255.0\n"
    )
    text = conf(node)
    assert text.startswith("dscp_tc_0=26:3,\n") and "tls_enable_7=0\n" in text
    again = module(node, "hccn_config", args)
    assert (again["changed"], again["commands"]) == (False, []), again
    assert conf(node) == text
    # another address for one port: only that port's commands
    moved = dict(args, ports=[dict(PORTS[3], address="10.20.0.93")] + PORTS[4:])
    changed = module(node, "hccn_config", moved)
    assert [c[:3] for c in changed["commands"]] == [
        ["-i", "3", "-ip"],
        ["-i", "3", "-gateway"],
    ]
    info = module(node, "hccn_info", {"ports": PORTS[:3], "executable": node.p(TOOL)})
    assert info["problems"] == [] and info["ports"]["0"]["health"] == "Success"
    assert node.cli("fault", "set", "link-down", "--npu", "1").returncode == 0
    info = module(node, "hccn_info", {"ports": PORTS[:3], "executable": node.p(TOOL)})
    assert info["problems"][0].startswith("port 1 link status: DOWN")
    removed = module(
        node,
        "hccn_config",
        {
            "state": "absent",
            "remove_ports": list(range(8)),
            "remove_settings": True,
            "conf": node.p("/etc/hccn.conf"),
        },
    )
    assert removed["changed"] is True and len(removed["removed"]) == 8 * 6
    assert conf(node) == "dscp_tc_0=26:3,\n"
