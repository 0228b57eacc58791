# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_settings lookup: the collection-wide settings a playbook needs, resolved once."""

from __future__ import annotations

DOCUMENTATION = r"""
name: ascend_settings
short_description: The collection-wide settings a playbook needs, resolved once
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Returns the settings that playbooks outside the roles (C(doctor.yml), C(upgrade.yml),
    C(tasks/node_record.yml)) need, each resolved by one rule instead of an expression per playbook.
  - C(k8s_node_name) - the host's node name in Kubernetes - C(device_plugin_node_name), else
    C(exporter_node_name), else the host's C(ansible_facts['nodename']).
  - C(k8s_node_names) - the C(k8s_node_name) of every host of the play (C(ansible_play_hosts)), in order, each
    once; the nodes that one read of the cluster for the play asks for. Only when named, it is not in the dict of
    every setting.
  - C(k8s_host), C(kubelet_root), C(cann_env_file), C(engine), C(docker_config), C(containerd_config),
    C(device_permissions), C(exporter_port) - the public variables C(device_plugin_k8s_host),
    C(device_plugin_kubelet_root), C(cann_toolkit_env_file), C(ascend_container_engine),
    C(ascend_runtime_docker_config), C(ascend_runtime_containerd_config),
    C(npu_driver_device_permissions), C(exporter_port); one that is not defined (its role is not in
    the play) has the default of its role. C(device_group) is C(HwHiAiUser) when
    C(npu_driver_device_permissions) is true, else empty.
  - C(device_plugin_namespace), C(device_plugin_pod_selector), C(exporter_namespace),
    C(exporter_pod_selector), C(exporter_metrics_url) - from C(data/mindcluster.yml), the metrics URL
    with C(exporter_port).
options:
  _terms:
    description: Names of settings; the lookup returns their values in this order. Without terms it returns one dict of every setting.
    type: list
    elements: str
    required: false
notes:
  - The variables and their defaults are C(ROLE_VARIABLES) in C(plugins/module_utils/_settings.py);
    a unit test holds the defaults equal to the roles' C(defaults/main.yml).
  - Each role resolves its own variables itself (C(device_plugin_node_name) or the nodename in
    the device_plugin role); the lookup is for playbooks that do not run the role.
"""

EXAMPLES = r"""
- name: Read the host's node from the cluster
  kubernetes.core.k8s_info:
    kind: Node
    name: "{{ lookup('cubestudio.ascend.ascend_settings', 'k8s_node_name') }}"
  delegate_to: "{{ lookup('cubestudio.ascend.ascend_settings', 'k8s_host') }}"

- name: Read every node of the play at once
  cubestudio.ascend.ascend_k8s_read:
    nodes: "{{ lookup('cubestudio.ascend.ascend_settings', 'k8s_node_names') }}"
  delegate_to: "{{ lookup('cubestudio.ascend.ascend_settings', 'k8s_host') }}"
  run_once: true

- name: Every setting as one dict
  ansible.builtin.debug:
    msg: "{{ lookup('cubestudio.ascend.ascend_settings') }}"
"""

RETURN = r"""
_raw:
  description: The values of the settings named in the terms, in order; without terms one element, the dict of every setting.
  type: list
  elements: raw
"""

import os

from ansible.errors import AnsibleError, AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    PlanError,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._settings import (
    SettingsError,
    play_node_names,
    settings,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
    load_data,
)


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        variables = variables or {}

        def value_of(name):
            if name not in variables:
                return None
            return self._templar.template(variables[name])

        facts = value_of("ansible_facts") or {}
        try:
            catalogue = load_data(
                os.path.join(DATA_DIR, "mindcluster.yml"),
                "MindCluster catalogue",
                validate_catalogue,
                PlanError,
            )
        except AnsibleError as error:
            raise AnsibleLookupError("ascend_settings: %s" % error.message) from None
        names = [str(t) for t in terms]
        hostvars = variables.get("hostvars") or {}

        def value_of_host(host, name):
            values = hostvars.get(host) or {}
            return self._templar.template(values[name]) if name in values else None

        def nodename_of(host):
            values = hostvars.get(host) or {}
            return (values.get("ansible_facts") or {}).get("nodename")

        try:
            wanted = [n for n in names if n != "k8s_node_names"]
            found = (
                settings(value_of, facts.get("nodename"), catalogue, wanted)
                if wanted or not names
                else {}
            )
            if "k8s_node_names" in names:
                found["k8s_node_names"] = play_node_names(
                    value_of("ansible_play_hosts") or [], value_of_host, nodename_of
                )
        except SettingsError as error:
            raise AnsibleLookupError("ascend_settings: %s" % error) from None
        return [found[name] for name in names] if terms else [found]
