# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The k8s_spec_annotate filter: Kubernetes objects with the hash of their desired form."""

from __future__ import annotations

import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s import _k8s_record

DOCUMENTATION = r"""
name: k8s_spec_annotate
short_description: Add the hash of each Kubernetes object's desired form as an annotation
version_added: 0.2.0
author: cubestudio maintainers (@cubestudio)
description:
  - Returns the objects, each with the annotation C(cubestudio.ascend/spec-hash) holding a hash
    of the object as rendered (the annotation itself left out). A live object with the same
    annotation is as the role last applied it - the Kubernetes layer's record (issue 24) compares
    it without a server-side diff.
options:
  _input:
    description:
      - The objects - a list of objects (C(from_yaml_all | list)), or rendered manifests as text (one multi-document
        YAML string, or a list of them, e.g. from C(query('ansible.builtin.template', ...))); empty documents are dropped.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Apply the manifests with their hashes
  kubernetes.core.k8s:
    state: present
    apply: true
    definition: "{{ lookup('ansible.builtin.template', 'app.yaml.j2') | ansible.builtin.from_yaml_all | list | cubestudio.ascend.k8s_spec_annotate }}"

- name: The same from two templates, as text
  ansible.builtin.set_fact:
    objects: "{{ query('ansible.builtin.template', 'app.yaml.j2', 'service.yaml.j2') | cubestudio.ascend.k8s_spec_annotate }}"
"""

RETURN = r"""
_value:
  description: The objects with C(metadata.annotations["cubestudio.ascend/spec-hash"]).
  type: list
  elements: dict
"""


def _objects(value) -> list:
    """Objects from a list of objects and/or rendered manifests (multi-document YAML text)."""
    items = [value] if isinstance(value, str) else list(value or [])
    out = []
    for item in items:
        if isinstance(item, str):
            out.extend(yaml.safe_load_all(item))
        else:
            out.append(item)
    return out


def k8s_spec_annotate(objects):
    """The objects with their spec hash; AnsibleFilterError on input that is no object list."""
    try:
        return _k8s_record.annotate(_objects(objects))
    except yaml.YAMLError as exc:
        raise AnsibleFilterError(
            "k8s_spec_annotate: a manifest is not YAML: %s" % exc
        ) from exc
    except (_k8s_record.RecordError, TypeError) as exc:
        raise AnsibleFilterError("k8s_spec_annotate: %s" % exc) from exc


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"k8s_spec_annotate": k8s_spec_annotate}
