# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# PRIVATE to cubestudio.ascend: may change without notice. Pure helpers that tell which
# containers use Ascend devices, from `docker inspect` records and from the OCI spec that
# `ctr containers info` prints, plus the readers of the CLIs' text output.

from __future__ import annotations

import json
import re

# The device nodes of the Ascend driver. A container that maps any of them holds the NPU
# driver open (or may at any moment): Huawei's deployer refuses driver work while one runs.
DEVICE_PATH = re.compile(r"^/dev/(davinci[0-9]+|davinci_manager|devmm_svm|hisi_hdc)$")

# The Ascend Docker Runtime (and the device plugin through it) maps devices from this variable.
VISIBLE_DEVICES_ENV = "ASCEND_VISIBLE_DEVICES"

_DOCKER_DOWN = re.compile(
    r"Cannot connect to the Docker daemon|Is the docker daemon running\?"
    r"|docker\.sock: connect: no such file or directory",
    re.IGNORECASE,
)


class ContainersParseError(ValueError):
    """Output of docker or ctr that cannot be read."""


def is_device_path(path) -> bool:
    return isinstance(path, str) and bool(DEVICE_PATH.match(path))


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _str(value) -> str:
    return value if isinstance(value, str) else ""


def _env_value(env, name: str):
    """Value of `name` in a list of KEY=VALUE strings; None when absent."""
    for item in _list(env):
        if isinstance(item, str) and item.startswith(name + "="):
            return item[len(name) + 1 :]
    return None


# What of a container's environment the doctor reads (the CANN and driver paths, the Ascend
# variables); nothing else leaves the node (an environment can hold secrets).
_KEPT_ENV = re.compile(r"^(ASCEND_[A-Z0-9_]*|LD_LIBRARY_PATH)$")
# The image labels that carry versions (module_utils/_image_versions.py, LABELS).
KEPT_LABEL_PREFIX = "cubestudio.ascend/"


def ascend_env(env) -> dict:
    """The ASCEND_* and LD_LIBRARY_PATH variables of a list of KEY=VALUE strings."""
    kept = {}
    for item in _list(env):
        if isinstance(item, str) and "=" in item:
            name, value = item.split("=", 1)
            if _KEPT_ENV.match(name):
                kept[name] = value
    return kept


def version_labels(labels) -> dict:
    """The labels under cubestudio.ascend/ (an image's, which its containers carry)."""
    return {
        k: v
        for k, v in _dict(labels).items()
        if isinstance(k, str) and k.startswith(KEPT_LABEL_PREFIX) and isinstance(v, str)
    }


def _usage(
    devices: set, whole_dev: bool, privileged: bool, visible: str | None
) -> dict:
    reasons = []
    if devices:
        reasons.append("devices")
    if whole_dev:
        reasons.append("dev_mount")
    if privileged:
        reasons.append("privileged")
    if visible:
        reasons.append("env")
    return {
        "devices": sorted(devices, key=_device_sort_key),
        "all_devices": whole_dev or privileged,
        "privileged": privileged,
        "visible_devices": visible or None,
        "reasons": reasons,
        "uses_npu": bool(reasons),
    }


def _device_sort_key(path: str):
    match = re.match(r"^/dev/davinci([0-9]+)$", path)
    return (0, int(match.group(1)), "") if match else (1, 0, path)


def docker_usage(record: dict) -> dict:
    """What one `docker inspect` record says about the container's use of Ascend devices.

    Devices given with --device, bind mounts of a device node or of the whole /dev, a
    privileged container (it sees every host device) and ASCEND_VISIBLE_DEVICES (the Ascend
    Docker Runtime maps those devices) all count.
    """
    if not isinstance(record, dict):
        raise ContainersParseError("a docker inspect record is not an object")
    host = _dict(record.get("HostConfig"))
    config = _dict(record.get("Config"))
    state = _dict(record.get("State"))
    devices = set()
    for device in _list(host.get("Devices")):
        if isinstance(device, dict) and is_device_path(device.get("PathOnHost")):
            devices.add(device["PathOnHost"])
    whole_dev = False
    for mount in _list(record.get("Mounts")):
        if not isinstance(mount, dict):
            continue
        source = mount.get("Source")
        if source in ("/dev", "/dev/"):
            whole_dev = True
        elif is_device_path(source):
            devices.add(source)
    visible = _env_value(config.get("Env"), VISIBLE_DEVICES_ENV)
    usage = _usage(devices, whole_dev, bool(host.get("Privileged")), visible)
    usage.update(
        engine="docker",
        namespace=None,
        id=_str(record.get("Id")) or None,
        name=_str(record.get("Name")).lstrip("/") or None,
        image=_str(config.get("Image")) or None,
        running=bool(state.get("Running")),
        runtime=_str(host.get("Runtime")) or None,
        pod=None,
        # Docker's Config holds the image's ENV and labels merged with the run's.
        env=ascend_env(config.get("Env")),
        labels=version_labels(config.get("Labels")),
    )
    return usage


