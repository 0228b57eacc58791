#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_plan.py does the work on the
# controller, with the logic in plugins/module_utils/_node/_node_plan.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_plan
short_description: Decide what the node layer changes on an Ascend node (internal to the roles)
version_added: 0.1.0
description:
  - From a node's P(cubestudio.ascend.ascend_facts#module) and the wanted versions, decides which
    driver and firmware packages are installed, in Huawei's order (on a host without a driver,
    driver then firmware; over an installed driver, firmware then driver) and with which action
    (C(full) or C(upgrade)), the package file names of the driver, firmware and Ascend Docker
    Runtime, the architecture in Huawei's package names, how many C(/dev/davinci) nodes the NPUs
    must give and the tools the driver installer requires.
  - preflight and the layer roles call it with the same facts and versions, so that what
    preflight checks is what the roles do.
  - Runs on the controller and changes nothing; the Huawei facts it reads are
    C(data/catalogue.yml) in the collection.
author: cubestudio maintainers (@cubestudio)
options:
  facts:
    description: The node's C(ansible_facts.ascend) (P(cubestudio.ascend.ascend_facts#module)).
    type: dict
    required: true
  architecture:
    description: The node's machine architecture (C(ansible_facts.architecture)).
    type: str
    required: true
  driver_version:
    description: NPU driver version to install; empty leaves the driver out of the plan.
    type: str
    default: ""
  firmware_version:
    description: NPU firmware version to flash; empty leaves the firmware out of the plan.
    type: str
    default: ""
  manage_firmware:
    description: Whether the firmware is flashed at all; false leaves it out of the plan.
    type: bool
    default: true
  chip:
    description: Chip in the driver and firmware package names; empty - from the NPU family (C(data/catalogue.yml) C(families)).
    type: str
    default: ""
  arch:
    description: Architecture in the package names; empty - from O(architecture) (C(data/catalogue.yml) C(architectures)).
    type: str
    default: ""
  driver_file:
    description: File name of the driver package; empty - from the catalogue's pattern.
    type: str
    default: ""
  firmware_file:
    description: File name of the firmware package; empty - from the catalogue's pattern.
    type: str
    default: ""
  runtime_version:
    description: Ascend Docker Runtime version to install; empty leaves it out of the plan.
    type: str
    default: ""
  runtime_file:
    description: File name of the Ascend Docker Runtime package; empty - from the catalogue's pattern.
    type: str
    default: ""
  runtime_engine:
    description:
      - The engine the runtime is wired into (its install scene, C(docker) or C(containerd)); a runtime
        installed for another engine is reinstalled.
      - Empty (preflight, C(upgrade.yml), before the engine is decided on the node) leaves the install scene out.
    type: str
    default: ""
  runtime_state:
    description: V(absent) plans the runtime's uninstall (RV(plan.ascend_runtime.action) C(uninstall) or C(none)).
    type: str
    default: present
    choices: [present, absent]
  inputs:
    description:
      - The package options (O(manage_firmware), O(chip), O(arch), O(driver_file), O(firmware_file),
        O(cann_packages), O(cann_files), O(cann_arch), O(cann_keep_old_versions), O(runtime_file)) as one
        dict, built from the public role variables by the lookup C(cubestudio.ascend.plan_inputs).
      - Its keys replace the options of the same name. preflight and every layer role pass it, so the
        files preflight checks are the files the roles install.
    type: dict
    default: {}
  cann_version:
    description: The wanted CANN version; empty - no CANN steps.
    type: str
    default: ""
  cann_packages:
    description: The CANN kinds wanted (C(toolkit), C(nnae), C(nnrt), ...).
    type: list
    elements: str
    default: [toolkit]
  cann_files:
    description: File names of CANN packages by kind, where they differ from the catalogue's pattern.
    type: dict
    default: {}
  cann_arch:
    description: Architecture in the CANN package names; empty - the node's.
    type: str
    default: ""
  cann_keep_old_versions:
    description: A new CANN is installed beside the others (V(true)) or replaces them (V(false)).
    type: bool
    default: true
  checksums:
    description: Package file name to sha256, copied into each step (lower case; empty when unknown).
    type: dict
    default: {}
  local_dir:
    description: Directory on the controller holding the packages; each step's C(source) is the file in it.
    type: str
    default: ""
  layer:
    description:
      - A layer role (C(npu_driver)) whose record (P(cubestudio.ascend.ascend_layer_record#module),
        read back in C(ansible_facts.ascend.layers)) is compared with the node and O(fingerprint);
        the verdict is RV(plan.layer).
    type: str
    default: ""
  fingerprint:
    description: The fingerprint of the layer role's inputs now (lookup C(cubestudio.ascend.layer_fingerprint)); required with O(layer).
    type: str
    default: ""
  catalogue_file:
    description: A site copy of C(data/catalogue.yml) (same structure).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the roles of cubestudio.ascend, used by the node layer roles and
    C(cubestudio.ascend.upgrade). Its options and results follow what they need and may change in
    any release; it is documented for them and for debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
  - It decides from the facts only; the refusals (a partial install, NPUs in use, recorded
    install settings) are the roles', with the plan's C(partial) and C(installed) as input.
"""

EXAMPLES = r"""
- name: Read the node
  cubestudio.ascend.ascend_facts:

- name: Plan the driver and firmware of the 25.5.0 release
  cubestudio.ascend.ascend_plan:
    facts: "{{ ansible_facts['ascend'] }}"
    architecture: "{{ ansible_facts['architecture'] }}"
    driver_version: 25.5.0
    firmware_version: 7.8.0.5.216
    checksums: "{{ ascend_artifact_checksums }}"

- name: Show the packages in the order they are installed
  ansible.builtin.debug:
    msg: "{{ ansible_facts['ascend_plan']['npu_driver']['steps'] | map(attribute='file') }}"
"""

RETURN = r"""
plan:
  description: The plan, also set as the fact C(ascend_plan).
  returned: success
  type: dict
  contains:
    layer:
      description:
        - With O(layer) - whether the node is still exactly as the layer's last complete run
          left it, with the same inputs (C(converged)), and if not, why (C(reasons)); null
          without O(layer).
        - Converged means a record exists, its fingerprint is O(fingerprint), no file it lists
          changed, appeared or went, and every fact it recorded has the same value now.
      type: dict
      sample: {name: npu_driver, converged: false, reasons: ["/etc/docker/daemon.json changed since the last run"]}
    archs:
      description: The architectures Huawei ships packages for.
      type: list
      elements: str
      sample: [aarch64, x86_64]
    arch:
      description: The node's architecture in package names; empty when Huawei ships none for it.
      type: str
      sample: aarch64
    npu_driver:
      description: The driver and firmware layer.
      type: dict
      contains:
        chip:
          description: Chip in the package names; empty when the NPU family has no known naming.
          type: str
          sample: 910b
        arch:
          description: Architecture in the package names; empty when unknown.
          type: str
        known_families:
          description: The NPU families with a known package naming.
          type: list
          elements: str
        fresh:
          description: No driver is installed.
          type: bool
        installed:
          description: The installed C(driver) and C(firmware) versions (null when absent).
          type: dict
        partial:
          description: A driver is installed but not completely (no C(tools/upgrade-tool)).
          type: bool
        driver_changes:
          description: The driver differs from the wanted one, or is installed partially.
          type: bool
        firmware_changes:
          description: The firmware is managed and differs from the wanted one.
          type: bool
        steps:
          description:
            - The packages to install, in order, each with C(component), C(version),
              C(previous), C(action) (C(full) or C(upgrade)), C(file), C(sha256) and C(source).
            - Empty when the node already has the wanted versions.
          type: list
          elements: dict
        expected_devices:
          description: The C(/dev/davinci) nodes the NPUs give (PCI functions times chips per function).
          type: int
          sample: 8
        required_tools:
          description: The tools the driver installer requires; C(a,b) is either.
          type: list
          elements: str
        probed_tools:
          description: Every program name of RV(plan.npu_driver.required_tools), for P(cubestudio.ascend.ascend_host_facts#module).
          type: list
          elements: str
    cann_toolkit:
      description:
        - The CANN layer - C(arch), C(kinds), C(new_layout) (8.5 and later) and C(steps), each
          with C(kind), C(file), C(action) (C(install) or C(upgrade)), C(whitelist) and C(log).
      type: dict
    ascend_runtime:
      description: The Ascend Docker Runtime package.
      type: dict
      contains:
        arch:
          description: Architecture in the package name (the machine's when Huawei ships none for it).
          type: str
        file:
          description: The package file name; empty without O(runtime_version).
          type: str
          sample: Ascend-docker-runtime_7.3.0_linux-aarch64.run
        installed:
          description: The installed version, null when absent.
          type: str
        action:
          description:
            - What the package does - C(install), C(upgrade) (another version, compared case-insensitively),
              C(reinstall) (the binary is missing, or it was installed for another O(runtime_engine)),
              C(uninstall) (O(runtime_state=absent)) or C(none).
          type: str
          sample: upgrade
        changes:
          description: RV(plan.ascend_runtime.action) is not C(none).
          type: bool
    changing:
      description: The layers that change, in Huawei's order (what a rolling upgrade drains a node for).
      type: list
      elements: str
      sample: [npu_driver, cann_toolkit, ascend_runtime]
    packages:
      description:
        - Every package file the steps install, in order (firmware and driver, CANN, runtime).
        - What a fleet pre-flight verifies on the controller before any node is touched.
      type: list
      elements: str
      sample: [Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run, Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run]
"""
