#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_compat.py does the work on the
# controller, with the logic in plugins/module_utils/_compat/.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_compat
short_description: Check Ascend driver, firmware, CANN and MindCluster versions against the version matrix
version_added: 0.1.0
description:
  - Checks a set of versions (typically from P(cubestudio.ascend.ascend_facts#module) and
    P(cubestudio.ascend.npu_smi_facts#module), or the versions a role is about to install) against
    the collection's version matrix and sets the fact C(ascend_compat) with a verdict, the findings
    and Huawei's matched set for the driver.
  - The matrix is data, C(data/version_matrix.yml) in the collection (rendered in
    C(docs/version-matrix.md)); every fact in it names its evidence, and guesses are flagged.
    O(matrix_file) selects a site-specific matrix of the same structure.
  - Runs on the controller as an action plugin; nothing is sent to the target, so it also works
    in check mode and before the target is reachable.
  - Versions compare case-insensitively (C(24.1.RC1) equals C(24.1.rc1)); a leading C(v) is
    ignored; fields after the third are patch levels of a release (C(24.1.rc3.7) is release
    C(24.1.rc3)).
  - "Driver and firmware: when the ranges of the installed C(version.info) files are given
    (O(driver_compatible_firmware), O(firmware_compatible_driver)) they decide, with an upper
    bound written with a trailing dot read as that release and the builds on it: C(23.0.rc3.) is
    23.0.rc3 and its patch levels, C(23.0.0.) is the 23.0 release line from 23.0.0 on (23.0.0 to
    23.0.7 ...). This reading is an assumption; it makes firmware 7.1.0.11.220 (shipped with HDK
    23.0.7) accept driver 23.0.7 and refuse 24.1.0."
  - With O(policy=strict) only Huawei's matched sets pass (the HDK release's bundled CANN and
    MindCluster), and the OS must be on the NPU family's list. With O(policy=tolerant) the
    documented tolerance tables of MindCluster apply, a CANN from another train and an
    unlisted OS are warnings, and mixes reported working in the field are notes.
  - Rules that hold under both policies - the C(version.info) ranges, the minimum driver and
    firmware of a product on an OS, docker runtime and device plugin of the same release, docker
    runtime 5.0.RC1 or later.
  - Options left out or empty are not checked.
options:
  driver_version:
    description: NPU driver version (C(ansible_facts.ascend.driver.version), or the C(Version) of C(npu-smi info)).
    type: str
  firmware_version:
    description: NPU firmware version (C(ansible_facts.ascend.firmware.version)).
    type: str
  cann_version:
    description: CANN version (C(ansible_facts.ascend.cann.version)).
    type: str
  mindcluster_version:
    description: Version of the MindCluster (MindX DL) components, the device plugin and the NPU exporter.
    type: str
  docker_runtime_version:
    description: Ascend Docker Runtime version (C(ansible_facts.ascend.docker_runtime.version)); must be the MindCluster release.
    type: str
  npu_family:
    description: NPU family (C(ansible_facts.ascend.npu_family)) - one of C(310), C(310B), C(310P), C(910), C(910B), C(A3), C(A5).
    type: str
  npu_product:
    description:
      - Product (C(ansible_facts.ascend.npu_model), for example C(Atlas 300I Duo)); lifecycle minimums are per product
        and apply when their product name is part of this text.
      - Without it, a minimum of a product of the family is reported as a warning.
    type: str
  os_id:
    description:
      - Distribution (C(ansible_facts.distribution)), matched case-insensitively - C(openEuler), C(Ubuntu),
        C(Kylin Linux Advanced Server) (read as C(kylin)), C(BigCloud Enterprise Linux) (C(bclinux)) ...
    type: str
  os_version:
    description:
      - Distribution version as the matrix writes it (C(22.03), C(22.03-SP4), C(24.03-SP1), C(22.04), C(V10-Sword)).
      - C(LTS) and blanks are ignored; a point release (C(22.04.4)) matches its listed release (C(22.04)).
    type: str
  arch:
    description: C(aarch64) or C(x86_64) (C(ansible_facts.architecture)); some OS entries and minimums apply to one architecture only.
    type: str
  driver_compatible_firmware:
    description:
      - The driver's C(compatible_version_fw) (C(ansible_facts.ascend.driver.compatible_firmware)), a string like C([7.0.0,7.1.99]) or a
        list of C([min, max]) pairs or C({min, max}) dicts.
      - Without it, the matrix's copy for that driver release is used where it has one.
    type: raw
  firmware_compatible_driver:
    description:
      - The firmware's C(compatible_version_drv) (C(ansible_facts.ascend.firmware.compatible_driver)), a string like
        C([23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]) or a list as for O(driver_compatible_firmware).
    type: raw
  docker_version:
    description: Docker Engine version, checked against the range MindCluster documents.
    type: str
  containerd_version:
    description: containerd version, checked against the documented range and against the docker runtime's ability to edit config version 3.
    type: str
  kubernetes_version:
    description: Kubernetes version, checked against the documented range.
    type: str
  policy:
    description: C(strict) accepts only Huawei's matched sets; C(tolerant) accepts the documented tolerance ranges.
    type: str
    choices: [strict, tolerant]
    default: strict
  fail_on_error:
    description: Fail the task when a finding has severity C(error). The fact is returned either way.
    type: bool
    default: true
  matrix_file:
    description: Path on the controller of a site-specific matrix (same structure as C(data/version_matrix.yml), C(schema 1)).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - The matrix and the interpretation of its sources are described in C(docs/version-matrix.md), generated from the data file.
seealso:
  - module: cubestudio.ascend.ascend_facts
  - module: cubestudio.ascend.npu_smi_facts
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read the node
  cubestudio.ascend.ascend_facts:

- name: Check what is installed
  cubestudio.ascend.ascend_compat:
    driver_version: "{{ ansible_facts['ascend']['driver']['version'] | default(omit, true) }}"
    firmware_version: "{{ ansible_facts['ascend']['firmware']['version'] | default(omit, true) }}"
    driver_compatible_firmware: "{{ ansible_facts['ascend']['driver']['compatible_firmware'] | default(omit, true) }}"
    firmware_compatible_driver: "{{ ansible_facts['ascend']['firmware']['compatible_driver'] | default(omit, true) }}"
    cann_version: "{{ ansible_facts['ascend']['cann']['version'] | default(omit, true) }}"
    npu_family: "{{ ansible_facts['ascend']['npu_family'] | default(omit, true) }}"
    npu_product: "{{ ansible_facts['ascend']['npu_model'] | default(omit, true) }}"
    os_id: "{{ ansible_facts['distribution'] }}"
    os_version: "{{ ansible_facts['distribution_version'] }}"
    arch: "{{ ansible_facts['architecture'] }}"
    policy: tolerant

- name: Check a plan before installing, without failing, and pick the matched CANN
  cubestudio.ascend.ascend_compat:
    driver_version: 24.1.rc3
    cann_version: 8.0.RC3
    mindcluster_version: 6.0.RC3
    docker_runtime_version: 6.0.RC3
    fail_on_error: false

- name: Show the CANN that matches the driver
  ansible.builtin.debug:
    msg: "{{ ansible_facts['ascend_compat']['recommended']['cann'] }}"
"""

RETURN = r"""
ascend_compat:
  description: The same as RV(ansible_facts.ascend_compat), also returned when the task fails so that C(register) sees it.
  returned: always
  type: dict
ansible_facts:
  description: Facts to add to the host's facts (not applied when the task fails).
  returned: always
  type: dict
  contains:
    ascend_compat:
      description: The verdict.
      returned: always
      type: dict
      contains:
        ok:
          description: No finding has severity C(error).
          type: bool
          sample: false
        refused:
          description:
            - The findings that refuse the versions under the policy - every C(error), and under C(strict) the
              C(warning) of rule C(driver.firmware.matrix) (a firmware build never seen with the driver's HDK release).
            - preflight and npu_driver refuse on this list, so they refuse the same nodes.
          type: list
          elements: dict
        policy:
          description: The policy used.
          type: str
          choices: [strict, tolerant]
          sample: strict
        matrix_file:
          description: The matrix that was read.
          type: str
        findings:
          description: What is wrong or worth knowing, in check order.
          type: list
          elements: dict
          contains:
            rule:
              description:
                - Stable rule id.
                - C(input.version), C(driver.accepts-firmware), C(firmware.accepts-driver), C(driver.firmware.matrix), C(driver.known),
                  C(cann.matched), C(cann.known), C(mindcluster.matched), C(mindcluster.tolerance.hdk), C(mindcluster.tolerance.cann),
                  C(docker_runtime.mindcluster), C(docker_runtime.minimum), C(containerd.config-v3), C(stack.docker),
                  C(stack.containerd), C(stack.kubernetes), C(os.supported), C(os.no-data), C(family.unknown),
                  C(lifecycle.driver), C(lifecycle.firmware), C(matrix.guess).
              type: str
              sample: cann.matched
            severity:
              description: C(error) makes RV(ansible_facts.ascend_compat.ok) false (and the task fail with O(fail_on_error)).
              type: str
              choices: [error, warning, info]
            component:
              description: What the finding is about (C(driver), C(firmware), C(cann), C(mindcluster), C(docker_runtime), C(os), C(npu) ...).
              type: str
              sample: cann
            message:
              description: What is wrong, with the versions involved.
              type: str
              sample: >-
                CANN 7.0.0 is not the matched set of driver 23.0.rc2: Huawei's bundles pair HDK 23.0.RC2
                with CANN 6.3.RC2; CANN 7.0.0 belongs to HDK 23.0.0 (a guess)
            fix:
              description: What to do about it.
              type: str
              sample: install CANN 6.3.RC2, or the driver of HDK 23.0.0
        recommended:
          description:
            - Huawei's matched set for the driver (or, without a driver, for the CANN), null when the matrix does not know the release.
            - Roles take their defaults from it.
          type: dict
          contains:
            hdk:
              description: The HDK release of the matrix.
              type: str
              sample: 24.1.RC3
            driver:
              description: The driver version given, else the HDK release in lower case (as in package file names).
              type: str
              sample: 24.1.rc3
            firmware:
              description: A firmware build seen with this release for the NPU family (the exact driver build first); null when none is known.
              type: str
              sample: 7.5.0.1.129
            cann:
              description: The CANN bundled with the release.
              type: str
              sample: 8.0.RC3
            cann_also:
              description: Other CANN releases of the same bundle (rare).
              type: list
              elements: str
            mindcluster:
              description: The MindCluster (device plugin, exporter) release bundled with it.
              type: str
              sample: 6.0.RC3
            docker_runtime:
              description: The Ascend Docker Runtime release to use (always the MindCluster release).
              type: str
              sample: 6.0.RC3
            guess:
              description: Part of this set is flagged as a guess in the matrix, or taken from the X.Y.0 release of a maintenance release.
              type: bool
            inherited_from:
              description: The HDK release CANN/MindCluster were taken from for a maintenance release (C(23.0.0) for driver 23.0.7), else null.
              type: str
            evidence:
              description: Source keys (see the matrix's C(sources)) behind the CANN and MindCluster pairing.
              type: list
              elements: str
              sample: [DEP-6.0.0]
"""
