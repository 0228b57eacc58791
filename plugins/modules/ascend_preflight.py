#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_preflight.py does the work on the
# controller, with the logic in plugins/module_utils/_checks/_preflight.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_preflight
short_description: Run the preflight checks of an Ascend node on what was gathered (internal to the roles)
version_added: 0.2.0
description:
  - From what the preflight role gathered on a node (its C(ansible_facts) with the C(ascend) fact of
    P(cubestudio.ascend.ascend_facts#module) and the C(ascend_host) fact of
    P(cubestudio.ascend.ascend_host_facts#module), the plan of P(cubestudio.ascend.ascend_plan#module),
    the HwHiAiUser ids of every node of the play) and the role's settings, runs every check -
    OS and architecture, Python, NPUs on the PCI bus, free space per file system, memory, kernel
    headers, the driver installer's tools, HwHiAiUser across the play, container engine, IOMMU
    and SR-IOV, the versions against the collection's version matrix, and the packages verified
    on the controller - and returns each result, graded by the skip and warn lists, with the one
    message that refuses the node.
  - Runs on the controller and changes nothing. It never fails the task for a failed check -
    RV(refuse) says whether the role refuses the node, with RV(msg).
author: cubestudio maintainers (@cubestudio)
options:
  facts:
    description: The node's C(ansible_facts), with C(ascend), C(ascend_host) and the C(setup) facts C(distribution), C(distribution_version),
      C(architecture), C(python_version), C(python) and C(memtotal_mb).
    type: dict
    required: true
  plan:
    description: The C(plan) of P(cubestudio.ascend.ascend_plan#module) for this node.
    type: dict
    required: true
  fleet:
    description:
      - One entry per node of the play - C(host) (its inventory name), C(user) (its C(ascend.hwhiaiuser), null when absent),
        C(uid_owners) and C(gid_owners) (C(getent_passwd) and C(getent_group) of C(ansible.builtin.getent) for the wanted uid and gid).
    type: list
    elements: dict
    required: true
  host:
    description: The node being checked, as named in O(fleet); empty - C(inventory_hostname).
    type: str
    default: ""
  driver_version:
    description: The driver about to be installed; empty - the installed one.
    type: str
    default: ""
  firmware_version:
    description: The firmware about to be flashed; empty - the installed one.
    type: str
    default: ""
  cann_version:
    description: The CANN about to be installed; empty - the installed one.
    type: str
    default: ""
  runtime_version:
    description: The Ascend Docker Runtime about to be installed; empty - the installed one.
    type: str
    default: ""
  compat_policy:
    description: The policy of the version matrix (see P(cubestudio.ascend.ascend_compat#module)).
    type: str
    default: strict
  install_path:
    description: Where the Ascend software is installed (check C(disk)).
    type: str
    default: /usr/local/Ascend
  tmp_path:
    description: Where the C(.run) packages unpack themselves (check C(tmp)).
    type: str
    default: /tmp
  sysfs_root:
    description: The sysfs root the NPUs were read under (named in a message).
    type: str
    default: /sys
  min_python:
    description: The oldest Python on the node that the modules run on.
    type: str
    default: "3.8"
  min_free_gb:
    description: GB needed under O(install_path). Paths on one file system share its free space.
    type: raw
    default: 20
  min_free_tmp_gb:
    description: GB needed in O(tmp_path).
    type: raw
    default: 4
  min_memory_gb:
    description: GB of memory needed.
    type: raw
    default: 8
  expected_npu_count:
    description: Ascend PCI functions the node must have; 0 - any number above 0.
    type: int
    default: 0
  hwhiaiuser_uid:
    description: The uid HwHiAiUser must have on every node.
    type: int
    default: 1000
  hwhiaiuser_gid:
    description: The gid HwHiAiUser must have on every node.
    type: int
    default: 1000
  container_engine:
    description: The engine that must be installed; C(auto) - docker or containerd.
    type: str
    default: auto
  skip_checks:
    description: Checks shown as skipped and not held against the node.
    type: list
    elements: str
    default: []
  warn_checks:
    description: Checks whose failure is a warning.
    type: list
    elements: str
    default: []
  fail_on_error:
    description: Whether a failed check refuses the node (RV(refuse)).
    type: bool
    default: true
  verify_packages:
    description: Add the check C(packages) (needs O(artifact_local_dir)).
    type: bool
    default: false
  artifact_local_dir:
    description: The controller folder the packages were verified in.
    type: str
    default: ""
  package_results:
    description: The C(results) of the looped P(cubestudio.ascend.ascend_package_verify#module) task (C(item) is the file name).
    type: list
    elements: dict
    default: []
  matrix_file:
    description: A site copy of the version matrix; default the collection's C(data/version_matrix.yml).
    type: path
  iommu_rules_file:
    description: A site copy of the IOMMU and SR-IOV rules; default the collection's C(data/iommu.yml).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the roles of cubestudio.ascend, used by the C(preflight) role. Its options and
    results follow what the role needs and may change in any release; it is documented for the
    role and for debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
  - Bad input (a fact missing, a threshold that is not a number, an unknown check name) fails the
    task with a message naming it.
seealso:
  - module: cubestudio.ascend.ascend_doctor
  - module: cubestudio.ascend.ascend_compat
"""

EXAMPLES = r"""
- name: Run every check
  cubestudio.ascend.ascend_preflight:
    facts: "{{ ansible_facts }}"
    plan: "{{ preflight_plan }}"
    fleet: "{{ ansible_play_hosts | map('extract', hostvars, '__preflight_ids') | list }}"
    min_free_gb: 20
  register: preflight

- name: Refuse the node
  ansible.builtin.fail:
    msg: "{{ preflight['msg'] }}"
  when: preflight['refuse']
"""

RETURN = r"""
results:
  description:
    - One result per check, in the order of the checks - C(check), C(ok), C(severity) (C(info), C(warning), C(error)),
      C(skipped), C(message) (what was seen), C(cause) and C(fix) (empty when ok). The role's fact C(preflight_results).
  returned: success
  type: list
  elements: dict
findings:
  description:
    - The failed results in the doctor's shape - C(row) (the troubleshooting row of the check, empty where there is none),
      C(check), C(symptom), C(cause), C(fix), C(severity).
  returned: success
  type: list
  elements: dict
lines:
  description: The results for a person, one line per check, with cause and fix under a failed one.
  returned: success
  type: list
  elements: str
msg:
  description: The message that refuses the node, listing every failed check and the warnings; empty when no check failed.
  returned: success
  type: str
refuse:
  description: Whether the role refuses the node (O(fail_on_error) and a check failed with an error).
  returned: success
  type: bool
versions:
  description: The versions the checks named - C(driver), C(driver_installed), C(firmware), C(cann), C(runtime).
  returned: success
  type: dict
compat:
  description: The verdict of the version matrix (as C(ascend_compat) of P(cubestudio.ascend.ascend_compat#module)).
  returned: success
  type: dict
ansible_facts:
  description: The facts set.
  returned: success
  type: dict
  contains:
    ascend_preflight:
      description: RV(results) and RV(findings).
      type: dict
"""
