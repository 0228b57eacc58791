# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layer_fingerprint lookup: a role's inputs now -> one sha256."""

from __future__ import annotations

DOCUMENTATION = r"""
name: layer_fingerprint
short_description: The fingerprint of a layer role's inputs - its variables and the collection's code
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Hashes (sha256) the values the role's variables have now - every option of the role's
    C(meta/argument_specs.yml) entry point C(main), templated - together with the content of
    the role's files, of the internal lifecycle role C(_layer) and of the collection's
    C(plugins/) and C(data/).
  - A layer role records it on the node when it finished (P(cubestudio.ascend.ascend_layer_record#module)).
    On a later run the same fingerprint means the same settings and the same code; a changed
    variable, an upgraded collection or an edited task file gives another one, and the role
    runs in full.
  - The option C(<role>_fast_rerun) itself is left out, so switching it changes nothing.
options:
  _terms:
    description: The role's name (C(npu_driver)), one of this collection's roles.
    required: true
    type: list
    elements: str
  inputs:
    description:
      - Further inputs of the layer that its variables do not hold, hashed with them - for the
        C(hccn) layer this host's part of the fleet plan, which other hosts' variables can change.
    type: raw
    default: {}
notes:
  - Values are hashed, never stored. The code part is read once per controller process.
"""

EXAMPLES = r"""
- name: Show the fingerprint of npu_driver's inputs
  ansible.builtin.debug:
    msg: "{{ lookup('cubestudio.ascend.layer_fingerprint', 'npu_driver') }}"

- name: Show the fingerprint of hccn's inputs with this host's plan
  ansible.builtin.debug:
    msg: "{{ lookup('cubestudio.ascend.layer_fingerprint', 'hccn', inputs=ansible_facts['hccn_plan']) }}"
"""

RETURN = r"""
_raw:
  description: One element, the fingerprint (64 hex digits).
  type: list
  elements: str
"""

import hashlib
import json
import os

import yaml
from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

COLLECTION = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
_CODE: dict = {}
_OPTIONS: dict = {}


def _tree_hash(digest, folder: str) -> None:
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(base, name)
            digest.update(os.path.relpath(path, COLLECTION).encode() + b"\0")
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())


def code_hash(role: str) -> str:
    """sha256 of the role's files, the lifecycle role's, plugins/ and data/ (once per process)."""
    if role not in _CODE:
        digest = hashlib.sha256()
        for folder in (
            os.path.join("roles", role),
            os.path.join("roles", "_layer"),
            "plugins",
            "data",
        ):
            _tree_hash(digest, os.path.join(COLLECTION, folder))
        _CODE[role] = digest.hexdigest()
    return _CODE[role]


def option_names(role: str) -> list:
    """The options of the role's entry point main, without <role>_fast_rerun."""
    if role not in _OPTIONS:
        path = os.path.join(COLLECTION, "roles", role, "meta", "argument_specs.yml")
        try:
            with open(path, encoding="utf-8") as handle:
                spec = yaml.safe_load(handle)
            options = spec["argument_specs"]["main"].get("options") or {}
        except (OSError, yaml.YAMLError, KeyError, TypeError) as error:
            raise AnsibleLookupError(
                "cannot read the options of role %s from %s: %s" % (role, path, error)
            ) from None
        _OPTIONS[role] = sorted(
            name for name in options if name != role + "_fast_rerun"
        )
    return _OPTIONS[role]


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if len(terms or []) != 1 or not isinstance(terms[0], str):
            raise AnsibleLookupError(
                "layer_fingerprint takes one role name, got %r" % (terms,)
            )
        role = terms[0]
        if not os.path.isdir(os.path.join(COLLECTION, "roles", role)) or "/" in role:
            raise AnsibleLookupError(
                "layer_fingerprint: %s is not a role of cubestudio.ascend" % role
            )
        variables = variables or {}
        values = {}
        for name in option_names(role):
            if name in variables:
                values[name] = self._templar.template(variables[name])
            else:
                values[name] = {"undefined": True}
        digest = hashlib.sha256()
        digest.update(code_hash(role).encode())
        digest.update(json.dumps(values, sort_keys=True, default=str).encode())
        inputs = kwargs.get("inputs") or {}
        if inputs:
            digest.update(b"\0inputs\0")
            digest.update(json.dumps(inputs, sort_keys=True, default=str).encode())
        return [digest.hexdigest()]
