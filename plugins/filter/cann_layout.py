# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cann_layout filter: the CANN installed -> the links to move and the environment script."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._cann_layout import (
    installed_packages,
    layout,
)

DOCUMENTATION = r"""
name: cann_layout
short_description: The default-version links to move and the environment script of the wanted CANN
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - For the wanted CANN version, the C(latest) links (before CANN 8.5.0) or the C(cann) link (8.5.0 and later)
    that do not point at it yet, the path of its C(set_env.sh), and the script login shells source.
  - The decision of the cann_toolkit role's configure step, in Python (C(plugins/module_utils/_installers/_cann_layout.py)).
options:
  _input:
    description:
      - C(cann) the C(cann) fact of M(cubestudio.ascend.ascend_facts) (may be null), C(version) the wanted version,
        C(kinds) the plan's install order, C(wanted) the packages of the role, C(new_layout) whether the version
        uses the 8.5.0 layout, C(install_path), C(products) the kind to product directory map.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Work out the links to move and the environment script
  vars:
    __inputs:
      cann: "{{ ansible_facts['ascend']['cann'] }}"
      version: "{{ cann_toolkit_version }}"
      kinds: [toolkit]
      wanted: [toolkit]
      new_layout: false
      install_path: /usr/local/Ascend
      products: {toolkit: ascend-toolkit}
  ansible.builtin.set_fact:
    layout: "{{ __inputs | cubestudio.ascend.cann_layout }}"
"""

RETURN = r"""
_value:
  description:
    - C(links) a list of C({path, src}) (src relative), without duplicates; C(set_env) the wanted version's script;
      C(source) the script login shells source (C(<install_path>/cann/set_env.sh) from CANN 8.5.0 on).
  type: dict
"""

KEYS = ("version", "kinds", "wanted", "new_layout", "install_path", "products")


def cann_layout(inputs):
    """{links, set_env, source}; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or any(key not in inputs for key in KEYS):
        raise AnsibleFilterError(
            "cann_layout expects a dict with cann, %s" % ", ".join(KEYS)
        )
    try:
        return layout(
            installed_packages(inputs.get("cann")),
            inputs["version"],
            list(inputs["kinds"] or []),
            list(inputs["wanted"] or []),
            boolean(inputs["new_layout"], strict=False),
            str(inputs["install_path"]),
            dict(inputs["products"] or {}),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise AnsibleFilterError("cann_layout: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"cann_layout": cann_layout}
