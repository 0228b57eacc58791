# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_python_check filter: the raw Python probe of a node -> may it run modules?"""

from __future__ import annotations

import os

import yaml
from ansible.errors import AnsibleFilterError
from ansible.release import __version__ as ANSIBLE_CORE_VERSION

from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._node_python import (
    NodePythonDataError,
    node_python_verdict,
)

DOCUMENTATION = r"""
name: node_python_check
short_description: Whether a node's Python can run the controller's modules
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Reads the output of the raw probe of the preflight role's first task (a line
    C(cubestudio-python-version X.Y.Z) or C(cubestudio-python-missing)) and compares the node's
    Python with the range of node Pythons the controller's ansible-core supports, read from the
    collection's C(data/ansible_core.yml).
  - Role-internal helper of the preflight role.
options:
  _input:
    description: The probe's standard output.
    type: str
    required: true
  interpreter:
    description: The interpreter the probe ran (named in the message).
    type: str
    default: python3
  core_version:
    description: The ansible-core version to check against; the controller's by default (for tests).
    type: str
"""

EXAMPLES = r"""
- name: Refuse a node whose Python is too old
  vars:
    verdict: "{{ probe.stdout | cubestudio.ascend.node_python_check('python3') }}"
  ansible.builtin.fail:
    msg: "{{ verdict['problem'] }}"
  when: not verdict['ok']
"""

RETURN = r"""
_value:
  description: The verdict.
  type: dict
  contains:
    ok:
      description: Whether the node's Python can run the modules.
      type: bool
    version:
      description: The node's Python version, or null when the probe found none.
      type: str
    oldest:
      description: The oldest node Python of the controller's ansible-core.
      type: str
    newest:
      description: The newest node Python of the controller's ansible-core.
      type: str
    core:
      description: The ansible-core release (major.minor) whose range was used.
      type: str
    problem:
      description: Cause and fix (troubleshooting row T42) when ok is false, else empty.
      type: str
    warning:
      description: A node Python newer than the range, or a release the table does not know.
      type: str
"""

TABLE = os.path.join(DATA_DIR, "ansible_core.yml")


def node_python_check(stdout, interpreter="python3", core_version=None):
    """The verdict of node_python_verdict on the table of data/ansible_core.yml."""
    if not isinstance(stdout, str):
        raise AnsibleFilterError(
            "node_python_check expects the raw probe's stdout (a string), got %s"
            % type(stdout).__name__
        )
    try:
        with open(TABLE, encoding="utf-8") as handle:
            table = yaml.safe_load(handle)
        return node_python_verdict(
            stdout, core_version or ANSIBLE_CORE_VERSION, table, str(interpreter)
        )
    except (OSError, yaml.YAMLError, NodePythonDataError) as error:
        raise AnsibleFilterError(f"{TABLE}: {error}") from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"node_python_check": node_python_check}
