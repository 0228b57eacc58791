# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The decisions of the device_plugin role, as pure functions from (catalogue, node facts,
# wanted settings) to a plan: which family and resource, which node labels, which image, which
# flags, mounts and environment the DaemonSet gets, and how many NPUs the node must advertise.
# The catalogue is data (data/mindcluster.yml).

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    compare,
)


class PlanError(Exception):
    """Input the plan cannot be made from; the message names the cause and the fix."""


ARGUMENT_SPEC = {
    "npu_family": {"type": "str"},
    "architecture": {"type": "str", "required": True},
    "npu_smi": {"type": "dict", "required": True},
    "board_id": {"type": "str"},
    "version": {"type": "str", "required": True},
    "image_registry": {"type": "str", "default": ""},
    "image_pull_policy": {"type": "str", "default": ""},
    "kubelet_root": {"type": "str", "default": "/var/lib/kubelet"},
    "extra_labels": {"type": "dict", "default": {}},
    "node_name": {"type": "str", "required": True},
    "stack": {"type": "dict", "default": {}},
    "catalogue_file": {"type": "path"},
}

_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def validate_catalogue(data) -> dict:
    """The catalogue as read from YAML, checked for the keys the plan uses."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise PlanError("the MindCluster catalogue must be a mapping with schema: 1")
    for key in (
        "families",
        "host_arch",
        "accelerator_type",
        "worker_labels",
        "device_plugin",
    ):
        if key not in data:
            raise PlanError("the MindCluster catalogue has no %r" % key)
    for name, family in data["families"].items():
        for key in ("chips", "resource", "accelerator"):
            if key not in family:
                raise PlanError(
                    "the MindCluster catalogue's family %s has no %r" % (name, key)
                )
    return data


def _release_key(version):
    """Sort key of a release name: its numbers in order (7.3.0 before 26.0.0)."""
    return [
        int(part) if part.isdigit() else 0 for part in re.split(r"[.-]", str(version))
    ]


def flag_names(command) -> list:
    """The flag names of a command line (``-a=1 --b=x -c`` -> a, b, c), in order."""
    names = []
    for word in str(command).split():
        if word.startswith("-") and word.strip("-"):
            names.append(word.lstrip("-").split("=", 1)[0])
    return names


def check_flags(spec: dict, component: str, version, flags) -> None:
    """Refuse a flag the release's binary does not define (the catalogue's ``flags`` table,
    from Huawei's flag definitions of that tag): such a flag stops the binary at start with
    "flag provided but not defined" and the DaemonSet crash-loops."""
    table = spec.get("flags") or {}
    defined = table.get(str(version))
    if defined is None:
        # A release not in the table is refused, not passed unchecked: its binary may lack a
        # flag the collection passes (as 26.0.0 lacked -enable-healthz), or define it anew.
        raise PlanError(
            "%s %s is not a MindCluster release the collection knows the flags of (known: %s): "
            "its binary could stop at start with 'flag provided but not defined'. Fix: add "
            "the release's flags (from Huawei's flag definitions of that tag) to the "
            "catalogue's flags table in data/mindcluster.yml, or choose a known release"
            % (component, version, ", ".join(sorted(table, key=_release_key)) or "none")
        )
    unknown = [name for name in flag_names(" ".join(flags)) if name not in defined]
    if unknown:
        raise PlanError(
            "%s %s does not define the flag(s) %s: its binary would stop at start with "
            "'flag provided but not defined'. Fix: data/mindcluster.yml (the release's flags "
            "and the versions from which the collection passes them)"
            % (component, version, ", ".join("-" + n for n in unknown))
        )


def family_of(catalogue: dict, npu_family) -> tuple:
    """(family name, family entry) of an ascend_facts npu_family; PlanError when unknown."""
    for name, family in catalogue["families"].items():
        if npu_family in family["chips"]:
            return str(name), family
    known = sorted(c for f in catalogue["families"].values() for c in f["chips"])
    if not npu_family:
        raise PlanError(
            "no Ascend NPU found on this node (ascend_facts npu_family is empty): the device "
            "plugin has nothing to advertise. Fix: run the device_plugin role only on Ascend "
            "nodes, or install the driver first (npu_driver role)"
        )
    raise PlanError(
        "the NPU family %s has no MindCluster device plugin resource (known: %s). Fix: "
        "leave this node out of the device_plugin play" % (npu_family, ", ".join(known))
    )


def accelerator_type(catalogue: dict, board_id, npu_count: int) -> tuple:
    """(label value or None, warning or None) for a Board ID as npu-smi prints it."""
    if not board_id:
        return None, (
            "the Board ID is unknown (npu-smi info -t board printed none): no accelerator-type "
            "label; set it with device_plugin_node_labels if your scheduler needs it"
        )
    board = board_id.lower()
    for entry in catalogue["accelerator_type"]:
        if (
            board in entry["board_ids"]
            and entry.get("npu_count", npu_count) == npu_count
        ):
            return entry["value"], None
    return None, (
        "Board ID %s with %d NPUs is not in the MindCluster catalogue: no accelerator-type label "
        "(a wrong one makes Volcano refuse the node); set it with device_plugin_node_labels"
        % (board, npu_count)
    )


def healthy_chips(npu_smi: dict) -> int:
    """The chips whose health is OK: what the device plugin advertises as allocatable."""
    return sum(
        1
        for npu in npu_smi.get("npus") or []
        for chip in npu.get("chips") or []
        if chip.get("health") == "OK"
    )


def label_value(text) -> str:
    """A version as a valid label value: every character outside [-A-Za-z0-9_.] becomes '_',
    leading and trailing non-alphanumerics go, 63 characters at most (e.g. ``8.1.RC1`` stays,
    ``24.1.rc3 B100`` becomes ``24.1.rc3_B100``)."""
    value = re.sub(r"[^-A-Za-z0-9_.]", "_", str(text))[:63]
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", value)


def stack_versions(stack: dict) -> dict:
    """{driver, firmware, cann, runtime: version or None} of ascend_facts' ``ascend`` fact."""
    stack = stack or {}

    def version_of(key):
        entry = stack.get(key) or {}
        return entry.get("version") if isinstance(entry, dict) else None

    return {
        "driver": version_of("driver"),
        "firmware": version_of("firmware"),
        "cann": version_of("cann"),
        "runtime": version_of("docker_runtime"),
    }


