# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The decisions of playbooks/doctor.yml, as pure functions: the facts the fact modules
# and kubernetes.core.k8s_info read from a node and its cluster go in, a list of findings comes
# out, each naming a row of the troubleshooting table (data/troubleshooting.yml) with the
# symptom seen on this node, the row's cause and fix, and a severity.

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    env_problems,
    judge,
    workloads,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._docker_json import (
    DaemonJsonError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._docker_json import (
    load as load_daemon_json,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    TomlError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    loads as load_toml,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    healthy_chips,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._chip_map import (
    ChipMapError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._chip_map import (
    compare as chip_map_compare,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._chip_map import (
    current as chip_map_current,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._chip_map import (
    load as chip_map_load,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._chip_map import (
    moved_text as chip_map_moved_text,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    check as iommu_check,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    expected_davinci_count,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)


class DoctorError(Exception):
    """Input the doctor cannot judge; the message names the cause and the fix."""


ARGUMENT_SPEC = {
    "ascend": {"type": "dict", "required": True},
    "npu_smi": {"type": "dict"},
    "npu_smi_error": {"type": "str", "default": ""},
    "compat_findings": {"type": "list", "elements": "dict", "default": []},
    "device_files": {"type": "list", "elements": "dict"},
    "device_group": {"type": "str", "default": ""},
    "temperature_threshold": {"type": "float"},
    "rules_file": {"type": "path"},
    "cann_env_file": {"type": "dict"},
    "docker_daemon_json": {"type": "str"},
    "containerd_config": {"type": "str"},
    "engine": {"type": "str", "default": "auto"},
    "containers": {"type": "list", "elements": "dict"},
    "kubernetes": {"type": "dict"},
    "memory_headroom": {"type": "int", "default": 30},
    "rows_file": {"type": "path"},
    "catalogue_file": {"type": "path"},
    "skip_rows": {"type": "list", "elements": "str", "default": []},
    "output_dir": {"type": "str", "default": "doctor"},
    "host": {"type": "str", "default": ""},
    "chip_map_record": {"type": "str"},
    "compat_policy": {
        "type": "str",
        "default": "strict",
        "choices": ["strict", "tolerant"],
    },
    "matrix_file": {"type": "path"},
}

SEVERITIES = ("error", "warning", "info")
ROW_KEYS = ("id", "source", "severity", "doctor", "symptom", "cause", "fix")
_ROW_ID = re.compile(r"^T[1-9][0-9]*$")
_HEALTH_RANK = {"OK": 0, "Warning": 1, "Alarm": 2, "Critical": 3}
# ascend_compat rules whose findings are a driver/firmware pair (T3); the others about versions
# that belong together are T20. Rules about the OS, the matrix data itself or bad input are not
# doctor findings (preflight reports the OS).
_COMPAT_T3 = (
    "driver.accepts-firmware",
    "firmware.accepts-driver",
    "driver.firmware.matrix",
)
_COMPAT_T20 = (
    "cann.matched",
    "mindcluster.matched",
    "mindcluster.tolerance.hdk",
    "mindcluster.tolerance.cann",
    "docker_runtime.mindcluster",
    "docker_runtime.minimum",
    "containerd.config-v3",
    "stack.docker",
    "stack.containerd",
    "stack.kubernetes",
    "lifecycle.driver",
    "lifecycle.firmware",
)
RUNTIME_BINARY = "ascend-docker-runtime"
LEGACY_RUNTIME_TYPE = "io.containerd.runtime.v1.linux"
_TEMP_RULE = re.compile(r"npu_chip_info_temperature\s*>=?\s*([0-9]+(?:\.[0-9]+)?)")


def validate_rows(data) -> dict:
    """The troubleshooting table as read from YAML, checked; {id: row}."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise DoctorError("it must be a mapping with schema: 1 and a list rows")
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise DoctorError("rows must be a non-empty list")
    table = {}
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise DoctorError("row %d is not a mapping" % (index + 1))
        missing = [key for key in ROW_KEYS if key not in row]
        if missing:
            raise DoctorError(
                "row %d (%s) lacks %s" % (index + 1, row.get("id"), ", ".join(missing))
            )
        rid = row["id"]
        if not isinstance(rid, str) or not _ROW_ID.match(rid):
            raise DoctorError("row %d has the id %r, not T<n>" % (index + 1, rid))
        if rid in table:
            raise DoctorError("the id %s is used twice" % rid)
        if row["severity"] not in SEVERITIES:
            raise DoctorError(
                "row %s has severity %r, not one of %s"
                % (rid, row["severity"], ", ".join(SEVERITIES))
            )
        for key in ("symptom", "cause", "fix"):
            if not isinstance(row[key], str) or not row[key].strip():
                raise DoctorError("row %s has an empty %s" % (rid, key))
        table[rid] = row
    return table


def temperature_threshold(rules) -> float:
    """The throttling threshold of the exporter's alert rules (AscendNpuTemperatureHigh)."""
    groups = rules.get("groups") if isinstance(rules, dict) else None
    for group in groups if isinstance(groups, list) else []:
        for rule in (group or {}).get("rules") or []:
            if (
                isinstance(rule, dict)
                and rule.get("alert") == "AscendNpuTemperatureHigh"
            ):
                match = _TEMP_RULE.search(str(rule.get("expr", "")))
                if match:
                    return float(match.group(1))
    raise DoctorError(
        "no alert AscendNpuTemperatureHigh with an expression "
        "`npu_chip_info_temperature >= <C>` was found; give temperature_threshold instead"
    )


class _Findings:
    def __init__(self, table: dict, skip):
        self.table = table
        self.skip = set(skip or [])
        self.items = []

    def add(
        self,
        rid: str,
        seen: str,
        severity: str | None = None,
        cause: str = "",
        fix: str = "",
    ):
        if rid in self.skip:
            return
        row = self.table.get(rid)
        if row is None:
            raise DoctorError(
                "the troubleshooting table has no row %s; use the collection's "
                "data/troubleshooting.yml or a copy with every row" % rid
            )
        self.items.append(
            {
                "row": rid,
                "symptom": seen,
                "cause": (cause + "; " if cause else "") + row["cause"].strip(),
                "fix": (fix + "; " if fix else "") + row["fix"].strip(),
                "severity": severity or row["severity"],
            }
        )


def _names(values, limit=8) -> str:
    values = [str(v) for v in values]
    text = ", ".join(values[:limit])
    return text + (
        " and %d more" % (len(values) - limit) if len(values) > limit else ""
    )


def _chips(npu_smi: dict):
    for npu in npu_smi.get("npus") or []:
        for chip in npu.get("chips") or []:
            yield npu, chip


def _check_driver(out: _Findings, facts: dict, params: dict, catalogue: dict) -> bool:
    """Driver, device nodes and npu-smi; True when npu-smi's view can be trusted."""
    pci = facts.get("pci_npu_count") or 0
    # One /dev/davinci node and one npu-smi chip per NPU chip: npu_driver's verify counts the same.
    chips = expected_davinci_count(catalogue, facts)
    if not pci:
        out.add("T1", "no Ascend NPU is on the PCI bus (vendor 0x19e5)")
        return False
    smi_tool = facts.get("npu_smi") or {}
    if smi_tool.get("is_directory"):
        out.add(
            "T14", "%s is a directory" % smi_tool.get("path", "/usr/local/sbin/npu-smi")
        )
    driver = facts.get("driver")
    if driver is None:
        out.add(
            "T16",
            "%d NPU chip(s) on the PCI bus but no driver in %s"
            % (pci, facts.get("install_path") or "/usr/local/Ascend"),
            cause="the driver is not installed",
        )
        return False
    if not driver.get("complete", True):
        out.add(
            "T5",
            "the driver in %s is installed partially (%s)"
            % (
                driver.get("install_path"),
                "no Driver_Install_Status=complete in /etc/ascend_install.info"
                if driver.get("unfinished")
                else "no tools/upgrade-tool",
            ),
        )
    missing = sorted(k for k, v in (facts.get("device_nodes") or {}).items() if not v)
    if missing:
        out.add(
            "T16",
            "missing device node(s): %s" % _names("/dev/" + m for m in missing),
            cause="the driver's kernel modules did not create them",
        )
    davinci = facts.get("davinci_devices") or 0
    if davinci < chips:
        ids = facts.get("davinci_ids") or []
        out.add(
            "T10",
            "%d /dev/davinci node(s) for %d NPU chip(s) on the PCI bus (%d function(s); present: %s)"
            % (davinci, chips, pci, _names(ids) or "none"),
        )
    error = (params.get("npu_smi_error") or "").strip()
    npu_smi = params.get("npu_smi")
    if error:
        first = error.splitlines()[0][:300]
        if "-8005" in error:
            out.add("T11", "npu-smi cannot read the NPUs: %s" % first)
        elif "permission denied" in error.lower() or "not permitted" in error.lower():
            out.add(
                "T17",
                "npu-smi fails with a permission error: %s" % first,
                severity="error",
            )
        else:
            out.add("T16", "npu-smi fails: %s" % first)
        return False
    if not smi_tool.get("present") and not smi_tool.get("alt_present"):
        out.add(
            "T16",
            "the driver is installed but npu-smi is missing (%s)"
            % smi_tool.get("path", "/usr/local/sbin/npu-smi"),
            cause="the driver install is incomplete",
        )
        return False
    if not isinstance(npu_smi, dict) or not npu_smi:
        return False
    seen = npu_smi.get("chip_count")
    if isinstance(seen, int) and seen < chips:
        out.add("T10", "npu-smi sees %d chip(s) for %d on the PCI bus" % (seen, chips))
    running = str(npu_smi.get("driver_version") or "")
    installed = str(driver.get("version") or "")
    if running and installed and running.lower() != installed.lower():
        out.add(
            "T13",
            "npu-smi reports driver %s but %s is installed (%s)"
            % (running, installed, driver.get("version_file")),
        )
    return True


def _check_chips(out: _Findings, npu_smi: dict, threshold) -> None:
    bad = {}
    for npu, chip in _chips(npu_smi):
        health = chip.get("health") or npu.get("health")
        if health and health != "OK":
            bad.setdefault(health, []).append(
                "NPU %s chip %s" % (npu.get("id"), chip.get("chip"))
            )
    if bad:
        worst = max(bad, key=lambda h: _HEALTH_RANK.get(h, 9))
        out.add(
            "T12",
            "not healthy: "
            + "; ".join(
                "%s %s" % (_names(where), health)
                for health, where in sorted(bad.items())
            ),
            severity="warning" if worst == "Warning" else "error",
        )
    if threshold is None:
        return
    hot = [
        "NPU %s chip %s at %s C" % (npu.get("id"), chip.get("chip"), chip.get("temp_c"))
        for npu, chip in _chips(npu_smi)
        if isinstance(chip.get("temp_c"), (int, float)) and chip["temp_c"] >= threshold
    ]
    if hot:
        out.add(
            "T18",
            "%s (threshold %g C of the exporter's alert AscendNpuTemperatureHigh)"
            % (_names(hot), threshold),
        )


def _check_compat(out: _Findings, findings) -> None:
    for finding in findings or []:
        rule = finding.get("rule", "")
        severity = finding.get("severity")
        if severity not in ("error", "warning"):
            continue
        if rule in _COMPAT_T3:
            rid = "T3"
        elif rule in _COMPAT_T20:
            rid = "T20"
        else:
            continue
        out.add(
            rid,
            "[%s] %s" % (rule, finding.get("message", "")),
            severity=severity,
            cause="ascend_compat: " + (finding.get("fix") or "").strip(),
        )


def _mode(value) -> int | None:
    try:
        return int(str(value), 8)
    except (TypeError, ValueError):
        return None


def _check_devices(out: _Findings, facts: dict, files, group: str) -> None:
    """Device nodes readable and writable by the group HwHiAiUser (non-root workloads)."""
    if not group or files is None:
        return
    user = facts.get("hwhiaiuser") or {}
    gid = user.get("group_gid")
    wrong = []
    for item in files:
        mode = _mode(item.get("mode"))
        if mode is None:
            continue
        by_group = (
            item.get("gr_name") == group or (gid is not None and item.get("gid") == gid)
        ) and (mode & 0o060 == 0o060)
        if by_group or mode & 0o006 == 0o006:
            continue
        wrong.append(
            "%s %s:%s %s"
            % (
                item.get("path"),
                item.get("pw_name", "?"),
                item.get("gr_name", "?"),
                item.get("mode"),
            )
        )
    if wrong:
        out.add(
            "T17",
            "device node(s) not read-writable by the group %s: %s"
            % (group, _names(sorted(wrong), 4)),
        )


def _check_cann(out: _Findings, facts: dict, env) -> None:
    if not facts.get("cann") or not env or not env.get("path"):
        return
    if not env.get("exists"):
        out.add(
            "T19",
            "CANN %s is installed but the env file %s does not exist"
            % (facts["cann"].get("version"), env["path"]),
        )
    elif env.get("content") is not None and not re.search(
        r"^LD_LIBRARY_PATH=.*lib64", env["content"], re.MULTILINE
    ):
        out.add(
            "T19",
            "the env file %s puts no CANN lib64 folder on LD_LIBRARY_PATH"
            % env["path"],
        )


def _containerd_runtimes(text: str):
    """(runtimes {name: table}, default runtime name) of a containerd config file."""
    data = load_toml(text)
    for plugin in ("io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri", "cri"):
        containerd = ((data.get("plugins") or {}).get(plugin) or {}).get("containerd")
        if isinstance(containerd, dict):
            return (
                containerd.get("runtimes") or {},
                containerd.get("default_runtime_name") or "runc",
                data,
            )
    return {}, "runc", data


def _is_ascend_runtime(table) -> bool:
    if not isinstance(table, dict):
        return False
    options = table.get("options") or {}
    return RUNTIME_BINARY in str(
        options.get("BinaryName", "")
    ) or RUNTIME_BINARY in str(table.get("runtime_path", ""))


def _check_runtime(out: _Findings, facts: dict, params: dict) -> None:
    runtime = facts.get("docker_runtime")
    if not runtime:
        return
    engine = params.get("engine") or "auto"
    if engine == "auto":
        engine = (
            "containerd" if runtime.get("install_scene") == "containerd" else "docker"
        )
    if engine == "docker":
        text = params.get("docker_daemon_json")
        if text is None:
            out.add(
                "T21",
                "the Ascend Docker Runtime is installed but /etc/docker/daemon.json does not exist",
            )
            return
        try:
            daemon = load_daemon_json(text)
        except DaemonJsonError as error:
            out.add("T21", "/etc/docker/daemon.json %s" % error)
            return
        runtimes = daemon.get("runtimes") or {}
        names = [
            name
            for name, value in runtimes.items()
            if isinstance(value, dict) and RUNTIME_BINARY in str(value.get("path", ""))
        ]
        if not names:
            out.add(
                "T21",
                "daemon.json registers no runtime running %s (runtimes: %s)"
                % (RUNTIME_BINARY, _names(sorted(runtimes)) or "none"),
            )
        elif daemon.get("default-runtime") not in names:
            out.add(
                "T22",
                "daemon.json's default-runtime is %s, not %s"
                % (daemon.get("default-runtime") or "runc (unset)", " or ".join(names)),
            )
        return
    text = params.get("containerd_config")
    if text is None:
        out.add(
            "T21",
            "the Ascend Docker Runtime is installed but containerd has no config file",
        )
        return
    try:
        runtimes, default, data = _containerd_runtimes(text)
    except TomlError as error:
        out.add("T21", "containerd's config cannot be read: %s" % error)
        return
    legacy = RUNTIME_BINARY in str(
        ((data.get("plugins") or {}).get("io.containerd.runtime.v1.linux") or {}).get(
            "runtime", ""
        )
    )
    # Installers <= 26.0.0 on cgroup v1 register the runtime as the shim v1 runtime and point
    # runc's runtime_type at it; the others set BinaryName or add an `ascend` runtime.
    names = [
        name
        for name, table in runtimes.items()
        if _is_ascend_runtime(table)
        or (
            legacy
            and isinstance(table, dict)
            and table.get("runtime_type") == LEGACY_RUNTIME_TYPE
        )
    ]
    if not names and not legacy:
        out.add(
            "T21",
            "containerd's config runs %s in no runtime (runtimes: %s)"
            % (RUNTIME_BINARY, _names(sorted(runtimes)) or "none"),
        )
    elif not names:
        out.add(
            "T22",
            "containerd's io.containerd.runtime.v1.linux runs %s but no runtime has runtime_type %s"
            " (default runtime: %s)" % (RUNTIME_BINARY, LEGACY_RUNTIME_TYPE, default),
        )
    elif default not in names:
        out.add(
            "T22",
            "containerd's default_runtime_name is %s, not %s"
            % (default, " or ".join(sorted(names))),
        )


def _visible_ids(value):
    """The device ids of ASCEND_VISIBLE_DEVICES (`0-2,4`, `npu-1`), None when not given."""
    if value is None:
        return None
    value = value.strip()
    if value in ("", "void"):
        return []
    ids = set()
    for part in (p.strip() for p in value.split(",")):
        low, sep, high = part.partition("-")
        if sep and low.isdigit() and high.isdigit():
            ids.update(str(i) for i in range(int(low), int(high) + 1))
        elif sep and not low.isdigit():
            ids.add(high)  # npu-1, Ascend910-1
        else:
            ids.add(part)
    return sorted(ids)


def _check_containers(out: _Findings, containers) -> None:
    for item in containers or []:
        name = item.get("pod") or item.get("name") or item.get("id")
        davinci = [
            d for d in item.get("devices") or [] if re.match(r"^/dev/davinci[0-9]+$", d)
        ]
        visible = _visible_ids(item.get("visible_devices"))
        if item.get("all_devices"):
            continue
        if not visible and not davinci:
            out.add(
                "T23",
                "container %s (%s) uses Ascend device nodes but no /dev/davinciN, and "
                "ASCEND_VISIBLE_DEVICES is %s"
                % (name, item.get("engine"), "unset" if visible is None else "void"),
            )
        elif visible and davinci and len(davinci) < len(visible):
            out.add(
                "T24",
                "container %s names %d NPU(s) in ASCEND_VISIBLE_DEVICES (%s) but maps only %s"
                % (name, len(visible), item.get("visible_devices"), _names(davinci)),
            )


def _npu_resources(resources) -> dict:
    return {
        key: value
        for key, value in (resources or {}).items()
        if key.startswith("huawei.com/Ascend") or key == "huawei.com/npu"
    }


def _quantity(value) -> int:
    """A whole count of NPUs from a resource quantity (``8`` or ``"8"``); 0 for anything else."""
    return int_or_none(value) or 0


def _pod_ready(pod: dict) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") != "Running":
        return False
    return all(c.get("ready") for c in status.get("containerStatuses") or [{}])


def _pod_state(pod: dict) -> str:
    status = pod.get("status") or {}
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting")
        if waiting and waiting.get("reason"):
            return waiting["reason"]
    return status.get("phase") or "Unknown"


# The taint playbooks/upgrade.yml puts on a node while its layers change.
UPGRADE_TAINT = "cubestudio.ascend/upgrade"


def _selects(ds: dict, selector: str) -> bool:
    """The DaemonSet's matchLabels hold every ``key=value`` of ``selector`` (not empty)."""
    labels = ((ds.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    pairs = [p.split("=", 1) for p in str(selector or "").split(",") if "=" in p]
    return bool(pairs) and all(labels.get(k.strip()) == v.strip() for k, v in pairs)


def plugin_daemonsets(daemonsets, selector="") -> list:
    """The Ascend device plugin's DaemonSets among all of the cluster's: those whose selector
    holds ``selector`` (the pod label of data/mindcluster.yml, e.g. name=ascend-device-plugin-ds,
    from the lookup cubestudio.ascend.ascend_settings) or that run Huawei's image."""
    return [
        ds
        for ds in daemonsets or []
        if _selects(ds, selector)
        or any(
            "k8sdeviceplugin" in str(c.get("image", ""))
            for c in (
                ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
            ).get("containers")
            or []
        )
    ]


def _pods_of(ds: dict, pods) -> list:
    """The pods (of a list) that a DaemonSet owns and that are not being deleted."""
    meta = ds.get("metadata") or {}
    return [
        pod
        for pod in pods or []
        if (pod.get("metadata") or {}).get("namespace") == meta.get("namespace")
        and any(
            ref.get("kind") == "DaemonSet" and ref.get("name") == meta.get("name")
            for ref in (pod.get("metadata") or {}).get("ownerReferences") or []
        )
        and not (pod.get("metadata") or {}).get("deletionTimestamp")
    ]


def plugin_pod(daemonsets, pods, selector="") -> dict:
    """{namespace, name} of the device plugin's pod among a node's pods; {} when it has none
    (the doctor reads its recent log)."""
    for ds in plugin_daemonsets(daemonsets, selector):
        for pod in _pods_of(ds, pods):
            meta = pod.get("metadata") or {}
            return {"namespace": meta.get("namespace"), "name": meta.get("name")}
    return {}


# What Huawei's device plugin logs when it cannot reach the kubelet's socket (v7.3.0..v26.1.0:
# pkg/server plugin registration; it keeps running and retries every 10 s).
_KUBELET_SOCKET_LOG = (
    "check kubelet socket file path failed",
    "Could not contact Kubelet",
    "register to kubelet failed",
)
# Event reasons and texts of the kubelet when it cannot start a pod's sandbox or container.
_SETUP_REASONS = ("FailedCreatePodSandBox", "FailedCreatePodContainer", "Failed")
_SETUP_TEXT = (
    "failed to create pod sandbox",
    "failed to set up container",
    "oci runtime create failed",
    "failed to create containerd task",
    "failed to create shim",
)


def _event_line(event: dict) -> str:
    obj = event.get("involvedObject") or {}
    return "%s %s/%s: %s (x%s)" % (
        event.get("reason"),
        obj.get("namespace") or "-",
        obj.get("name"),
        " ".join(str(event.get("message") or "").split())[:300],
        event.get("count") or 1,
    )


def check_events(out: _Findings, k8s: dict, allocatable: dict, waiting) -> None:
    """The kubelet's and scheduler's recent Warning events about the node and its pods, and the
    device plugin pod's recent log, turned into rows: a pod that cannot start its sandbox or
    container on the NPU node (T43 device cgroup refusal, else T44), unscheduled pods whose
    nodeSelector fits the node (``waiting``) that the scheduler refuses for `Insufficient
    huawei.com/Ascend*` (T25: none advertised or all taken), the plugin failing to reach the
    kubelet's socket (T29)."""
    name = k8s.get("node_name")
    on_node = {
        (
            (p.get("metadata") or {}).get("namespace"),
            (p.get("metadata") or {}).get("name"),
        )
        for p in k8s.get("pods") or []
    }
    waiting = {
        (
            (p.get("metadata") or {}).get("namespace"),
            (p.get("metadata") or {}).get("name"),
        )
        for p in waiting or []
    }
    setup, insufficient = [], []
    for event in k8s.get("events") or []:
        obj = event.get("involvedObject") or {}
        key = (obj.get("namespace"), obj.get("name"))
        text = str(event.get("message") or "")
        if obj.get("kind") == "Pod" and key in on_node:
            if event.get("reason") in _SETUP_REASONS and any(
                t in text.lower() for t in _SETUP_TEXT
            ):
                setup.append(event)
        elif (
            obj.get("kind") == "Pod"
            and key in waiting
            and event.get("reason") == "FailedScheduling"
            and "Insufficient huawei.com/Ascend" in text
        ):
            insufficient.append(event)
    by_row = {}
    for event in setup:
        text = str(event.get("message") or "").lower()
        device = "device" in text and (
            "operation not permitted" in text or "permission denied" in text
        )
        by_row.setdefault("T43" if device else "T44", []).append(_event_line(event))
    for rid, lines in sorted(by_row.items()):
        out.add(rid, "on node %s: %s" % (name, _names(lines, 3)))
    if insufficient:
        total = sum(_quantity(v) for k, v in allocatable.items() if k.count("-") == 0)
        taken = sum(
            _quantity(v)
            for p in k8s.get("pods") or []
            if (p.get("status") or {}).get("phase") in ("Running", "Pending")
            for c in (p.get("spec") or {}).get("containers") or []
            for k, v in _npu_resources((c.get("resources") or {}).get("limits")).items()
            if k.count("-") == 0
        )
        why = (
            "the node advertises no huawei.com/Ascend*"
            if total == 0
            else "all %d advertised NPU(s) are taken (%d requested by pods on the node)"
            % (total, taken)
            if taken >= total
            else "%d advertised, %d taken: the pod asks for more than are free"
            % (total, taken)
        )
        out.add(
            "T25",
            "the scheduler refuses NPU pods that fit node %s: %s; %s"
            % (name, why, _names(_event_line(e) for e in insufficient)),
            severity="error" if total == 0 else "warning",
        )
    log = str(k8s.get("plugin_log") or "")
    lines = [
        line.strip()
        for line in log.splitlines()
        if any(t in line for t in _KUBELET_SOCKET_LOG)
    ]
    if lines:
        out.add(
            "T29",
            "the device plugin's log on node %s: %s" % (name, lines[-1][:300]),
        )


def _check_kubernetes(out: _Findings, k8s: dict, npu_smi, facts: dict) -> None:
    if not k8s or not k8s.get("enabled"):
        return
    name = k8s.get("node_name")
    error = k8s.get("error")
    if error:
        out.add(
            "T30",
            "the cluster could not be asked about node %s: %s" % (name, error),
            severity="warning",
        )
        return
    node = k8s.get("node")
    if not node:
        out.add("T30", "no node %s in the cluster" % name)
        return
    spec = node.get("spec") or {}
    held = [
        "cordoned (spec.unschedulable)" if spec.get("unschedulable") else "",
        *(
            "tainted %s=%s:%s"
            % (taint.get("key"), taint.get("value", ""), taint.get("effect"))
            for taint in spec.get("taints") or []
            if taint.get("key") == UPGRADE_TAINT
        ),
    ]
    held = [what for what in held if what]
    if held:
        out.add(
            "T34",
            "node %s is %s" % (name, " and ".join(held)),
            # A taint of ours keeps the device plugin off the node; a cordon alone does not.
            severity=None
            if len(held) > 1 or not spec.get("unschedulable")
            else "warning",
        )
    labels = (node.get("metadata") or {}).get("labels") or {}
    daemonsets = plugin_daemonsets(
        k8s.get("daemonsets"), k8s.get("device_plugin_selector") or ""
    )
    pods = k8s.get("pods") or []
    plugin_ok = False
    if not daemonsets:
        out.add(
            "T27",
            "no Ascend device plugin DaemonSet in the cluster",
            cause="it is not deployed",
        )
    for ds in daemonsets:
        meta = ds.get("metadata") or {}
        where = "%s/%s" % (meta.get("namespace"), meta.get("name"))
        pod_spec = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
        selector = pod_spec.get("nodeSelector") or {}
        wrong = sorted(
            "%s=%s (node: %s)" % (key, value, labels.get(key, "unset"))
            for key, value in selector.items()
            if labels.get(key) != value
        )
        if wrong:
            out.add(
                "T26",
                "node %s does not match the nodeSelector of %s: %s"
                % (name, where, _names(wrong, 4)),
            )
            continue
        own = _pods_of(ds, pods)
        if not own:
            out.add("T27", "%s has no pod on node %s" % (where, name))
        elif not any(_pod_ready(pod) for pod in own):
            out.add(
                "T27",
                "the pod(s) of %s on node %s are not ready: %s"
                % (
                    where,
                    name,
                    _names(
                        "%s %s" % (p["metadata"].get("name"), _pod_state(p))
                        for p in own
                    ),
                ),
            )
        else:
            plugin_ok = True
        kubelet = [
            (v.get("hostPath") or {}).get("path", "")
            for v in pod_spec.get("volumes") or []
            if "device-plugins" in str((v.get("hostPath") or {}).get("path", ""))
        ]
        root = k8s.get("kubelet_root") or "/var/lib/kubelet"
        expected = root.rstrip("/") + "/device-plugins"
        if kubelet and all(path.rstrip("/") != expected for path in kubelet):
            out.add(
                "T29",
                "%s mounts %s, but the kubelet's device-plugin folder is %s"
                % (where, _names(kubelet), expected),
            )
    if k8s.get("kubelet_socket") is not None and not k8s["kubelet_socket"].get(
        "exists"
    ):
        out.add(
            "T29",
            "the kubelet socket %s does not exist on the node"
            % k8s["kubelet_socket"].get("path"),
        )
    elif (k8s.get("kubelet_socket") or {}).get("islnk"):
        out.add(
            "T29",
            "the kubelet socket %s is a symlink" % k8s["kubelet_socket"].get("path"),
        )
    allocatable = _npu_resources((node.get("status") or {}).get("allocatable"))
    total = sum(_quantity(v) for k, v in allocatable.items() if k.count("-") == 0)
    healthy = (
        healthy_chips(npu_smi)
        if isinstance(npu_smi, dict) and npu_smi.get("npus")
        else None
    )
    expected = healthy if healthy is not None else facts.get("pci_npu_count") or 0
    if total == 0 and expected:
        out.add(
            "T25",
            "node %s has no huawei.com/Ascend* allocatable (%d healthy chip(s))%s"
            % (name, expected, "" if plugin_ok else "; see the device plugin finding"),
        )
    elif total < expected:
        out.add(
            "T25",
            "node %s has %s allocatable for %d healthy chip(s)"
            % (
                name,
                _names("%s: %s" % kv for kv in sorted(allocatable.items())),
                expected,
            ),
            severity="warning",
        )
    waiting = [
        pod
        for pod in k8s.get("pending_pods") or []
        if not (pod.get("spec") or {}).get("nodeName")
        and all(
            labels.get(key) == value
            for key, value in (
                (pod.get("spec") or {}).get("nodeSelector") or {}
            ).items()
        )
    ]
    for pod in pods + waiting:
        meta = pod.get("metadata") or {}
        for container in (pod.get("spec") or {}).get("containers") or []:
            resources = container.get("resources") or {}
            limits = _npu_resources(resources.get("limits"))
            requests = _npu_resources(resources.get("requests"))
            keys = sorted(set(limits) | set(requests))
            bad = [
                "%s request %s limit %s" % (k, requests.get(k, "-"), limits.get(k, "-"))
                for k in keys
                if k in requests
                and _quantity(requests.get(k)) != _quantity(limits.get(k))
            ]
            if bad:
                out.add(
                    "T28",
                    "pod %s/%s container %s: %s"
                    % (
                        meta.get("namespace"),
                        meta.get("name"),
                        container.get("name"),
                        _names(bad),
                    ),
                )
    pending = [
        "%s/%s" % (p["metadata"].get("namespace"), p["metadata"].get("name"))
        for p in pods
        if (p.get("status") or {}).get("phase") == "Pending"
        and any(
            _npu_resources((c.get("resources") or {}).get("limits"))
            for c in (p.get("spec") or {}).get("containers") or []
        )
        and (p.get("spec") or {}).get("nodeName") == name
    ]
    if pending and total:
        out.add(
            "T25",
            "pod(s) requesting NPUs are Pending on node %s: %s"
            % (name, _names(pending)),
            severity="warning",
        )
    check_events(out, k8s, allocatable, waiting)


# Bytes of a Kubernetes memory quantity's suffixes.
_MEMORY_UNITS = {
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}
_MEMORY = re.compile(r"^([0-9.]+)(|k|M|G|T|Ki|Mi|Gi|Ti)$")


def _memory_bytes(value):
    """Bytes of a memory quantity (``64Gi``, ``500M``, ``1024``); None when absent or unreadable."""
    match = _MEMORY.match(str(value or "").strip())
    if not match:
        return None
    return float(match.group(1)) * _MEMORY_UNITS[match.group(2)]


def check_pod_hygiene(out: _Findings, pods, headroom: int) -> None:
    """Pods on an NPU node that fight the device plugin or leave no host memory to an NPU job:
    a container that sets ASCEND_VISIBLE_DEVICES itself (T40), an NPU container whose memory
    limit is less than ``headroom`` % above its request (T41; the field guide's advice)."""
    for pod in pods or []:
        meta = pod.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            continue
        owners = [ref.get("kind") for ref in meta.get("ownerReferences") or []]
        where = "pod %s/%s" % (meta.get("namespace"), meta.get("name"))
        for container in (pod.get("spec") or {}).get("containers") or []:
            resources = container.get("resources") or {}
            npus = _npu_resources(resources.get("limits")) or _npu_resources(
                resources.get("requests")
            )
            names = [e.get("name") for e in container.get("env") or []]
            # The device plugin's own DaemonSet pods are the ones that may read it.
            if "ASCEND_VISIBLE_DEVICES" in names and "DaemonSet" not in owners:
                out.add(
                    "T40",
                    "%s container %s sets ASCEND_VISIBLE_DEVICES itself%s"
                    % (
                        where,
                        container.get("name"),
                        ""
                        if npus
                        else " and requests no huawei.com/Ascend* (the scheduler does not know"
                        " it uses NPUs)",
                    ),
                )
            if not npus:
                continue
            limit = _memory_bytes((resources.get("limits") or {}).get("memory"))
            if limit is None:
                continue
            request = _memory_bytes((resources.get("requests") or {}).get("memory"))
            request = limit if request is None else request
            if limit < request * (1 + headroom / 100.0):
                out.add(
                    "T41",
                    "%s container %s asks for %s NPU(s) with a memory limit of %s and a request "
                    "of %s: less than %d %% headroom"
                    % (
                        where,
                        container.get("name"),
                        sum(_quantity(v) for v in npus.values()),
                        (resources.get("limits") or {}).get("memory"),
                        (resources.get("requests") or {}).get("memory")
                        or "(the limit)",
                        headroom,
                    ),
                )


def format_line(finding: dict) -> str:
    """One line for a person: row, severity, symptom, cause, fix."""
    return "[%s] %s: %s | cause: %s | fix: %s" % (
        finding["row"],
        finding["severity"].upper(),
        finding["symptom"],
        finding["cause"],
        finding["fix"],
    )


def _check_iommu(out: _Findings, facts: dict, rules) -> None:
    """T45, T46: the IOMMU kernel parameters and SR-IOV (module_utils/_node/_iommu.py, data/iommu.yml)."""
    if not rules:
        return
    try:
        found = iommu_check(
            facts.get("kernel_cmdline"), facts.get("pci_devices"), rules
        )
    except IommuError as error:
        raise DoctorError(str(error)) from None
    for finding in found:
        out.add(finding["row"], finding["symptom"], finding["severity"])


def check_chip_map(out: _Findings, npu_smi, text) -> None:
    """T47: chips whose NPU id, phy id, logic id or /dev/davinci<N> differ from the chip map
    recorded at the end of the last converge (module_utils/_node/_chip_map.py); nothing without a
    record or without npu-smi."""
    if not npu_smi or text is None:
        return
    try:
        recorded = chip_map_load(text)
        diff = chip_map_compare(recorded, chip_map_current(npu_smi))
    except ChipMapError as error:
        out.add("T47", f"the recorded chip map cannot be read: {error}", "warning")
        return
    if diff["moved"]:
        missing = (
            f"; recorded and not seen now: {_names(diff['missing'])}"
            if diff["missing"]
            else ""
        )
        out.add(
            "T47",
            f"{len(diff['moved'])} chip(s) renumbered since the chip map recorded at the end of "
            f"the last converge: {chip_map_moved_text(diff)}{missing}",
        )


def check_images(out: _Findings, params: dict, facts: dict, images: dict) -> None:
    """T48, T49: every container holding the node's NPUs (the running pods' that ask for
    huawei.com/Ascend* or that the device plugin annotated, else the engine's that map NPUs), its
    image's CANN (and driver) against the node's driver by the version matrix, and its
    environment against what CANN needs (module_utils/_checks/_images.py,
    data/container_images.yml). An image without a version is an info finding."""
    rules = images.get("rules") or {}
    k8s = params.get("kubernetes") or {}
    pods = (
        k8s.get("pods") or [] if k8s.get("enabled") and not k8s.get("error") else None
    )
    node = {
        "driver": (facts.get("driver") or {}).get("version"),
        "firmware": (facts.get("firmware") or {}).get("version"),
    }
    policy = params.get("compat_policy") or "strict"
    for workload in workloads(
        pods, params.get("containers"), rules.get("npu_annotations") or ()
    ):
        verdict = judge(workload, node, images["matrix"], rules, policy)
        image = workload.get("image") or "(no image)"
        if verdict["verdict"] == "unknown":
            out.add(
                "T48",
                "%s: image %s, %s; not compared with the node's driver %s"
                % (
                    workload["where"],
                    image,
                    verdict["message"],
                    node["driver"] or "(none)",
                ),
                severity="info",
                cause="the image carries no version the collection can read",
                fix="tag the image cann<version>-drv<version>-ascend "
                "(cubestudio.ascend.image_tag) or label it %s"
                % (rules.get("labels") or {}).get(
                    "cann", "cubestudio.ascend/cann-version"
                ),
            )
        elif verdict["verdict"] == "mismatch" or (
            verdict["verdict"] == "unchecked" and verdict["severity"] == "warning"
        ):
            out.add(
                "T48",
                "%s: image %s (%s, %s): %s"
                % (
                    workload["where"],
                    image,
                    "CANN %s" % verdict["versions"]["cann"]
                    + (
                        ", driver %s" % verdict["versions"]["driver"]
                        if verdict["versions"]["driver"]
                        else ""
                    ),
                    "read from its %s"
                    % {
                        "label": "label",
                        "field-guide": "tag, the field guide's form",
                        "huawei": "tag, Huawei's form",
                    }.get(verdict["versions"]["source"], "reference"),
                    verdict["message"],
                ),
                severity=verdict["severity"],
                cause="version matrix row HDK %s (data/version_matrix.yml)"
                % (verdict["row"] or "-"),
                fix=verdict["fix"],
            )
        problems = env_problems(workload, verdict["versions"], rules)
        if problems:
            out.add(
                "T49",
                "%s: image %s, %s"
                % (
                    workload["where"],
                    image,
                    "; ".join("%s (%s)" % (p["what"], p["why"]) for p in problems),
                ),
                severity="error"
                if any(p["what"].startswith("LD_LIBRARY_PATH") for p in problems)
                else "warning",
            )


def diagnose(
    table: dict, params: dict, catalogue: dict, iommu_rules=None, images=None
) -> list:
    """The findings for one node (a list of {row, symptom, cause, fix, severity}).

    ``catalogue``: data/catalogue.yml (the chips behind one PCI function, by product);
    ``iommu_rules``: data/iommu.yml (validated), None to leave T45/T46 out; ``images``:
    ``{matrix, rules}`` (data/version_matrix.yml and data/container_images.yml, validated), None
    to leave the image checks T48/T49 out."""
    facts = params.get("ascend")
    if not isinstance(facts, dict) or "pci_npu_count" not in facts:
        raise DoctorError(
            "ascend must be the fact ansible_facts.ascend of cubestudio.ascend.ascend_facts"
        )
    out = _Findings(table, params.get("skip_rows"))
    trusted = _check_driver(out, facts, params, catalogue)
    if trusted:
        _check_chips(
            out, params.get("npu_smi") or {}, params.get("temperature_threshold")
        )
        check_chip_map(out, params.get("npu_smi"), params.get("chip_map_record"))
    _check_compat(out, params.get("compat_findings"))
    _check_devices(
        out, facts, params.get("device_files"), params.get("device_group") or ""
    )
    _check_cann(out, facts, params.get("cann_env_file"))
    _check_iommu(out, facts, iommu_rules)
    _check_runtime(out, facts, params)
    _check_containers(out, params.get("containers"))
    _check_kubernetes(
        out,
        params.get("kubernetes") or {},
        params.get("npu_smi") if trusted else None,
        facts,
    )
    k8s = params.get("kubernetes") or {}
    if k8s.get("enabled") and not k8s.get("error"):
        headroom = params.get("memory_headroom")
        check_pod_hygiene(out, k8s.get("pods"), 30 if headroom is None else headroom)
    if images:
        check_images(out, params, facts, images)
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(out.items, key=lambda f: (order[f["severity"]], int(f["row"][1:])))
