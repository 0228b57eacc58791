# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The iommu_checks filter: the IOMMU kernel parameters and SR-IOV of a node -> preflight results."""

from __future__ import annotations

import os

import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
    preflight_results,
    validate_rules,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
)

DOCUMENTATION = r"""
name: iommu_checks
short_description: The IOMMU and SR-IOV checks of an Ascend node, as preflight results
version_added: 0.2.0
author: cubestudio maintainers (@cubestudio)
description:
  - From the C(ascend) fact of M(cubestudio.ascend.ascend_facts) (its C(kernel_cmdline) and the
    C(sriov_numvfs) of every NPU PCI function) and the rules of C(data/iommu.yml), the two results
    C(iommu) and C(sriov) of the preflight role, each C({check, ok, severity, message, cause, fix}).
  - C(iommu) fails (a warning) when the kernel command line turns the IOMMU on in translated mode
    without pass-through (row T45); C(sriov) when an NPU function has virtual functions enabled
    (row T46). The severities and the rules, with their sources and what is an assumption, are in
    C(data/iommu.yml).
options:
  _input:
    description: The C(ascend) fact of M(cubestudio.ascend.ascend_facts).
    type: dict
    required: true
  rules_file:
    description: A site copy of C(data/iommu.yml) (same structure); default the collection's.
    type: path
seealso:
  - module: cubestudio.ascend.ascend_facts
"""

EXAMPLES = r"""
- name: Read the node
  cubestudio.ascend.ascend_facts:

- name: Show the IOMMU and SR-IOV results
  ansible.builtin.debug:
    msg: "{{ ansible_facts['ascend'] | cubestudio.ascend.iommu_checks }}"
"""

RETURN = r"""
_value:
  description: Two results, C(iommu) then C(sriov), each C({check, ok, severity, message, cause, fix}).
  type: list
  elements: dict
"""

RULES = os.path.join(DATA_DIR, "iommu.yml")


def load_rules(path=None) -> dict:
    """data/iommu.yml (or a site copy), validated; AnsibleFilterError otherwise."""
    path = path or RULES
    try:
        with open(path, encoding="utf-8") as handle:
            return validate_rules(yaml.safe_load(handle))
    except (OSError, yaml.YAMLError, IommuError) as error:
        raise AnsibleFilterError(f"{path}: {error}") from None


def iommu_checks(ascend, rules_file=None):
    """The preflight results iommu and sriov of one node."""
    if not isinstance(ascend, dict) or "pci_devices" not in ascend:
        raise AnsibleFilterError(
            "iommu_checks expects the ascend fact of cubestudio.ascend.ascend_facts"
        )
    rules = load_rules(rules_file)
    try:
        return preflight_results(
            ascend.get("kernel_cmdline"), ascend.get("pci_devices"), rules
        )
    except IommuError as error:
        raise AnsibleFilterError(f"iommu_checks: {error}") from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"iommu_checks": iommu_checks}
