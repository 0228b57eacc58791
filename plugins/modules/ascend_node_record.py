#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_node_record.py does the work on the
# controller, with the logic in plugins/module_utils/_node/_node_record.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_node_record
short_description: One structured record of an Ascend node, from its facts (internal to the playbooks)
version_added: 0.1.0
description:
  - From a node's facts (P(cubestudio.ascend.ascend_facts#module),
    P(cubestudio.ascend.npu_smi_facts#module), P(cubestudio.ascend.ascend_compat#module)) and
    what the Kubernetes API says of the node, builds one record - NPUs, health of every chip
    (unhealthy first), temperature, HBM, the installed versions, the compatibility verdict, the
    pending reboot, allocatable against the healthy chips - and the summary lines of the site
    playbook.
  - The summary of C(cubestudio.ascend.site), the fleet report (P(cubestudio.ascend.ascend_fleet_report#module),
    C(cubestudio.ascend.report)) and the doctor read this record instead of deciding in Jinja.
  - Runs on the controller and changes nothing.
author: cubestudio maintainers (@cubestudio)
options:
  host:
    description: The inventory host name.
    type: str
    required: true
  ascend:
    description: The node's C(ansible_facts.ascend) (P(cubestudio.ascend.ascend_facts#module)).
    type: dict
    required: true
  npu_smi:
    description: The node's C(ansible_facts.ascend_npu_smi) when P(cubestudio.ascend.npu_smi_facts#module) succeeded; omit or empty otherwise.
    type: dict
  npu_smi_error:
    description: The failure message of P(cubestudio.ascend.npu_smi_facts#module) when C(npu-smi) ran and failed.
    type: str
  compat:
    description: The node's C(ansible_facts.ascend_compat) (P(cubestudio.ascend.ascend_compat#module)).
    type: dict
  kubernetes:
    description: The node is meant to be in a Kubernetes cluster (C(ascend_kubernetes)); without it the Kubernetes part of the record is off.
    type: bool
    default: false
  cluster:
    description:
      - The registered result of one M(cubestudio.ascend.ascend_k8s_read) for the play (C(run_once)) that read the
        node (O(node_name)) and the device plugin's pods; a failed read (C(failed_when) false) is the node's error.
      - Takes the place of O(k8s_node), O(k8s_error) and O(device_plugin_pods).
    type: raw
  node_name:
    description: The node's name in Kubernetes, its key in O(cluster); required with O(cluster).
    type: str
  k8s_node:
    description:
      - The node's C(Node) object from the API (an item of C(resources) of M(kubernetes.core.k8s_info)); omit when not
        registered. Ignored with O(cluster).
    type: dict
  k8s_error:
    description: Why the C(Node) could not be read (the C(msg) of M(kubernetes.core.k8s_info)). Ignored with O(cluster).
    type: str
  device_plugin_pods:
    description:
      - The device plugin's pods on the node (label C(name=ascend-device-plugin-ds)); the image tag gives the plugin's
        version. Ignored with O(cluster).
    type: list
    elements: dict
    default: []
  smoke_npu_count:
    description: How many NPUs the device plugin's smoke pod saw (C(device_plugin_smoke_result.npu_count)), when it ran.
    type: int
  layer_results:
    description:
      - What each layer did in this run, one line each - the node layers' (the fact C(_layer_results)) and the
        Kubernetes layers' (C(device_plugin_layer_result), C(exporter_layer_result)) - skipped as unchanged, or run in
        full (applied) and verified, and why.
    type: list
    elements: str
    default: []
  chip_map_record:
    description:
      - The text of the chip map recorded on the node at the end of the last converge
        (C(/var/lib/cubestudio-ascend/chip-map.json), C(ascend_chip_map_file)); omit when there is none.
      - The record says which chips moved since (troubleshooting row T47); a text that is not a chip map is
        reported in C(chip_map.error), not a failure.
    type: str
  containers:
    description:
      - The running containers that use the node's NPUs, C(ansible_facts.ascend_npu_containers.containers) of
        P(cubestudio.ascend.npu_container_facts#module); the record lists the versions their images carry
        (RV(record.images)). Empty lists none.
    type: list
    elements: dict
    default: []
  metrics_url:
    description:
      - Where the exporter's metrics are read (C(lookup('cubestudio.ascend.ascend_settings', 'exporter_metrics_url'))),
        printed in the summary's Kubernetes line; empty prints none.
    type: str
    default: ""
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.controller_facts
notes:
  - Internal to the playbooks of cubestudio.ascend, used by the summary
    (C(cubestudio.ascend.summary), the end of C(cubestudio.ascend.site)) and
    C(cubestudio.ascend.report). Its options and results follow what they need and may change in any
    release; it is documented for them and for debugging, not as an interface.
  - The module runs on the controller (action plugin); it needs no connection to the node.
  - Input that the fact modules never return (no C(pci_npu_count) in O(ascend), a non-dict) fails
    the task with the cause.
seealso:
  - module: cubestudio.ascend.ascend_fleet_report
"""

EXAMPLES = r"""
- name: Build the node record
  cubestudio.ascend.ascend_node_record:
    host: "{{ inventory_hostname }}"
    ascend: "{{ ansible_facts['ascend'] }}"
    npu_smi: "{{ ansible_facts['ascend_npu_smi'] | default({}) }}"
    compat: "{{ ansible_facts['ascend_compat'] }}"

- name: Print it
  ansible.builtin.debug:
    msg: "{{ ansible_facts['ascend_node_record']['summary'] }}"
"""

RETURN = r"""
record:
  description: The record, also set as the fact C(ascend_node_record).
  returned: success
  type: dict
  contains:
    host:
      description: The inventory host name.
      type: str
      sample: atlas-01
    npu:
      description: The NPUs.
      type: dict
      contains:
        family:
          description: NPU family from the PCI ids (C(910B), C(310P) ...), null without NPUs.
          type: str
          sample: 910B
        model:
          description: The product where the PCI subsystem id tells it, else null.
          type: str
        pci_count:
          description: Ascend PCI functions.
          type: int
          sample: 8
        npu_count:
          description: NPUs seen by npu-smi; null when npu-smi did not answer.
          type: int
        chip_count:
          description: Chips seen by npu-smi; null when npu-smi did not answer.
          type: int
        chip_name:
          description: Chip name npu-smi prints (C(910B3)), null without npu-smi.
          type: str
    health:
      description: The verdict on the chips.
      type: dict
      contains:
        state:
          description: >-
            C(ok) (every chip OK), C(unhealthy) (a chip not OK), C(npu_smi_failed) (npu-smi ran
            and failed, for example C(-8005)), C(no_npu_smi) (NPUs but no npu-smi read),
            C(no_npu) (no Ascend PCI function).
          type: str
          sample: ok
        healthy:
          description: C(true) when npu-smi answered and every chip is OK; null without npu-smi.
          type: bool
        worst:
          description: The worst chip health (C(OK), C(Warning), C(Alarm), C(Critical) or C(Unknown)).
          type: str
        unhealthy_chips:
          description: The chips not OK, worst first, each C({npu, chip, health}).
          type: list
          elements: dict
        unhealthy_npus:
          description: Ids of the NPUs not OK.
          type: list
          elements: int
        error:
          description: The npu-smi failure when C(state) is C(npu_smi_failed), else null.
          type: str
    chips:
      description: >-
        Every chip npu-smi sees, unhealthy first (worst health first), then by NPU and chip: C(npu),
        C(chip), C(name), C(health), C(temp_c), C(power_w), C(aicore_pct), C(hbm_used_mb),
        C(hbm_total_mb), C(memory_used_mb), C(memory_total_mb) (null where the layout has none).
      type: list
      elements: dict
    temperature:
      description: The hottest chip, C({max_c, hottest_npu, hottest_chip}); nulls without npu-smi.
      type: dict
    hbm:
      description: HBM of all chips, C({used_mb, total_mb}); null without HBM (310 family) or npu-smi.
      type: dict
    versions:
      description: >-
        Installed versions, null where absent - C(driver), C(firmware), C(cann), C(runtime) (the
        Ascend Docker Runtime) and C(device_plugin) (the tag of the device plugin's image on the node).
      type: dict
      sample: {driver: 25.5.0, firmware: 7.8.0.5.216, cann: 8.5.0, runtime: 7.3.0, device_plugin: 7.3.0}
    driver_complete:
      description: The driver is installed completely; null without a driver.
      type: bool
    runtime_scene:
      description: The engine the Ascend Docker Runtime was installed for; null without it.
      type: str
    compat:
      description: C({policy, ok, problems}), problems the errors and warnings of the version matrix as C({severity, message}); null when not checked.
      type: dict
    reboot:
      description: C({pending, reasons}) from C(ansible_facts.ascend.reboot).
      type: dict
    kubernetes:
      description: The node in the cluster.
      type: dict
      contains:
        enabled:
          description: The Kubernetes layer is on for the node.
          type: bool
        registered:
          description: The C(Node) exists; null when the layer is off.
          type: bool
        node_name:
          description: The C(Node)'s name.
          type: str
        allocatable:
          description: Allocatable C(huawei.com/) resources of the node.
          type: dict
          sample: {huawei.com/Ascend910: 8}
        allocatable_npus:
          description: The sum of the C(huawei.com/Ascend*) resources; null when unknown.
          type: int
        healthy_chips:
          description: Chips npu-smi says are OK; null without npu-smi.
          type: int
        allocatable_matches:
          description: C(allocatable_npus) equals C(healthy_chips); null when either is unknown.
          type: bool
        device_plugin_image:
          description: The image of the device plugin's pod on the node.
          type: str
        smoke_npu_count:
          description: NPUs the smoke pod saw, when it ran.
          type: int
        metrics_url:
          description: O(metrics_url), null when empty.
          type: str
        error:
          description: Why the node could not be read.
          type: str
    layers:
      description: What each layer did in this run (O(layer_results)), printed under the Kubernetes line.
      type: list
      elements: str
    chip_map:
      description: Device numbering drift (troubleshooting row T47), from npu-smi and the recorded chip map.
      type: dict
      contains:
        chips:
          description: >-
            Each chip with a PCI bus id, by bus id - C({bus_id, npu, chip, phy_id, logic_id, davinci}); C(davinci) is
            the N of C(/dev/davinci<N>) (the Phy-ID column where npu-smi prints one, else the Device column).
          type: list
          elements: dict
        recorded:
          description: A chip map was recorded on the node.
          type: bool
        moved:
          description: Chips whose NPU id, phy id, logic id or davinci node differ from the record, each C({bus_id, was, now, fields}).
          type: list
          elements: dict
        moved_text:
          description: The moved chips in one line (C(0000:c1:00.0 davinci0 -> davinci1 (logic 0 -> 1))), empty when none moved.
          type: str
        missing:
          description: Bus ids recorded and not seen by npu-smi now.
          type: list
          elements: str
        added:
          description: Bus ids seen now and not recorded.
          type: list
          elements: str
        record_text:
          description: The text to record at the end of a converge (JSON), null without chips.
          type: str
        record_changed:
          description: O(chip_map_record) is not C(record_text) - the record is to be written (false without chips).
          type: bool
        error:
          description: Why the recorded text is not a chip map, else null.
          type: str
    images:
      description:
        - The containers of O(containers) that hold NPUs (they map C(/dev/davinci<N>) or set
          C(ASCEND_VISIBLE_DEVICES); not those that see every device), each with the versions its image
          carries, read from its label C(cubestudio.ascend/cann-version) or its tag (the field guide's
          C(cann8.5.0-drv25.5.0-ascend), Huawei's C(8.5.0-910b-ubuntu22.04-py3.11)) -
          C({where, image, labels, cann, driver, source, known, reason}); C(source) is C(label),
          C(field-guide), C(huawei) or null, C(reason) why no version was read.
        - The fleet report holds each against the node's driver by the version matrix.
      type: list
      elements: dict
    summary:
      description: The lines the site playbook's summary prints.
      type: list
      elements: str
"""
