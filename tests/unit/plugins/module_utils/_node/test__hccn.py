# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hccn fleet plan against the collection's data/hccn.yml."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._hccn import (
    HccnPlanError,
    fleet_plan,
    port_subnet_index,
    validate_data,
)

COLLECTION = Path(__file__).resolve().parents[5]
DATA = validate_data(yaml.safe_load((COLLECTION / "data" / "hccn.yml").read_text()))


def a2(offset, **kw):
    request = {
        "family": "910B",
        "model": "Atlas 800T A2 / Atlas 900 A2 PoD",
        "ports": 8,
        "subnets": ["10.20.0.0/24"],
        "host_offset": offset,
        "gateways": ["10.20.0.1"],
        "tls": "disable",
    }
    request.update(kw)
    return request


def plan(requests, host=None):
    return fleet_plan(DATA, {"requests": requests, "host": host or sorted(requests)[0]})


def test_a2_one_subnet_per_node_offsets_and_peer():
    fleet = {"a": a2(10), "b": a2(20)}
    mine = plan(fleet, "a")
    assert [p["address"] for p in mine["ports"]] == [
        "10.20.0.%d" % i for i in range(10, 18)
    ]
    assert {p["netmask"] for p in mine["ports"]} == {"255.255.255.0"}
    assert {p["gateway"] for p in mine["ports"]} == {"10.20.0.1"}
    assert {p["netdetect"] for p in mine["ports"]} == {"10.20.0.1"}  # detect = gateway
    assert mine["tls"] == 0 and mine["mtu"] is None and mine["skip"] is None
    assert mine["ping"] == {"port": 0, "host": "b", "address": "10.20.0.20"}
    assert plan(fleet, "b")["ports"][7]["address"] == "10.20.0.27"
    assert mine["fleet"] == {"a": 8, "b": 8}


def test_atlas_800_9000_four_subnets_paired():
    request = {
        "family": "910",
        "ports": 8,
        "subnets": [
            "192.168.100.0/24",
            "192.168.101.0/24",
            "192.168.102.0/24",
            "192.168.103.0/24",
        ],
        "host_offset": 100,
    }
    ports = plan({"n": request})["ports"]
    # the official example: NPU0 .100.100 / NPU4 .100.101 ... NPU3 .103.100 / NPU7 .103.101
    assert [p["address"] for p in ports] == [
        "192.168.100.100",
        "192.168.101.100",
        "192.168.102.100",
        "192.168.103.100",
        "192.168.100.101",
        "192.168.101.101",
        "192.168.102.101",
        "192.168.103.101",
    ]
    assert [port_subnet_index("paired", p) for p in range(8)] == [
        0,
        1,
        2,
        3,
        0,
        1,
        2,
        3,
    ]


def test_a3_dies_in_different_subnets():
    request = {
        "family": "A3",
        "ports": 16,
        "subnets": ["10.1.0.0/24", "10.2.0.0/24"],
        "host_offset": 10,
    }
    ports = plan({"n": request})["ports"]
    assert [p["subnet"] for p in ports[:4]] == ["10.1.0.0/24", "10.2.0.0/24"] * 2
    assert ports[0]["address"] == "10.1.0.10" and ports[1]["address"] == "10.2.0.10"
    assert ports[15]["address"] == "10.2.0.17"


