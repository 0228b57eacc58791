# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hccn layer on two simulated 910B nodes of one bed (no Kubernetes needed).

Both nodes see the bed's hccn fabric registry (bed.py mounts <bed dir>/hccn-fabric in every
node), so an NPU of one node answers a ping from the other only when the plan addressed it and
its link is up. site.yml --tags hccn addresses both nodes in one subnet, verifies links and the
cross-node ping; a second run changes nothing; a plan with a duplicate address across the two
nodes is refused before either node changes.
"""

from __future__ import annotations

import json
import os

import bed as bedlib
import pytest
from ansible_run import SITE, recaps, run_playbook

TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"
MODEL, CARDS = "910B3", 8


@pytest.fixture(scope="module")
def pair():
    bed = bedlib.Bed()
    names = [bed.name + "-hccn-a", bed.name + "-hccn-b"]
    for name in names:
        bed.create_node(name, MODEL, CARDS)
        bed.provision(name, "25.5.0")
    yield bed, names
    for name in names:
        bedlib.docker("rm", "-f", "-v", name, check=False)
        path = os.path.join(bed.dir, "hccn-fabric", name + ".json")
        if os.path.exists(path):
            os.unlink(path)


def play(tmp_path, names, offsets, *args):
    hosts = {
        name: {
            "ansible_connection": "community.docker.docker",
            "ansible_python_interpreter": "/usr/bin/python3",
            "hccn_host_offset": offset,
        }
        for name, offset in zip(names, offsets)
    }
    inventory = {
        "all": {
            "children": {
                "ascend_nodes": {
                    "hosts": hosts,
                    "vars": {
                        "ascend_sysfs_root": "/var/lib/ascend-sim/sys",
                        "hccn_subnets": ["10.20.0.0/24"],
                        "hccn_gateways": ["10.20.0.1"],
                        "hccn_tls": "disable",
                    },
                }
            }
        }
    }
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps(inventory))
    return run_playbook(path, SITE, "{}", "--tags", "hccn", *args)


def node_state(name):
    return bedlib.dexec(
        name,
        "cat /etc/hccn.conf; cat /var/lib/ascend-sim/state.json; ls /var/log/hccn_tool",
    )


def test_two_nodes_ping_rerun_and_duplicate_refusal(pair, tmp_path):
    _bed, names = pair
    rc, out = play(tmp_path, names, [10, 20])
    assert rc == 0, out
    # every port addressed, and the NPUs of the two nodes reach each other
    a_ip = bedlib.dexec(names[0], "%s -i 7 -ip -g" % TOOL)
    assert a_ip == "ipaddr:10.20.0.17\nnetmask:255.255.255.0\n"
    ping = bedlib.dexec(names[0], "%s -i 0 -ping -g address 10.20.0.27" % TOOL)
    assert (
        ping.splitlines()[-1] == "3 packets transmitted, 3 received, 0.00% packet loss"
    )
    ping = bedlib.dexec(names[1], "%s -i 3 -ping -g address 10.20.0.10" % TOOL)
    assert "0.00% packet loss" in ping
    # an address nobody has: no answer
    lost = bedlib.dexec(
        names[0], "%s -i 0 -ping -g address 10.20.0.99" % TOOL, check=False
    )
    assert "100.00% packet loss" in lost
    # a re-run changes nothing on either node
    rc, out = play(tmp_path, names, [10, 20])
    assert rc == 0, out
    stats = recaps(out)
    assert [stats[name]["changed"] for name in names] == [0, 0], out
    # node b's offset overlaps node a's ports: refused, nothing changed on either node
    before = [node_state(name) for name in names]
    rc, out = play(tmp_path, names, [10, 15])
    assert rc != 0
    assert "duplicate address 10.20.0.15" in out, out
    assert [node_state(name) for name in names] == before
