#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_hccn_plan.py does the work on
# the controller, with the logic in plugins/module_utils/_node/_hccn.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_hccn_plan
short_description: Plan the NPU parameter-plane (RoCE) addresses of a fleet (internal to the roles)
version_added: 0.1.0
description:
  - From each host's request (its C(hccn_*) variables and the NPU facts of the node) computes
    every RoCE port's address, netmask, gateway and detect address by the product's rule
    (Atlas 800 9000/9010 four subnets paired NPU0/4, 1/5, 2/6, 3/7; Atlas 800T A2 one subnet
    per node; A3 the two dies of one NPU in different subnets), the MTU and the TLS switch, and
    returns the plan of O(host).
  - Refuses, with cause and fix and before anything changes, a duplicate address in the fleet,
    an address outside its subnet, a subnet overlapping 192.168.1.0/24, a pairing the product
    forbids, more addresses than the node has ports, a gateway outside its subnet and a TLS
    switch that differs between nodes.
  - Hosts whose NPUs have no RoCE port (310P, 300I Duo, 310, 310B) or no C(hccn_subnets) are
    skipped with a message.
  - Runs on the controller and changes nothing; the product facts are C(data/hccn.yml). Needs
    the Python library C(netaddr) on the controller.
author: cubestudio maintainers (@cubestudio)
notes:
  - Internal to the roles of cubestudio.ascend, used by the hccn role. Its options and results
    follow what they need and may change in any release; it is documented for them and for
    debugging, not as an interface.
options:
  host:
    description: The host whose plan is returned (normally C(inventory_hostname)).
    type: str
    required: true
  requests:
    description:
      - The requests of the whole fleet, by host name; a request has C(family) (the C(npu_family) fact of M(cubestudio.ascend.ascend_facts)),
        C(model), C(ports) (chips of the node), C(subnets), C(host_offset), C(addresses),
        C(gateways), C(netdetect), C(mtu) and C(tls) (C(enable), C(disable), C(keep)).
      - Default, the fact C(hccn_request) of every host of the play (C(ansible_play_hosts_all)).
    type: dict
  data_file:
    description: A site copy of C(data/hccn.yml) (same structure).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
"""

EXAMPLES = r"""
- name: Plan the parameter plane of the fleet
  cubestudio.ascend.ascend_hccn_plan:
    host: "{{ inventory_hostname }}"
    requests:
      atlas-01: {family: 910B, ports: 8, subnets: [10.20.0.0/24], host_offset: 10, gateways: [10.20.0.1]}
      atlas-02: {family: 910B, ports: 8, subnets: [10.20.0.0/24], host_offset: 20, gateways: [10.20.0.1]}
"""

RETURN = r"""
plan:
  description: The plan of O(host), also set as the fact C(hccn_plan).
  returned: success
  type: dict
  contains:
    skip:
      description: Why the host is skipped (no RoCE port, no subnets), else null.
      type: str
    ports:
      description: One entry per port, by physical id.
      type: list
      elements: dict
      sample: [{"id": 0, "address": "10.20.0.10", "netmask": "255.255.255.0", "subnet": "10.20.0.0/24", "gateway": "10.20.0.1", "netdetect": "10.20.0.1"}]
    mtu:
      description: The MTU to set, null to leave it.
      type: int
    tls:
      description: The TLS switch to set (0 or 1), null to leave it.
      type: int
    ping:
      description: A port of this host and an address of another host in its subnet (verify pings it), null without one.
      type: dict
      sample: {"port": 0, "host": "atlas-02", "address": "10.20.0.20"}
    messages:
      description: The skip messages of the fleet.
      type: list
      elements: str
    fleet:
      description: Ports planned per host.
      type: dict
"""
