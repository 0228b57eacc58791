# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_settings lookup: the collection-wide settings from the templated variables, the
host's facts and data/mindcluster.yml; one setting per term, or the dict of all."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import lookup_loader
from ansible.template import Templar, trust_as_template

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    exporter_plan,
    plan,
    validate_catalogue,
)

COLLECTION = Path(__file__).resolve().parents[4]
CATALOGUE = validate_catalogue(
    yaml.safe_load((COLLECTION / "data" / "mindcluster.yml").read_text())
)
NPU_SMI = {
    "npu_count": 1,
    "chip_count": 1,
    "npus": [{"chips": [{"health": "OK"}]}],
}


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


def test_the_node_names_of_the_play():
    hostvars = {
        "n1": {"ansible_facts": {"nodename": "node-1"}},
        "n2": {
            "ansible_facts": {"nodename": "n2.local"},
            "device_plugin_node_name": "gpu-02",
        },
        # Two inventory hosts on one node (a second address): one name.
        "n3": {"ansible_facts": {"nodename": "node-1"}},
        "other": {"ansible_facts": {"nodename": "not-in-the-play"}},
    }
    variables = {"hostvars": hostvars, "ansible_play_hosts": ["n1", "n2", "n3"]}
    assert run(variables, ["k8s_node_names"]) == [["node-1", "gpu-02"]]
    # With the host's own settings; the dict of every setting does not hold them.
    variables["ansible_facts"] = {"nodename": "node-1"}
    assert run(variables, ["k8s_node_name", "k8s_node_names"]) == [
        "node-1",
        ["node-1", "gpu-02"],
    ]
    assert "k8s_node_names" not in run(variables)[0]
    hostvars["n3"] = {}
    with pytest.raises(
        AnsibleLookupError, match="host n3: the host's Kubernetes node name"
    ):
        run(variables, ["k8s_node_names"])


def render(role, template, variables):
    text = (COLLECTION / "roles" / role / "templates" / template).read_text()
    loader = DataLoader()
    return Templar(loader=loader, variables=variables).template(trust_as_template(text))


def test_the_templates_write_the_catalogue_s_labels_as_before():
    """The pod labels come from the plan (data/mindcluster.yml); the manifests keep the text
    they had with the literals (same objects, same spec hashes, same rendered files)."""
    device_plugin = plan(
        CATALOGUE,
        {
            "npu_family": "910B",
            "architecture": "aarch64",
            "npu_smi": NPU_SMI,
            "version": "7.3.0",
            "node_name": "node-1",
        },
    )
    text = render(
        "device_plugin",
        "device-plugin.yaml.j2",
        {"ansible_facts": {"ascend_device_plugin_plan": device_plugin}},
    )
    assert text.count("    matchLabels: {name: ascend-device-plugin-ds}\n") == 1
    assert text.count("      labels: {name: ascend-device-plugin-ds}\n") == 1
    (daemonset,) = [
        o for o in yaml.safe_load_all(text) if o and o["kind"] == "DaemonSet"
    ]
    assert daemonset["spec"]["selector"]["matchLabels"] == device_plugin["pod_labels"]
    assert (
        daemonset["spec"]["template"]["metadata"]["labels"]
        == device_plugin["pod_labels"]
    )

    exporter = exporter_plan(CATALOGUE, {"version": "7.3.0", "port": None})
    text = render(
        "exporter",
        "npu-exporter.yaml.j2",
        {
            "ansible_facts": {"ascend_exporter_plan": exporter},
            "exporter_scraper_labels": {"app": "prometheus"},
        },
    )
    assert text.count("    matchLabels: {app: npu-exporter}\n") == 2
    assert text.count("      labels: {app: npu-exporter}\n") == 1
    assert text.count("  selector: {app: npu-exporter}\n") == 1
    assert (
        text.count(
            "  name: npu-exporter\n  namespace: npu-exporter\n"
            "  labels: {app: npu-exporter, app.kubernetes.io/managed-by: cubestudio.ascend}\n"
        )
        == 1
    )
    objects = {o["kind"]: o for o in yaml.safe_load_all(text) if o}
    assert objects["Service"]["spec"]["selector"] == exporter["pod_labels"]
    assert objects["NetworkPolicy"]["spec"]["podSelector"]["matchLabels"] == {
        "app": "npu-exporter"
    }
