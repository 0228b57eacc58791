# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The npu_smi_info filter: text printed by ``npu-smi info`` -> the ascend_npu_smi structure."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    NPU_SMI_ERROR_HINTS,
    NpuSmiParseError,
    npu_smi_error,
    parse_info,
)

DOCUMENTATION = r"""
name: npu_smi_info
short_description: Parse the text of C(npu-smi info)
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Turns the output of C(npu-smi info) into the structure of the C(ascend_npu_smi) fact of
    M(cubestudio.ascend.npu_smi_facts), with the same parser.
  - Use it for output that the module cannot read itself, for example the C(npu-smi info) that
    ran inside a container (the check container of the C(ascend_runtime) role).
  - Text that is not an C(npu-smi info) table, or that holds a DCMI error such as C(-8005),
    fails the task with the reason and an excerpt of the text.
options:
  _input:
    description: The text printed by C(npu-smi info).
    type: str
    required: true
seealso:
  - module: cubestudio.ascend.npu_smi_facts
"""

EXAMPLES = r"""
- name: Run npu-smi in a container of the Ascend runtime
  ansible.builtin.command: docker run --rm --runtime ascend -e ASCEND_VISIBLE_DEVICES=0 ubuntu:22.04 npu-smi info
  register: npu_check
  changed_when: false

- name: The container saw exactly one NPU
  ansible.builtin.assert:
    that: (npu_check.stdout | cubestudio.ascend.npu_smi_info).npu_count == 1
"""

RETURN = r"""
_value:
  description:
    - The parsed table, with the keys of the C(ascend_npu_smi) fact.
    - C(tool_version), C(driver_version), C(npu_count), C(chip_count), C(healthy), C(npus)
      (id, name, health, chips) and C(processes).
  type: dict
"""


def npu_smi_info(text):
    """Parse ``npu-smi info`` output; AnsibleFilterError with the reason on bad input."""
    if not isinstance(text, str):
        raise AnsibleFilterError(
            "npu_smi_info expects the text printed by npu-smi info, got %s"
            % type(text).__name__
        )
    code = npu_smi_error(text)
    if code:
        hint = NPU_SMI_ERROR_HINTS.get(
            code, "see the DCMI error codes in Huawei's npu-smi manual"
        )
        raise AnsibleFilterError("npu-smi failed with DCMI error %s: %s" % (code, hint))
    try:
        return parse_info(text)
    except NpuSmiParseError as exc:
        detail = "\n" + exc.excerpt if exc.excerpt else ""
        raise AnsibleFilterError(
            "the text is not an npu-smi info table: %s%s" % (exc, detail)
        ) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"npu_smi_info": npu_smi_info}
