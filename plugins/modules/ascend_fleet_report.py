#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_fleet_report.py does the work on the
# controller, with the logic in plugins/module_utils/_checks/_fleet_report.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_fleet_report
short_description: Build the fleet report from the node records (internal to the playbooks)
version_added: 0.1.0
description:
  - From the node records of P(cubestudio.ascend.ascend_node_record#module) of every host, builds
    the fleet report of C(cubestudio.ascend.report) - the versions that differ across the fleet
    (drift, with the value most nodes have), the nodes and the chips ordered unhealthy first, the
    totals.
  - The report's templates only format what this returns; the JSON file the playbook writes is
    this structure.
  - Runs on the controller and changes nothing.
author: cubestudio maintainers (@cubestudio)
options:
  records:
    description: The node records, one per host (C(ansible_facts.ascend_node_record) of each).
    type: list
    elements: dict
    required: true
  unreached:
    description: Hosts of the play that gave no record (unreachable, or failed before the record); the report lists them.
    type: list
    elements: str
    default: []
  generated_at:
    description: When the report was made (shown as given).
    type: str
    default: ""
  title:
    description: Title of the report.
    type: str
    default: Ascend fleet report
  matrix_file:
    description: A site copy of C(data/version_matrix.yml) (same structure), to judge the images running on the nodes.
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the playbooks of cubestudio.ascend, used by C(cubestudio.ascend.report). Its options
    and results follow what they need and may change in any release; it is documented for them and
    for debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to a node.
  - An empty list, a record without the keys of a node record, or two records of one host fail
    the task with the cause.
seealso:
  - module: cubestudio.ascend.ascend_node_record
"""

EXAMPLES = r"""
- name: Build the fleet report
  cubestudio.ascend.ascend_fleet_report:
    records: "{{ ansible_play_hosts | map('extract', hostvars, ['ansible_facts', 'ascend_node_record']) | list }}"
  run_once: true
"""

RETURN = r"""
report:
  description: The report, also set as the fact C(ascend_fleet_report).
  returned: success
  type: dict
  contains:
    schema:
      description: Version of this structure (C(1)); a change that removes or renames a key raises it.
      type: int
      sample: 1
    title:
      description: O(title).
      type: str
    generated_at:
      description: O(generated_at).
      type: str
    health_order:
      description: Chip health from best to worst, as the chips are ordered.
      type: list
      elements: str
      sample: [OK, Warning, Alarm, Critical]
    totals:
      description: >-
        C(nodes), C(unreached), C(chips), C(unhealthy_chips), C(unhealthy_nodes) (health not C(ok)),
        C(reboot_pending), C(compat_not_ok), C(drifting) (the version keys that differ),
        C(renumbered_nodes) (nodes with chips renumbered since the recorded chip map, T47) and
        C(refused_images) (containers whose image's CANN the version matrix refuses on their node).
      type: dict
      sample: {nodes: 2, unreached: 0, chips: 12, unhealthy_chips: 1, unhealthy_nodes: 1, reboot_pending: 2, compat_not_ok: 0, drifting: [driver, firmware]}
    version_keys:
      description: The version columns, each C({key, label}), in order.
      type: list
      elements: dict
    drift:
      description: >-
        Per version key that differs across the fleet - C(label), C(majority) (the value most
        nodes have; on a tie the newest) and C(values) (each C({value, hosts}), the majority's first, then most common first).
        Absent keys agree everywhere.
      type: dict
      sample: {driver: {label: driver, majority: 25.5.0, values: [{value: 25.5.0, hosts: [a]}, {value: 24.1.0, hosts: [b]}]}}
    nodes:
      description: >-
        The node records, nodes whose health is unknown or not OK first (worst chip first),
        then by host; each with C(row) - C(host), C(npus) (NPU count and family, npu-smi's count
        where it answered, with the chip name), C(versions) (each C({key, label, value, drift,
        odd}), C(odd) when the value is not the majority's), C(drift) (the odd keys),
        C(allocatable) (C(allocatable / chips)), C(allocatable_ok), C(compat), C(compat_ok),
        C(moved_chips) (the chips renumbered since the recorded chip map, T47, empty when none),
        C(images) (the containers holding the node's NPUs from the record's C(images), each
        C({where, image, cann, driver, source, verdict, refused, message}): C(verdict) C(ok),
        C(mismatch), C(unknown) (the image carries no version) or C(unchecked), C(refused) when the
        matrix refuses the image's CANN with the node's driver under the node's policy).
      type: list
      elements: dict
    unhealthy_chips:
      description: Every chip not OK across the fleet, worst first, each chip of the record with C(host).
      type: list
      elements: dict
    chips:
      description: Every chip of the fleet, worst health first, then in the order of the nodes; each chip of the record with C(host).
      type: list
      elements: dict
    unreached:
      description: O(unreached) without the hosts that have a record, sorted.
      type: list
      elements: str
"""
