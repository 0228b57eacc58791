# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Which container engines the Ascend runtime is wired into, decided from the engine the
# kubelet talks to (its container-runtime endpoint) - issue 11's "classic trap": a node with
# Docker and containerd whose kubelet uses containerd's CRI must get the runtime in containerd's
# config.toml, whatever Docker's daemon.json says.
#
# Where the endpoint comes from, in kubelet's own order of precedence:
#   1. the running kubelet's command line (--container-runtime-endpoint, /proc/<pid>/cmdline):
#      a flag overrides the configuration file, and the running process is what the node does
#      now, whatever its unit, drop-ins and kubeadm-flags.env say;
#   2. containerRuntimeEndpoint of the kubelet configuration file (kubeadm writes it there
#      since Kubernetes 1.27);
#   3. kubelet's built-in default, containerd's socket, when a kubelet runs with neither.
# The systemd unit is not parsed: its ExecStart expands environment files and drop-ins that
# only systemd resolves, and /proc holds the result.
#
# Entry points:
#   endpoint_from_cmdline(argv)        -> endpoint or None
#   endpoint_from_config(text)         -> endpoint or None (containerRuntimeEndpoint)
#   engine_of_endpoint(endpoint)       -> "containerd", "docker" or None (another CRI)
#   decide_engines(requested, kubelet, running)  -> dict; raises EngineRefusal
#   containerd_default_runtime(dump)   -> default_runtime_name of a `containerd config dump`
#   default_runtime_problem(...)       -> "" or the cause of troubleshooting row T22

from __future__ import annotations

import posixpath
import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    TomlError,
    loads,
)

__all__ = [
    "KUBELET_DEFAULT_ENDPOINT",
    "EngineRefusal",
    "containerd_default_runtime",
    "decide_engines",
    "default_runtime_problem",
    "endpoint_from_cmdline",
    "endpoint_from_config",
    "engine_of_endpoint",
    "kubelet_endpoint",
]

# kubelet's default containerRuntimeEndpoint on Linux (Kubernetes 1.24 and later).
KUBELET_DEFAULT_ENDPOINT = "unix:///run/containerd/containerd.sock"
FLAG = "--container-runtime-endpoint"
# Socket file names: containerd (also k3s/rke2's /run/k3s/containerd/containerd.sock) and the
# Docker shims (cri-dockerd, and the dockershim of Kubernetes before 1.24).
_CONTAINERD_SOCKETS = ("containerd.sock",)
_DOCKER_SOCKETS = ("cri-dockerd.sock", "dockershim.sock")
# The CRI plugin's key per config version of a `containerd config dump`.
_CRI_PLUGINS = ("io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri", "cri")
TROUBLESHOOTING_ROW = "T22"


class EngineRefusal(ValueError):
    """The node's engine cannot be wired (the message says why and what to do)."""


def endpoint_from_cmdline(argv):
    """--container-runtime-endpoint of a kubelet command line (a list), None when absent.

    Both spellings of a Go flag are read (``--flag=value``, ``--flag value``, one or two
    dashes); the last one wins, as in Go's flag package.
    """
    found = None
    args = list(argv or [])
    for index, arg in enumerate(args):
        name, sep, value = arg.partition("=")
        if name not in (FLAG, FLAG[1:]):
            continue
        if sep:
            found = value
        elif index + 1 < len(args):
            found = args[index + 1]
    return found.strip() if found is not None and found.strip() else None


_CONFIG_KEY = re.compile(r"^containerRuntimeEndpoint\s*:\s*(.*?)\s*$")


def endpoint_from_config(text):
    """containerRuntimeEndpoint of a KubeletConfiguration (YAML), None when not set.

    A top-level ``key: value`` line, plain or quoted (the form kubeadm writes and the only
    one the key takes: a string). Read without a YAML library, which a Python 3.8 node may
    not have.
    """
    for line in (text or "").splitlines():
        match = _CONFIG_KEY.match(line)
        if not match:
            continue
        value = match.group(1)
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end > 0 else value[1:]
        else:
            value = value.split(" #", 1)[0].strip()
        return value or None
    return None


def engine_of_endpoint(endpoint):
    """containerd or docker for a CRI endpoint, None for any other CRI (CRI-O, iSula...)."""
    if not endpoint:
        return None
    path = re.sub(r"^(unix|npipe)://", "", endpoint.strip())
    name = posixpath.basename(path.rstrip("/"))
    if name in _CONTAINERD_SOCKETS:
        return "containerd"
    if name in _DOCKER_SOCKETS:
        return "docker"
    return None


def kubelet_endpoint(cmdlines, config_text, service_running):
    """The kubelet's endpoint and where it was read, or None when no kubelet is known.

    cmdlines: argv lists of the running kubelet processes; config_text: the configuration
    file (None when missing); service_running: kubelet.service runs. A kubelet counts when it
    runs (process or service) or when its configuration file names an endpoint.
    """
    for argv in cmdlines or []:
        endpoint = endpoint_from_cmdline(argv)
        if endpoint:
            return {"endpoint": endpoint, "source": "command line", "running": True}
    running = bool(cmdlines) or bool(service_running)
    endpoint = endpoint_from_config(config_text)
    if endpoint:
        return {
            "endpoint": endpoint,
            "source": "configuration file",
            "running": running,
        }
    if running:
        return {
            "endpoint": KUBELET_DEFAULT_ENDPOINT,
            "source": "kubelet default",
            "running": True,
        }
    return None


