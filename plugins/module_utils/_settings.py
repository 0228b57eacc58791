# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The collection-wide settings that playbooks outside the roles need (doctor.yml,
# upgrade.yml, tasks/node_record.yml), resolved in one place: the Kubernetes node name, the
# defaults of the role variables those playbooks read although the role is not in their play,
# and Huawei's selectors and ports of data/mindcluster.yml. The lookup
# cubestudio.ascend.ascend_settings returns them; a role resolves its own variables itself.

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    RUN_USER,
)


class SettingsError(Exception):
    """A setting that cannot be resolved; the message names the cause and the fix."""


# The variables that name the host's Kubernetes node, in order; the first that is set and not
# empty wins, else the host's nodename (ansible_facts). The device_plugin and exporter roles
# each read their own (device_plugin_node_name, exporter_node_name) with the same fallback.
NODE_NAME_VARIABLES = ("device_plugin_node_name", "exporter_node_name")

# (setting, variable, default): a variable that is not defined has the default of its role
# (roles/<role>/defaults/main.yml; ascend_container_engine is collection-wide, docs/design.md).
# A variable set to "" stays "" (as Jinja's default() without its second argument).
# tests/unit/plugins/module_utils/test__settings.py holds the defaults equal to the roles'.
ROLE_VARIABLES = (
    ("k8s_host", "device_plugin_k8s_host", "localhost"),
    ("kubelet_root", "device_plugin_kubelet_root", "/var/lib/kubelet"),
    ("cann_env_file", "cann_toolkit_env_file", "/etc/ascend/cann.env"),
    ("engine", "ascend_container_engine", "auto"),
    ("docker_config", "ascend_runtime_docker_config", "/etc/docker/daemon.json"),
    (
        "containerd_config",
        "ascend_runtime_containerd_config",
        "/etc/containerd/config.toml",
    ),
    ("device_permissions", "npu_driver_device_permissions", False),
    ("exporter_port", "exporter_port", None),
)

SETTINGS = (
    "k8s_node_name",
    "k8s_host",
    "kubelet_root",
    "device_group",
    "device_permissions",
    "cann_env_file",
    "engine",
    "docker_config",
    "containerd_config",
    "device_plugin_namespace",
    "device_plugin_pod_selector",
    "exporter_namespace",
    "exporter_pod_selector",
    "exporter_port",
    "exporter_metrics_url",
)

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def selector(labels) -> str:
    """A label mapping as a label selector: ``{name: x, app: y}`` -> ``name=x,app=y``."""
    if not isinstance(labels, dict) or not labels:
        raise SettingsError(
            "pod_labels must be a mapping of at least one label, not %r" % (labels,)
        )
    return ",".join("%s=%s" % (key, value) for key, value in labels.items())


def _bool(variable: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE + _FALSE:
        return text in _TRUE
    raise SettingsError("%s must be true or false, not %r" % (variable, value))


def _port(variable: str, value) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = 0
    if isinstance(value, bool) or not 1 <= port <= 65535:
        raise SettingsError("%s must be a port number, not %r" % (variable, value))
    return port


def node_name(value_of, nodename) -> str:
    """The host's Kubernetes node name: the first of NODE_NAME_VARIABLES that is set and not
    empty, else ``nodename`` (ansible_facts['nodename'])."""
    for variable in NODE_NAME_VARIABLES:
        value = value_of(variable)
        if value not in (None, ""):
            if not isinstance(value, str):
                raise SettingsError(
                    "%s must be a string (the node's name in Kubernetes), not %r"
                    % (variable, value)
                )
            return value
    if not nodename:
        raise SettingsError(
            "the host's Kubernetes node name is unknown: no %s, and no facts "
            "(ansible_facts['nodename']). Fix: gather facts (gather_subset: [min]) or set "
            "device_plugin_node_name" % " nor ".join(NODE_NAME_VARIABLES)
        )
    return str(nodename)


def play_node_names(hosts, value_of_host, nodename_of) -> list:
    """The Kubernetes node name of each host of ``hosts`` (node_name's rule, in order, each
    once): ``value_of_host(host, variable)`` is that host's variable or None, ``nodename_of(host)``
    its ansible_facts['nodename'] (None without facts). What one read of the cluster for a play
    asks for."""
    names = []
    for host in hosts or []:
        try:
            name = node_name(
                lambda variable, _host=host: value_of_host(_host, variable),
                nodename_of(host),
            )
        except SettingsError as error:
            raise SettingsError("host %s: %s" % (host, error)) from None
        if name not in names:
            names.append(name)
    return names


def settings(value_of, nodename, catalogue: dict, wanted=None) -> dict:
    """The settings named in ``wanted`` (all of SETTINGS when empty): ``value_of(variable)``
    gives a variable's (templated) value or None when it is not defined, ``nodename`` is
    ansible_facts['nodename'] (None without facts), ``catalogue`` is data/mindcluster.yml."""
    wanted = list(wanted or SETTINGS)
    unknown = [name for name in wanted if name not in SETTINGS]
    if unknown:
        raise SettingsError(
            "no setting %s (known: %s)" % (", ".join(unknown), ", ".join(SETTINGS))
        )
    values = {}
    for name, variable, default in ROLE_VARIABLES:
        value = value_of(variable)
        values[name] = default if value is None else value
    values["device_permissions"] = _bool(
        "npu_driver_device_permissions", values["device_permissions"]
    )
    device_plugin = catalogue["device_plugin"]
    exporter = catalogue["exporter"]
    port = values["exporter_port"]
    values["exporter_port"] = _port(
        "exporter_port", exporter["port"] if port in (None, "") else port
    )
    values.update(
        {
            # The group of the device nodes when npu_driver sets their permissions.
            "device_group": RUN_USER if values["device_permissions"] else "",
            "device_plugin_namespace": device_plugin["namespace"],
            "device_plugin_pod_selector": selector(device_plugin["pod_labels"]),
            "exporter_namespace": exporter["namespace"],
            "exporter_pod_selector": selector(exporter["pod_labels"]),
            "exporter_metrics_url": "http://%s.%s.svc:%d/metrics"
            % (exporter["service"], exporter["namespace"], values["exporter_port"]),
        }
    )
    for name, variable, default in ROLE_VARIABLES:
        if isinstance(default, str) and not isinstance(values[name], str):
            raise SettingsError(
                "%s must be a string, not %r" % (variable, values[name])
            )
    if "k8s_node_name" in wanted:
        values["k8s_node_name"] = node_name(value_of, nodename)
    return {name: values[name] for name in wanted}
