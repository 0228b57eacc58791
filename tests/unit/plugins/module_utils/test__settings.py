# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection-wide settings (plugins/module_utils/_settings.py): one rule for the node name,
the roles' defaults for playbooks without the role, Huawei's selectors from data/mindcluster.yml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils import _settings as st
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


def role_file(role, name="defaults"):
    return yaml.safe_load((COLLECTION / "roles" / role / name / "main.yml").read_text())


def resolve(variables, nodename="node-1", wanted=None):
    return st.settings(variables.get, nodename, CATALOGUE, wanted)


def test_unset_variables_have_the_roles_defaults():
    """doctor.yml and upgrade.yml run without these roles: the value is the role's default."""
    defaults = {}
    for role in (
        "device_plugin",
        "exporter",
        "cann_toolkit",
        "ascend_runtime",
        "npu_driver",
    ):
        defaults.update(role_file(role))
    for name, variable, default in st.ROLE_VARIABLES:
        if variable == "ascend_container_engine":
            # Collection-wide: each role defaults its own variable to it, with this default.
            assert defaults["ascend_runtime_engine"] == (
                "{{ ascend_container_engine | default('%s') }}" % default
            )
        elif variable == "exporter_port":
            # Huawei's port (data/mindcluster.yml), which the role's default repeats.
            assert default is None
            assert defaults[variable] == CATALOGUE["exporter"]["port"] == 8082
        else:
            assert defaults[variable] == default, variable
        assert name in st.SETTINGS
    assert role_file("npu_driver", "vars")["_npu_driver_user"] == st.RUN_USER
    assert resolve({}) == {
        "k8s_node_name": "node-1",
        "k8s_host": "localhost",
        "kubelet_root": "/var/lib/kubelet",
        "device_group": "",
        "device_permissions": False,
        "cann_env_file": "/etc/ascend/cann.env",
        "engine": "auto",
        "docker_config": "/etc/docker/daemon.json",
        "containerd_config": "/etc/containerd/config.toml",
        "device_plugin_namespace": "kube-system",
        "device_plugin_pod_selector": "name=ascend-device-plugin-ds",
        "exporter_namespace": "npu-exporter",
        "exporter_pod_selector": "app=npu-exporter",
        "exporter_port": 8082,
        "exporter_metrics_url": "http://npu-exporter.npu-exporter.svc:8082/metrics",
    }


@pytest.mark.parametrize(
    ("variables", "name"),
    [
        ({}, "node-1"),
        ({"device_plugin_node_name": "", "exporter_node_name": ""}, "node-1"),
        ({"exporter_node_name": "k8s-exp"}, "k8s-exp"),
        (
            {"device_plugin_node_name": "k8s-dp", "exporter_node_name": "k8s-exp"},
            "k8s-dp",
        ),
        ({"device_plugin_node_name": "k8s-dp"}, "k8s-dp"),
    ],
)
def test_one_rule_names_the_node(variables, name):
    assert resolve(variables, wanted=["k8s_node_name"]) == {"k8s_node_name": name}


def test_the_node_name_without_facts_or_variables_fails_clearly():
    with pytest.raises(st.SettingsError, match="gather facts"):
        resolve({}, nodename=None)
    # Settings that do not need the name do not need facts.
    assert resolve({}, nodename=None, wanted=["kubelet_root"]) == {
        "kubelet_root": "/var/lib/kubelet"
    }
    with pytest.raises(
        st.SettingsError, match="device_plugin_node_name must be a string"
    ):
        resolve({"device_plugin_node_name": ["a"]})


def test_set_variables_win_and_empty_stays_empty():
    found = resolve(
        {
            "device_plugin_k8s_host": "cp-1",
            "device_plugin_kubelet_root": "/data/kubelet",
            "cann_toolkit_env_file": "",
            "ascend_container_engine": "docker",
            "npu_driver_device_permissions": "true",
            "exporter_port": "9100",
        }
    )
    assert found["k8s_host"] == "cp-1"
    assert found["kubelet_root"] == "/data/kubelet"
    # "" is a choice (skip the env-file check), not "unset".
    assert found["cann_env_file"] == ""
    assert found["engine"] == "docker"
    assert found["device_permissions"] is True
    assert found["device_group"] == "HwHiAiUser"
    assert found["exporter_port"] == 9100
    assert (
        found["exporter_metrics_url"]
        == "http://npu-exporter.npu-exporter.svc:9100/metrics"
    )


@pytest.mark.parametrize(
    ("variables", "wanted", "message"),
    [
        ({}, ["node_name"], "no setting node_name"),
        ({"npu_driver_device_permissions": "maybe"}, None, "must be true or false"),
        ({"exporter_port": "http"}, None, "exporter_port must be a port number"),
        ({"exporter_port": 0}, None, "exporter_port must be a port number"),
        (
            {"device_plugin_kubelet_root": 5},
            None,
            "device_plugin_kubelet_root must be a string",
        ),
    ],
)
def test_bad_input_names_the_variable(variables, wanted, message):
    with pytest.raises(st.SettingsError, match=message):
        resolve(variables, wanted=wanted)


def test_selector_of_labels():
    assert st.selector({"name": "x", "app": "y"}) == "name=x,app=y"
    with pytest.raises(st.SettingsError, match="at least one label"):
        st.selector({})


def test_the_plans_and_the_settings_read_the_same_selectors():
    """The roles' tasks read the plan's pod_selector, the playbooks the lookup's: one fact."""
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
    exporter = exporter_plan(CATALOGUE, {"version": "7.3.0", "port": None})
    found = resolve({})
    assert device_plugin["pod_labels"] == {"name": "ascend-device-plugin-ds"}
    assert device_plugin["pod_selector"] == found["device_plugin_pod_selector"]
    assert device_plugin["namespace"] == found["device_plugin_namespace"]
    assert exporter["pod_labels"] == {"app": "npu-exporter"}
    assert exporter["pod_selector"] == found["exporter_pod_selector"]
    assert exporter["port"] == found["exporter_port"]
    assert exporter["service"] == "npu-exporter"
