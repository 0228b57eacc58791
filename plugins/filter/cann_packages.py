# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cann_packages filter: the cann fact of ascend_facts -> its packages."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._cann_layout import (
    installed_packages,
)

DOCUMENTATION = r"""
name: cann_packages
short_description: The CANN packages the cann fact of ascend_facts lists
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The C(packages) of the C(cann) fact of M(cubestudio.ascend.ascend_facts), an empty list when the fact is
    null (no CANN under the install path).
options:
  _input:
    description: The C(cann) fact of M(cubestudio.ascend.ascend_facts), a dict or null.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Remember the installed packages
  ansible.builtin.set_fact:
    packages: "{{ ansible_facts['ascend']['cann'] | cubestudio.ascend.cann_packages }}"
"""

RETURN = r"""
_value:
  description: C({kind, version, directory, info_file, layout, latest}) per package.
  type: list
  elements: dict
"""


def cann_packages(cann):
    """The packages; AnsibleFilterError on bad input."""
    try:
        return installed_packages(cann)
    except ValueError as error:
        raise AnsibleFilterError("cann_packages: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"cann_packages": cann_packages}