def _running_engine(running):
    """Today's rule without a kubelet: Docker first (it runs on containerd), then containerd."""
    running = set(running or [])
    if "docker.service" in running:
        return "docker"
    if "containerd.service" in running:
        return "containerd"
    return ""


def decide_engines(requested, kubelet, running, installed=None, state="present"):
    """The engines to wire the runtime into (or, for state=absent, to take it out of).

    requested: auto, docker or containerd (ascend_runtime_engine); kubelet: the result of
    kubelet_endpoint (None without a kubelet); running: names of the running services;
    installed: names of the services that exist. With state=absent every installed engine is
    listed too: the runtime is taken out of every engine an earlier run may have wired
    (ascend_runtime_engine may have named another one then), and an engine that does not
    list it is left unchanged.
    Returns {"engines": [...], "engine": the package's install scene (the kubelet's engine),
    "kubelet_engine": ..., "reason": ...}. Raises EngineRefusal for a kubelet whose endpoint
    is neither containerd nor Docker.
    """
    if requested not in ("auto", "docker", "containerd"):
        raise EngineRefusal(
            "ascend_runtime_engine must be auto, docker or containerd, not %r"
            % (requested,)
        )
    if kubelet is None:
        engine = _running_engine(running) if requested == "auto" else requested
        reason = (
            "no kubelet on the node; "
            + (
                "%s is the running engine" % engine
                if requested == "auto"
                else "ascend_runtime_engine is %s" % requested
            )
            if engine
            else "no kubelet and no running engine"
        )
        return _with_installed(
            {
                "engines": [engine] if engine else [],
                "engine": engine,
                "kubelet_engine": None,
                "reason": reason,
            },
            installed,
            state,
        )
    kubelet_engine = engine_of_endpoint(kubelet["endpoint"])
    if kubelet_engine is None:
        raise EngineRefusal(
            "the kubelet talks to %s (from its %s), which is neither containerd nor Docker "
            "(cri-dockerd): the Ascend runtime can be wired only into those two engines. "
            "Point the kubelet at containerd or cri-dockerd, or configure that runtime by hand "
            "(CRI-O: /etc/crio/crio.conf.d, docs/kubernetes.md)."
            % (kubelet["endpoint"], kubelet["source"])
        )
    engines = [kubelet_engine]
    if requested not in ("auto", kubelet_engine):
        engines.append(requested)
    reason = "the kubelet talks to %s at %s (from its %s)" % (
        kubelet_engine,
        kubelet["endpoint"],
        kubelet["source"],
    )
    if len(engines) > 1:
        reason += "; %s as well, because ascend_runtime_engine is %s" % (
            requested,
            requested,
        )
    return _with_installed(
        {
            "engines": engines,
            "engine": kubelet_engine,
            "kubelet_engine": kubelet_engine,
            "reason": reason,
        },
        installed,
        state,
    )


def _with_installed(decision, installed, state):
    if state != "absent" or not decision["engine"]:
        return decision
    for engine in ("containerd", "docker"):
        if engine not in decision["engines"] and engine + ".service" in (
            installed or []
        ):
            decision["engines"].append(engine)
            decision["reason"] += "; %s too, to take the runtime out of it" % engine
    return decision


def _get(data, path):
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def containerd_default_runtime(dump):
    """default_runtime_name of the CRI plugin in a `containerd config dump` (runc if unset).

    Raises ValueError when the text is not TOML or has no CRI plugin.
    """
    try:
        data = loads(dump)
    except TomlError as exc:
        raise ValueError("`containerd config dump` is not TOML: %s" % exc) from exc
    for plugin in _CRI_PLUGINS:
        containerd = _get(data, ("plugins", plugin, "containerd"))
        if isinstance(containerd, dict):
            return containerd.get("default_runtime_name") or "runc"
    raise ValueError(
        "`containerd config dump` has no CRI plugin (%s)" % ", ".join(_CRI_PLUGINS)
    )


def default_runtime_problem(
    kubelet, kubelet_engine, default_runtime, runtime_name, docker_default=None
):
    """The cause of row T22 when the kubelet's engine does not default to the runtime, else "".

    docker_default: Docker's default-runtime in daemon.json (None when unknown), named when
    only Docker has the runtime as its default - the trap of a node with both engines.
    """
    if default_runtime == runtime_name:
        return ""
    where = (
        "containerd (config.toml, `containerd config dump`)"
        if kubelet_engine == "containerd"
        else "Docker through cri-dockerd (daemon.json, `docker info`)"
    )
    message = (
        "The kubelet talks to %s at %s (from its %s), whose default runtime is %s, not %s: "
        "pods run without the Ascend runtime."
        % (
            where,
            kubelet["endpoint"],
            kubelet["source"],
            default_runtime or "unknown",
            runtime_name,
        )
    )
    if kubelet_engine == "containerd" and docker_default == runtime_name:
        message += (
            " Only Docker's daemon.json has %s as its default, and the kubelet does not use "
            "Docker." % runtime_name
        )
    message += (
        " Fix: run the role again (site.yml --tags ascend_runtime), which wires the kubelet's "
        "engine, or make %s the default of %s by hand and restart it and the kubelet "
        "(docs/troubleshooting.md, row %s)."
        % (runtime_name, kubelet_engine, TROUBLESHOOTING_ROW)
    )
    return message
