# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The install_options_by_component filter: ascend_install_options loop results -> options by component."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._driver_steps import (
    options_by_component,
)

DOCUMENTATION = r"""
name: install_options_by_component
short_description: The installer options ascend_install_options decided, by component
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Turns the loop results of M(cubestudio.ascend.ascend_install_options) (loop variable C(__npu_driver_step))
    into a dict from component (C(driver), C(firmware)) to its options; a refused result is left out.
options:
  _input:
    description: The C(results) of the registered loop.
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Remember the installer options of each package
  ansible.builtin.set_fact:
    options: "{{ registered['results'] | cubestudio.ascend.install_options_by_component }}"
"""

RETURN = r"""
_value:
  description: Component to C({install_path, install_username, install_usergroup, install_for_all}).
  type: dict
"""


def install_options_by_component(results):
    """{component: options}; AnsibleFilterError on bad input."""
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise AnsibleFilterError(
            "install_options_by_component expects the results of a loop"
        )
    try:
        return options_by_component(results)
    except (KeyError, TypeError) as error:
        raise AnsibleFilterError(
            "install_options_by_component: no step %s in a result" % error
        ) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"install_options_by_component": install_options_by_component}
