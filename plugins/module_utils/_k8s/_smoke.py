# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The verdict on the device plugin's smoke pod: did a pod asking for one NPU see exactly one,
and if not, the cause in terms of the node (the engine the kubelet uses, read from the Node).
"""

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    NpuSmiParseError,
    npu_smi_error,
    parse_info,
)

# containerRuntimeVersion prefix of the Node -> (engine, the file that names its default runtime).
_ENGINES = {
    "containerd": ("containerd", "default_runtime_name in /etc/containerd/config.toml"),
    "docker": ("docker", "default-runtime in /etc/docker/daemon.json"),
}
# What a container engine or a shell says when the command is not in the container.
_NOT_FOUND = (
    "executable file not found",
    "no such file or directory",
    "npu-smi: not found",
    "command not found",
)


def kubelet_engine(node):
    """(engine, where its default runtime is set, containerRuntimeVersion) of a Node object."""
    version = (((node or {}).get("status") or {}).get("nodeInfo") or {}).get(
        "containerRuntimeVersion"
    ) or ""
    scheme = version.split("://", 1)[0] if "://" in version else ""
    engine, where = _ENGINES.get(
        scheme, (scheme or "unknown", "the default runtime of that engine")
    )
    return engine, where, version or "unknown"


def _count(log):
    if not log or npu_smi_error(log):
        return None
    try:
        return parse_info(log)["npu_count"]
    except NpuSmiParseError:
        return None


def _terminated(pod):
    for status in ((pod or {}).get("status") or {}).get("containerStatuses") or []:
        state = status.get("state") or {}
        done = state.get("terminated") or state.get("waiting")
        if done:
            return done
    return {}


# The pod status the kubelet sets when it refuses a pod at admission, for a device plugin among
# other causes: "Allocate failed due to ..." while the plugin (re-)registers after a kubelet,
# runtime or plugin restart (kubelet's lifecycle package, the PodAdmitResult of the device
# manager).
ADMISSION_REFUSED = "UnexpectedAdmissionError"


def admission_refused(pod) -> bool:
    """The kubelet refused the pod at admission (it never started)."""
    status = (pod or {}).get("status") or {}
    return status.get("phase") == "Failed" and status.get("reason") == ADMISSION_REFUSED


def verdict(pod, log, node, resource):
    """{ok, npu_count, phase, engine, cause}: `cause` is empty when the pod saw exactly one NPU."""
    phase = ((pod or {}).get("status") or {}).get("phase") or "unscheduled"
    log = log or ""
    count = _count(log)
    engine, where, version = kubelet_engine(node)
    out = {"ok": False, "npu_count": count, "phase": phase, "engine": engine}
    runtime = (
        "the Ascend runtime is not the default runtime of %s, the engine the kubelet uses "
        "(the Node reports %s; %s)" % (engine, version, where)
    )
    fix = (
        "Fix: wire the runtime into %s (site.yml --tags ascend_runtime, with "
        "ascend_runtime_engine auto or %s), which restarts %s; then delete the device plugin's "
        "pod on the node. A runtime registered only for another engine (daemon.json of Docker "
        "beside a kubelet on containerd) does not reach the kubelet's pods. The doctor "
        "(playbooks/doctor.yml) names it as row T22." % (engine, engine, engine)
    )
    ended = _terminated(pod)
    said = " ".join(
        str(x) for x in (ended.get("reason"), ended.get("message"), log.strip()) if x
    )
    if phase == "Succeeded" and count == 1:
        out["ok"] = True
        out["cause"] = ""
    elif admission_refused(pod):
        out["cause"] = (
            "The kubelet refused the pod at admission (%s: %s): its device plugin was not "
            "registered or had no healthy %s to allocate, as happens for a while after the "
            "kubelet, the container engine or the plugin restarts (the role tried twice). Fix: "
            "wait until kubectl describe node lists the healthy NPUs as allocatable and run the "
            "role again; if it stays, the device plugin's log names why."
            % (
                ADMISSION_REFUSED,
                ((pod or {}).get("status") or {}).get("message") or "no message",
                resource,
            )
        )
    elif phase in ("Pending", "unscheduled"):
        out["cause"] = (
            "The pod did not run: no free %s on the node (every NPU in use), or it could not "
            "start (kubectl describe pod names why)." % resource
        )
    elif count is None and any(word in said.lower() for word in _NOT_FOUND):
        out["cause"] = (
            "npu-smi is not in the pod: the Ascend runtime, which mounts it and the allocated "
            "/dev/davinci device into a container that asks for an NPU, did not run the pod - "
            "%s. %s" % (runtime, fix)
        )
    elif count is not None and count > 1:
        out["cause"] = (
            "The pod saw %d NPUs: the device plugin allocates by device mounts because its own "
            "pod did not run through the Ascend runtime - %s. %s"
            % (count, runtime, fix)
        )
    elif count == 0:
        out["cause"] = (
            "npu-smi in the pod lists no NPU: no /dev/davinci device reached it - %s. %s"
            % (runtime, fix)
        )
    else:
        out["cause"] = (
            "The pod ended %s (%s): see its output, and npu-smi info on the node."
            % (phase, said[:300] or "no output")
        )
    return out
