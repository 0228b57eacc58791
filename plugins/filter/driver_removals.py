# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The driver_removals filter: what is installed -> what the uninstall entry point removes."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    removals,
)

DOCUMENTATION = r"""
name: driver_removals
short_description: The driver and firmware packages the uninstall entry point removes
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The installed packages among C(components), firmware first, each with the uninstall script its
    package left under its install path.
options:
  _input:
    description:
      - C(facts) the C(ascend) fact of M(cubestudio.ascend.ascend_facts), C(components) a list of C(firmware),
        C(driver).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Decide what to remove
  vars:
    __inputs:
      facts: "{{ ansible_facts['ascend'] }}"
      components: [firmware, driver]
  ansible.builtin.set_fact:
    steps: "{{ __inputs | cubestudio.ascend.driver_removals }}"
"""

RETURN = r"""
_value:
  description: C({component, version, script}) per package to remove.
  type: list
  elements: dict
"""


def driver_removals(inputs):
    """The packages to remove; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("facts"), dict):
        raise AnsibleFilterError(
            "driver_removals expects a dict with facts and components"
        )
    try:
        return removals(inputs["facts"], list(inputs.get("components") or []))
    except ValueError as error:
        raise AnsibleFilterError("driver_removals: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"driver_removals": driver_removals}
