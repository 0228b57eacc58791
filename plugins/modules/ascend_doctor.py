#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_doctor.py does the work on the
# controller, with the logic in plugins/module_utils/_checks/_doctor.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_doctor
short_description: Name the troubleshooting rows a node's facts show (internal to the playbooks)
version_added: 0.1.0
description:
  - From the facts of an Ascend node (P(cubestudio.ascend.ascend_facts#module),
    P(cubestudio.ascend.npu_smi_facts#module), P(cubestudio.ascend.ascend_compat#module),
    P(cubestudio.ascend.npu_container_facts#module), engine config files) and, optionally, what
    the Kubernetes cluster says about it (C(kubernetes.core.k8s_info)), finds the symptoms of the
    collection's troubleshooting table C(data/troubleshooting.yml) and returns one finding per
    symptom, with the row id, the symptom seen on this node, the row's cause and fix.
  - Every container that holds the node's NPUs (a running pod on the node asking for C(huawei.com/Ascend*)
    or annotated by the device plugin, else a container of O(containers) that maps NPUs) has its image's CANN
    (and driver) version read from the image's label C(cubestudio.ascend/cann-version) or its tag (the field
    guide's C(cann8.5.0-drv25.5.0-ascend), Huawei's C(8.5.0-910b-ubuntu22.04-py3.11)) and held against the
    node's driver by the version matrix (row T48, naming the pod, both versions, the matrix row and the fix),
    and its C(ASCEND_*)/C(LD_LIBRARY_PATH) environment against what CANN needs (row T49,
    C(data/container_images.yml)). An image without a version is an C(info) finding.
  - Runs on the controller and changes nothing. The playbook C(cubestudio.ascend.doctor) gathers
    the facts and writes the report.
author: cubestudio maintainers (@cubestudio)
options:
  ascend:
    description: The node's C(ansible_facts.ascend).
    type: dict
    required: true
  npu_smi:
    description: The node's C(ansible_facts.ascend_npu_smi); omit when npu-smi failed.
    type: dict
  npu_smi_error:
    description: The message of a failed C(npu_smi_facts) task (a DCMI error such as C(-8005)); empty when it worked.
    type: str
    default: ""
  compat_findings:
    description: C(ansible_facts.ascend_compat.findings) (run with C(fail_on_error=false)).
    type: list
    elements: dict
    default: []
  device_files:
    description:
      - The C(files) of C(ansible.builtin.find) on C(/dev) for C(davinci*), C(devmm_svm) and C(hisi_hdc)
        (C(path), C(mode), C(gid), C(gr_name), C(pw_name)). Omit to skip the permission check.
    type: list
    elements: dict
  device_group:
    description: Group that must be able to read and write the device nodes (non-root workloads); empty skips the check.
    type: str
    default: ""
  temperature_threshold:
    description: Chip temperature (C) from which a chip counts as throttling; default is read from O(rules_file).
    type: float
  rules_file:
    description: Prometheus rules file with the alert C(AscendNpuTemperatureHigh); default the exporter role's C(files/ascend-npu.rules.yml).
    type: path
  cann_env_file:
    description: C(path), C(exists) and optionally C(content) of the env file of the C(cann_toolkit) role; omit to skip.
    type: dict
  docker_daemon_json:
    description: Text of Docker's C(daemon.json); omit (null) when the file does not exist.
    type: str
  containerd_config:
    description: Text of containerd's C(config.toml); omit (null) when the file does not exist.
    type: str
  engine:
    description: The engine whose config must run the Ascend runtime; C(auto) - the scene the runtime installer recorded.
    type: str
    choices: [auto, docker, containerd]
    default: auto
  containers:
    description: C(ansible_facts.ascend_npu_containers.containers).
    type: list
    elements: dict
  kubernetes:
    description:
      - What the cluster says; omit or C(enabled=false) to skip. Keys C(enabled), C(node_name),
        C(node) (the Node object or null), C(daemonsets) (every DaemonSet), C(pods) (pods on the
        node), C(pending_pods) (Pending pods; unscheduled ones whose nodeSelector fits the node
        count), C(kubelet_root), C(kubelet_socket) (C(path), C(exists), C(islnk)), C(events)
        (recent Warning events of the cluster; those about the node's pods and the waiting pods
        that fit it are read), C(plugin_log) (the device plugin pod's recent log), C(error) (why
        the cluster could not be asked), C(device_plugin_selector) (the plugin's pod label,
        C(lookup('cubestudio.ascend.ascend_settings', 'device_plugin_pod_selector')); without it
        the plugin's DaemonSets are known by their image only).
    type: dict
  memory_headroom:
    description:
      - Per cent of its memory request that a container asking for NPUs should have as headroom in
        its memory limit (row T41; the pods on the node are also checked for setting
        C(ASCEND_VISIBLE_DEVICES) themselves, row T40). The default is the advice of
        the field guide this collection follows, not a Huawei figure.
    type: int
    default: 30
  rows_file:
    description: A site copy of C(data/troubleshooting.yml) (same structure).
    type: path
  catalogue_file:
    description:
      - A site copy of C(data/catalogue.yml) (same structure); its C(chips_per_pci_function) gives the
        C(/dev/davinci) nodes and npu-smi chips expected per PCI function (2 on an Atlas 300I Duo), the count
        npu_driver verifies too.
    type: path
  skip_rows:
    description: Row ids not to report (a known, accepted state).
    type: list
    elements: str
    default: []
  output_dir:
    description:
      - Folder on the controller for the JSON report (the action only computes the path, the playbook writes the file).
        A relative folder is taken from the directory C(ansible-playbook) runs in.
    type: str
    default: doctor
  host:
    description: Name of the report file without C(.json); empty - C(inventory_hostname).
    type: str
    default: ""
  chip_map_record:
    description:
      - The text of the chip map recorded on the node at the end of the last converge
        (C(ascend_chip_map_file), default C(/var/lib/cubestudio-ascend/chip-map.json)); omit when there is none.
      - Chips whose NPU id, phy id, logic id or C(/dev/davinci<N>) differ from the record, as O(npu_smi) reads
        them now, are a T47 finding naming each chip by its PCI bus id.
    type: str
  compat_policy:
    description:
      - Policy of the version matrix when the CANN of a container's image is held against the node's driver
        (row T48) - C(strict) makes an image of another CANN than the driver's matched set an error, C(tolerant)
        a warning (an info when the mix is one seen working), as C(cubestudio.ascend.ascend_compat) decides.
    type: str
    choices: [strict, tolerant]
    default: strict
  matrix_file:
    description: A site copy of C(data/version_matrix.yml) (same structure) for the image check (row T48).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the playbooks of cubestudio.ascend, used by C(cubestudio.ascend.doctor). Its options
    and results follow what they need and may change in any release; it is documented for them and
    for debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
  - Which check finds which row, and the cases tested, are in the collection's C(docs/doctor.md).
seealso:
  - module: cubestudio.ascend.ascend_compat
"""

EXAMPLES = r"""
- name: Name the rows the node's facts show
  cubestudio.ascend.ascend_doctor:
    ascend: "{{ ansible_facts['ascend'] }}"
    npu_smi: "{{ ansible_facts['ascend_npu_smi'] | default(omit) }}"
    compat_findings: "{{ ansible_facts['ascend_compat']['findings'] }}"
  register: doctor
"""

RETURN = r"""
findings:
  description: One entry per symptom found, errors first; empty on a healthy node. Also the fact C(ascend_doctor.findings).
  returned: success
  type: list
  elements: dict
  contains:
    row:
      description: Row id of C(data/troubleshooting.yml).
      type: str
      sample: T12
    symptom:
      description: What was seen on this node.
      type: str
      sample: "not healthy: NPU 3 chip 0 Alarm"
    cause:
      description: The cause (this node's detail first, then the row's cause).
      type: str
    fix:
      description: The row's fix.
      type: str
    severity:
      description: C(error), C(warning) or C(info) (an C(info) finding, such as an image without a version, does not fail a strict run of the playbook).
      type: str
lines:
  description: "The findings as one line each for a person: C([row] SEVERITY: symptom | cause: ... | fix: ...)."
  returned: success
  type: list
  elements: str
output_dir:
  description: O(output_dir) as an absolute path on the controller.
  returned: success
  type: str
  sample: /home/ops/fleet/doctor
report_path:
  description: Where the playbook writes the node's report, C(<output_dir>/<host>.json).
  returned: success
  type: str
  sample: /home/ops/fleet/doctor/atlas-01.json
temperature_threshold:
  description: The throttling threshold used (C).
  returned: success
  type: float
  sample: 80.0
"""
