# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The k8s_spec_annotate filter: Kubernetes objects with the hash of their desired form."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils import _k8s_record

DOCUMENTATION = r"""
name: k8s_spec_annotate
short_description: Add the hash of each Kubernetes object's desired form as an annotation
version_added: 0.9.0
author: cubestudio maintainers (@cubestudio)
description:
  - Returns the objects, each with the annotation C(cubestudio.ascend/spec-hash) holding a hash
    of the object as rendered (the annotation itself left out). A live object with the same
    annotation is as the role last applied it - the Kubernetes layer's record (issue 24) compares
    it without a server-side diff.
options:
  _input:
    description: The objects (a rendered manifest, C(from_yaml_all | list)); empty documents are dropped.
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Apply the manifests with their hashes
  kubernetes.core.k8s:
    state: present
    apply: true
    definition: "{{ lookup('ansible.builtin.template', 'app.yaml.j2') | ansible.builtin.from_yaml_all | list | cubestudio.ascend.k8s_spec_annotate }}"
"""

RETURN = r"""
_value:
  description: The objects with C(metadata.annotations["cubestudio.ascend/spec-hash"]).
  type: list
  elements: dict
"""


def k8s_spec_annotate(objects):
    """The objects with their spec hash; AnsibleFilterError on input that is no object list."""
    try:
        return _k8s_record.annotate(list(objects or []))
    except (_k8s_record.RecordError, TypeError) as exc:
        raise AnsibleFilterError("k8s_spec_annotate: %s" % exc) from exc


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"k8s_spec_annotate": k8s_spec_annotate}
