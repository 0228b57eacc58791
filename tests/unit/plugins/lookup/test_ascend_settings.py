# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_settings lookup: the collection-wide settings from the templated variables, the
host's facts and data/mindcluster.yml; one setting per term, or the dict of all."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import lookup_loader
from ansible.template import Templar, trust_as_template


def run(variables, terms=()):
    loader = DataLoader()
    plugin = lookup_loader.get(
        "cubestudio.ascend.ascend_settings",
        loader=loader,
        templar=Templar(loader=loader, variables=variables),
    )
    return plugin.run(list(terms), variables=variables)


def test_without_terms_one_dict_of_every_setting():
    (found,) = run({"ansible_facts": {"nodename": "node-1"}})
    assert found["k8s_node_name"] == "node-1"
    assert found["kubelet_root"] == "/var/lib/kubelet"
    assert found["device_plugin_pod_selector"] == "name=ascend-device-plugin-ds"
    assert (
        found["exporter_metrics_url"]
        == "http://npu-exporter.npu-exporter.svc:8082/metrics"
    )


def test_terms_are_values_in_order_and_variables_are_templated():
    variables = {
        "ansible_facts": {"nodename": "node-1"},
        "kubelet_name": "gpu-07",
        # A template from the inventory (trusted, as Ansible marks variables files).
        "exporter_node_name": trust_as_template("{{ kubelet_name }}"),
        "device_plugin_node_name": "",
        "device_plugin_k8s_host": "cp-1",
    }
    assert run(variables, ["k8s_node_name", "k8s_host"]) == ["gpu-07", "cp-1"]


def test_bad_terms_and_values_fail_clearly():
    with pytest.raises(
        AnsibleLookupError, match="ascend_settings: no setting nodename"
    ):
        run({"ansible_facts": {"nodename": "n"}}, ["nodename"])
    with pytest.raises(AnsibleLookupError, match="node name is unknown"):
        run({}, ["k8s_node_name"])
