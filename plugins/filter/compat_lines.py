# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The compat_lines filter: ascend_compat findings -> the sentences of a refusal."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._refusals import (
    finding_lines,
)

DOCUMENTATION = r"""
name: compat_lines
short_description: The findings of ascend_compat as the sentences of a refusal
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - 'Each finding of M(cubestudio.ascend.ascend_compat) as C([rule] message. Fix: fix.).'
options:
  _input:
    description: Findings (or the C(refused) list) of M(cubestudio.ascend.ascend_compat).
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Refuse what the policy refuses
  ansible.builtin.assert:
    that: compat['refused'] | length == 0
    fail_msg: "{{ compat['refused'] | cubestudio.ascend.compat_lines | join(' ') }} Nothing was changed."
"""

RETURN = r"""
_value:
  description: One sentence per finding.
  type: list
  elements: str
"""


def compat_lines(findings):
    """The sentences; AnsibleFilterError on bad input."""
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise AnsibleFilterError("compat_lines expects a list of findings")
    try:
        return finding_lines(findings)
    except KeyError as error:
        raise AnsibleFilterError("compat_lines: a finding has no %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"compat_lines": compat_lines}