@pytest.mark.parametrize(
    ("fleet", "message"),
    [
        (
            {"a": a2(10), "b": a2(15)},
            r"duplicate address 10\.20\.0\.15: a port 5 and b port 0",
        ),
        (
            {"a": a2(250)},
            r"port 5 address 10\.20\.0\.255 is outside its subnet 10\.20\.0\.0/24",
        ),
        (
            {"a": a2(10, subnets=["192.168.1.0/24"], gateways=[])},
            r"overlaps 192\.168\.1\.0/24",
        ),
        (
            {"a": a2(10, subnets=["192.168.0.0/16"], gateways=[])},
            r"overlaps 192\.168\.1\.0/24",
        ),
        (
            {"a": a2(10, subnets=["10.20.0.0/24", "10.21.0.0/24"])},
            r"needs 1 subnet\(s\)",
        ),
        (
            {"a": a2(10, gateways=["10.30.0.1"])},
            r"gateway 10\.30\.0\.1 is not in its subnet",
        ),
        ({"a": a2(10, mtu=9703)}, r"hccn_mtu 9703 is outside 68\.\.9702"),
        (
            {"a": a2(10), "b": a2(20, tls="enable")},
            r"hccn_tls differs between the nodes \(disable: a; enable: b\)",
        ),
        ({"a": a2(0)}, r"neither hccn_addresses nor hccn_host_offset"),
        ({"a": a2(1)}, r"address 10\.20\.0\.1 is the gateway"),
        ({"a": a2(10, subnets=["10.20.0.1/24"])}, r"has host bits set"),
        ({"a": a2(10, subnets=["nonsense"])}, r"is not an IPv4 network"),
        (
            {"a": a2(10, netdetect=["10.20.0.20"]), "b": a2(20)},
            r"netdetect 10\.20\.0\.20 of a port 0 is the address of b port 0",
        ),
        (
            {"a": a2(10, addresses=["10.20.0.%d" % i for i in range(2, 11)])},
            r"9 addresses in hccn_addresses but the node has 8 ports",
        ),
        ({"a": a2(10, ports=9)}, r"shows 9 chips, a Atlas 800T A2 .* has at most 8"),
    ],
)
def test_refusals_name_cause_and_fix(fleet, message):
    with pytest.raises(HccnPlanError, match=message) as info:
        plan(fleet, "a")
    assert "fix" in str(info.value)


def test_forbidden_pairings_with_explicit_addresses():
    nine = ["10.1.0.0/24", "10.2.0.0/24", "10.3.0.0/24", "10.4.0.0/24"]
    good = [
        "10.1.0.2",
        "10.2.0.2",
        "10.3.0.2",
        "10.4.0.2",
        "10.1.0.3",
        "10.2.0.3",
        "10.3.0.3",
        "10.4.0.3",
    ]
    assert plan(
        {"n": {"family": "910", "ports": 8, "subnets": nine, "addresses": good}}
    )["ports"]
    bad = list(good)
    bad[4] = "10.2.0.9"  # port 4 not with port 0
    with pytest.raises(
        HccnPlanError,
        match=r"port 4 address 10\.2\.0\.9 is outside its subnet 10\.1\.0\.0/24",
    ):
        plan({"n": {"family": "910", "ports": 8, "subnets": nine, "addresses": bad}})
    a3 = {
        "family": "A3",
        "ports": 2,
        "subnets": ["10.1.0.0/24", "10.2.0.0/24"],
        "addresses": ["10.1.0.2", "10.1.0.3"],
    }
    with pytest.raises(
        HccnPlanError,
        match=r"port 1 address 10\.1\.0\.3 is outside its subnet 10\.2\.0\.0/24",
    ):
        plan({"n": a3})


def test_no_roce_nodes_are_skipped_with_a_message():
    fleet = {
        "duo": {
            "family": "310P",
            "model": "Atlas 300I Duo",
            "ports": 2,
            "subnets": ["10.20.0.0/24"],
            "host_offset": 10,
        },
        "a2inf": {
            "family": "910B",
            "model": "Atlas 300I A2",
            "ports": 1,
            "subnets": ["10.20.0.0/24"],
            "host_offset": 30,
        },
        "none": {"family": "910B", "ports": 8},
        "a": a2(10),
    }
    mine = plan(fleet, "duo")
    assert mine["ports"] == [] and mine["ping"] is None
    assert "has no parameter-plane port" in mine["skip"]
    assert "no hccn_subnets" in plan(fleet, "none")["skip"]
    assert "Atlas 300I A2 has no parameter-plane port" in plan(fleet, "a2inf")["skip"]
    assert len(plan(fleet, "a")["messages"]) == 3
    # a skipped node's TLS does not count
    fleet["duo"]["tls"] = "enable"
    assert plan(fleet, "a")["ports"]


def test_the_host_must_have_a_request():
    with pytest.raises(HccnPlanError, match="no hccn request for this host"):
        fleet_plan(DATA, {"requests": {"a": a2(10)}, "host": "b"})


def test_data_file_checked():
    broken = copy.deepcopy(DATA)
    broken["products"]["910B"]["rule"] = "circle"
    with pytest.raises(HccnPlanError, match="unknown rule"):
        validate_data(broken)
    with pytest.raises(HccnPlanError, match="schema: 1"):
        validate_data({"schema": 2})