def version_labels(catalogue: dict, stack: dict) -> dict:
    """The node's stack versions as the collection's labels (``cubestudio.ascend/<part>-version``,
    catalogue ``version_labels``); a part that is not installed gets no label."""
    names = catalogue.get("version_labels") or {}
    labels = {}
    for part, version in stack_versions(stack).items():
        if part in names and version:
            value = label_value(version)
            if value:
                labels[names[part]] = value
    return labels


def _check_labels(labels: dict) -> None:
    for key, value in labels.items():
        if not isinstance(value, str) or not _LABEL_VALUE.match(value):
            raise PlanError(
                "the node label %s=%r is not a valid Kubernetes label value (63 characters "
                "at most, alphanumerics, '-', '_' and '.'; quote numbers in YAML). Fix: "
                "device_plugin_node_labels" % (key, value)
            )


def image_and_policy(name: str, version: str, params: dict) -> tuple:
    """(image reference, imagePullPolicy): a registry in front when given; Never for images
    loaded on the nodes, IfNotPresent with a registry, unless the user chose."""
    registry = (params.get("image_registry") or "").rstrip("/")
    image = "%s:v%s" % (name, version)
    policy = params.get("image_pull_policy") or (
        "IfNotPresent" if registry else "Never"
    )
    return (registry + "/" + image if registry else image), policy