def oci_usage(spec: dict) -> dict:
    """The same for an OCI runtime spec (the `Spec` of `ctr containers info`)."""
    if not isinstance(spec, dict):
        raise ContainersParseError("the container has no OCI spec")
    linux = _dict(spec.get("linux"))
    process = _dict(spec.get("process"))
    devices = set()
    for device in _list(linux.get("devices")):
        if isinstance(device, dict) and is_device_path(device.get("path")):
            devices.add(device["path"])
    whole_dev = False
    for mount in _list(spec.get("mounts")):
        if not isinstance(mount, dict):
            continue
        options = _list(mount.get("options"))
        bind = mount.get("type") == "bind" or "bind" in options or "rbind" in options
        source = mount.get("source")
        if not bind:
            continue
        if source in ("/dev", "/dev/"):
            whole_dev = True
        elif is_device_path(source):
            devices.add(source)
    visible = _env_value(process.get("env"), VISIBLE_DEVICES_ENV)
    # Privileged OCI specs list the host's devices one by one; they are caught above.
    return _usage(devices, whole_dev, False, visible)


def containerd_usage(info: dict, namespace: str) -> dict:
    """Usage of one `ctr containers info` document (ID, Labels, Image, Spec)."""
    if not isinstance(info, dict):
        raise ContainersParseError("ctr containers info did not print an object")
    usage = oci_usage(info.get("Spec"))
    labels = {k: v for k, v in _dict(info.get("Labels")).items() if isinstance(v, str)}
    pod = None
    if labels.get("io.kubernetes.pod.name"):
        pod = "%s/%s" % (
            labels.get("io.kubernetes.pod.namespace") or "default",
            labels["io.kubernetes.pod.name"],
        )
    usage.update(
        engine="containerd",
        namespace=namespace,
        id=_str(info.get("ID")) or None,
        name=labels.get("io.kubernetes.container.name") or _str(info.get("ID")) or None,
        image=_str(info.get("Image")) or None,
        running=True,
        runtime=_str(_dict(info.get("Runtime")).get("Name")) or None,
        pod=pod,
        # The OCI spec's env is the image's ENV with the pod's on top; the CRI copies the image's
        # labels into the container's.
        env=ascend_env(_dict(_dict(info.get("Spec")).get("process")).get("env")),
        labels=version_labels(labels),
    )
    return usage


def parse_json(text: str, what: str):
    try:
        return json.loads(text)
    except ValueError as error:
        raise ContainersParseError(
            "%s did not print JSON: %s" % (what, error)
        ) from None


def parse_ids(text: str) -> list:
    """One id or name per line (`docker ps -q --no-trunc`, `ctr namespaces list -q`)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_ctr_tasks(text: str) -> list:
    """Rows of `ctr tasks list`: [{id, pid, status}] (header TASK PID STATUS)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = lines[0].split()
    if header[:3] != ["TASK", "PID", "STATUS"]:
        raise ContainersParseError(
            "unexpected header of ctr tasks list: %r" % lines[0].strip()
        )
    tasks = []
    for line in lines[1:]:
        fields = line.split()
        if len(fields) < 3 or not fields[1].isdigit():
            raise ContainersParseError(
                "unexpected row of ctr tasks list: %r" % line.strip()
            )
        tasks.append({"id": fields[0], "pid": int(fields[1]), "status": fields[2]})
    return tasks


def live_tasks(tasks: list) -> list:
    """Ids of the tasks whose processes exist (running, paused, pausing...)."""
    return [t["id"] for t in tasks if t["status"].upper() not in ("STOPPED", "UNKNOWN")]


def docker_is_down(text: str) -> bool:
    """The docker CLI says that no daemon answers (then no docker container runs)."""
    return bool(_DOCKER_DOWN.search(text))