def plan(catalogue: dict, params: dict) -> dict:
    """The device plugin plan of one node (see the action's RETURN for the keys)."""
    family_name, family = family_of(catalogue, params.get("npu_family"))
    warnings = []
    arch = params["architecture"]
    if arch not in catalogue["host_arch"]:
        raise PlanError(
            "the architecture %s has no MindCluster host-arch label (known: %s)"
            % (arch, ", ".join(sorted(catalogue["host_arch"])))
        )
    npu_smi = params["npu_smi"]
    npu_count = int(npu_smi.get("npu_count") or 0)
    labels = dict(catalogue["worker_labels"])
    labels["accelerator"] = family["accelerator"]
    labels["host-arch"] = catalogue["host_arch"][arch]
    value, warning = accelerator_type(catalogue, params.get("board_id"), npu_count)
    if value:
        labels["accelerator-type"] = value
    labels.update(version_labels(catalogue, params.get("stack") or {}))
    extra = {str(k): v for k, v in (params.get("extra_labels") or {}).items()}
    if warning and "accelerator-type" not in extra:
        warnings.append(warning)
    labels.update(extra)
    _check_labels(labels)

    spec = catalogue["device_plugin"]
    version = params["version"]
    try:
        below_7 = compare(version, spec["use_ascend_docker_below"]) < 0
        mount_by_runtime = compare(version, spec["mount_by_runtime_from"]) >= 0
        healthz = compare(version, spec["healthz_from"]) >= 0
    except VersionError:
        raise PlanError(
            "device_plugin_version %r is not a MindCluster version (e.g. 7.3.0, 26.0.0, "
            "6.0.RC3)" % version
        ) from None
    log_file = spec["log_dir"] + "/devicePlugin.log"
    flags = []
    if below_7:
        flags.append("-useAscendDocker=true")
    flags += ["-logFile=" + log_file, "-logLevel=0"]
    if healthz:
        flags += [
            "--enable-healthz=true",
            "--healthz-address=%d" % spec["healthz_port"],
        ]
    kubelet_root = params.get("kubelet_root") or "/var/lib/kubelet"
    # name, path in the container, path on the node, read-only, hostPath type
    volumes = [
        [
            "device-plugin",
            "/var/lib/kubelet/device-plugins",
            kubelet_root + "/device-plugins",
            False,
            "Directory",
        ],
        [
            "pod-resource",
            "/var/lib/kubelet/pod-resources",
            kubelet_root + "/pod-resources",
            False,
            "Directory",
        ],
        [
            "hiai-driver",
            "/usr/local/Ascend/driver",
            "/usr/local/Ascend/driver",
            True,
            "Directory",
        ],
        ["log-path", spec["log_dir"], spec["log_dir"], False, "Directory"],
        ["tmp", "/tmp", "/tmp", False, "Directory"],
    ]
    env = [["NODE_NAME", None]]
    if mount_by_runtime:
        env.append(["MOUNT_BY_RUNTIME_FOR_DP", "true"])
    else:
        volumes.append(
            [
                "containerd",
                "/run/containerd",
                "/run/containerd",
                True,
                "DirectoryOrCreate",
            ]
        )
        volumes.append(
            ["docker", "/run/docker", "/run/docker", True, "DirectoryOrCreate"]
        )
    check_flags(spec, "the device plugin", version, flags)
    image, pull_policy = image_and_policy(spec["image"], version, params)
    return {
        "family": family_name,
        "resource": family["resource"],
        "node_name": params["node_name"],
        "labels": labels,
        "warnings": warnings,
        "expected_allocatable": healthy_chips(npu_smi),
        "chip_count": int(npu_smi.get("chip_count") or 0),
        "namespace": spec["namespace"],
        "daemonset": spec["daemonset"],
        "pod_labels": dict(spec["pod_labels"]),
        "pod_selector": ",".join("%s=%s" % kv for kv in spec["pod_labels"].items()),
        "service_account": spec["service_account"],
        "cluster_role": spec["cluster_role"],
        "node_selector": dict(catalogue["worker_labels"]),
        "tolerations": sorted(f["resource"] for f in catalogue["families"].values()),
        "image": image,
        "image_pull_policy": pull_policy,
        "command": "device-plugin " + " ".join(flags),
        "healthz_port": spec["healthz_port"] if healthz else None,
        "healthz_path": spec.get("healthz_path", "/"),
        "env": env,
        "volumes": volumes,
        "log_dir": spec["log_dir"],
        "rules": spec["rules"],
        "resources": spec["resources"],
    }


EXPORTER_ARGUMENT_SPEC = {
    "version": {"type": "str", "required": True},
    "engine": {"type": "str", "default": "auto"},
    "node_runtime": {"type": "str", "default": ""},
    "image_registry": {"type": "str", "default": ""},
    "image_pull_policy": {"type": "str", "default": ""},
    "port": {"type": "int", "default": 8082},
    "update_time": {"type": "int", "default": 5},
    "node_name": {"type": "str", "default": ""},
    "cluster": {"type": "dict"},
    "prometheus_operator": {"type": "str", "default": "auto"},
    "grafana_dashboard": {"type": "bool", "default": True},
    "catalogue_file": {"type": "path"},
}

EXPORTER_MANIFESTS = ("npu-exporter.yaml.j2", "monitoring.yaml.j2", "dashboard.yaml.j2")
OPERATOR_CRDS = (
    "servicemonitors.monitoring.coreos.com",
    "prometheusrules.monitoring.coreos.com",
)


def exporter_objects(params: dict) -> dict:
    """What the exporter puts on the cluster, from the settings and (when given) the one read of
    the cluster (ascend_k8s_read's answer): the Node in k8s_info's shape, whether the Prometheus
    operator's ServiceMonitor and PrometheusRule go with it (asked for, or - auto - both of the
    operator's CRDs exist), and the role's templates to apply."""
    wanted = str(params.get("prometheus_operator", "auto")).strip().lower()
    if wanted not in ("auto", "true", "yes", "false", "no"):
        raise PlanError(
            "exporter_prometheus_operator is %r; it is auto, true or false"
            % params.get("prometheus_operator")
        )
    cluster = params.get("cluster") or {}
    node = (cluster.get("nodes") or {}).get(params.get("node_name") or "")
    crds = cluster.get("crds") or {}
    operator = wanted in ("true", "yes") or (
        wanted == "auto" and all(crds.get(name) for name in OPERATOR_CRDS)
    )
    manifests = [EXPORTER_MANIFESTS[0]]
    if operator:
        manifests.append(EXPORTER_MANIFESTS[1])
    if params.get("grafana_dashboard", True):
        manifests.append(EXPORTER_MANIFESTS[2])
    return {
        "node_name": params.get("node_name") or "",
        "node": {"resources": [node] if node else []},
        "operator_crds": list(OPERATOR_CRDS) if wanted == "auto" else [],
        "operator": operator,
        "manifests": manifests,
    }


def exporter_plan(catalogue: dict, params: dict) -> dict:
    """The npu-exporter plan of one node: image, flags and mounts for its engine."""
    spec = catalogue.get("exporter")
    if not spec:
        raise PlanError("the MindCluster catalogue has no 'exporter'")
    # auto: the engine the kubelet uses (the Node's containerRuntimeVersion), containerd
    # when there is no Node to ask (render mode): Kubernetes' default since 1.24.
    objects = exporter_objects(params)
    text = (params.get("engine") or "auto").strip().lower()
    if text == "auto":
        live = objects["node"]["resources"]
        runtime = params.get("node_runtime") or (
            ((live[0].get("status") or {}).get("nodeInfo") or {}).get(
                "containerRuntimeVersion"
            )
            if live
            else ""
        )
        text = (runtime or "containerd").strip().lower()
    engine = text.split("://", 1)[0]
    if engine not in spec["engines"]:
        raise PlanError(
            "the kubelet's container engine is %r; npu-exporter reads containers from %s. "
            "Fix: run the exporter on nodes whose kubelet uses containerd, or Docker through "
            "cri-dockerd" % (params.get("engine"), " or ".join(sorted(spec["engines"])))
        )
    port = spec["port"] if params.get("port") is None else params["port"]
    if not 1025 <= port <= 40000:
        raise PlanError(
            "exporter_port %d is outside 1025-40000, the range npu-exporter accepts"
            % port
        )
    update = 5 if params.get("update_time") is None else params["update_time"]
    if not 1 <= update <= 60:
        raise PlanError(
            "exporter_update_time %d is outside 1-60 s, the range npu-exporter accepts"
            % update
        )
    version = params["version"]
    try:
        healthz = compare(version, spec["healthz_from"]) >= 0
    except VersionError:
        raise PlanError(
            "exporter_version %r is not a MindCluster version (e.g. 7.3.0, 26.0.0)"
            % version
        ) from None
    flags = [
        "-port=%d" % port,
        "-ip=0.0.0.0",
        "-updateTime=%d" % update,
        "-logFile=%s/npu-exporter.log" % spec["log_dir"],
        "-logLevel=0",
    ] + list(spec["engines"][engine]["flags"])
    if healthz:
        flags += [
            "--enable-healthz=true",
            "--healthz-address=%d" % spec["healthz_port"],
        ]
    check_flags(spec, "npu-exporter", version, flags)
    image, pull_policy = image_and_policy(spec["image"], version, params)
    return {
        "engine": engine,
        "namespace": spec["namespace"],
        "daemonset": spec["daemonset"],
        "pod_labels": dict(spec["pod_labels"]),
        "pod_selector": ",".join("%s=%s" % kv for kv in spec["pod_labels"].items()),
        "service": spec["service"],
        "image": image,
        "image_pull_policy": pull_policy,
        "command": "umask 027; npu-exporter " + " ".join(flags),
        "port": port,
        "healthz_port": spec["healthz_port"] if healthz else None,
        "healthz_path": spec.get("healthz_path", "/"),
        "log_dir": spec["log_dir"],
        "volumes": [list(v) for v in spec["volumes"]]
        + [list(v) for v in spec["engines"][engine]["volumes"]],
        "resources": spec["resources"],
        "node_selector": dict(catalogue["worker_labels"]),
        **objects,
    }


def exporter_uninstall_steps(
    selected: list, play_nodes: list, node: str, image_archive: str, check_mode: bool
) -> dict:
    """What the exporter's uninstall does on one node.

    ``selected``: the names of the nodes that still carry the DaemonSet's node selector;
    ``play_nodes``: the node names of the hosts of this play (they all leave); ``node``: this
    host's node. The exporter is one DaemonSet for the cluster: its objects go
    (``remove_objects``) only when no selected node stays outside the play. Otherwise it
    ``stays`` on a node that is still selected (its labels go in device_plugin's uninstall), and
    the node it ``leaves`` gets its pod waited for (``wait_pod``, not in check mode) and the image
    and tarball removed (``remove_image``, when an image archive was copied).
    """
    selected = list(selected or [])
    remove_objects = not [name for name in selected if name not in (play_nodes or [])]
    leaves = remove_objects or node not in selected
    return {
        "remove_objects": remove_objects,
        "stays": not leaves,
        "wait_pod": leaves and not check_mode,
        "remove_image": leaves and len(image_archive or "") > 0,
    }
