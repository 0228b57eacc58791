# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The one rule that says whether the NPUs of a node are in use, so that nothing below
# the workloads (driver, firmware, CANN, the runtime) is changed or removed under them. It is
# the check Huawei's deployer makes before it touches the driver: a process in npu-smi's
# process table, a running container that uses the Ascend devices, or a container engine that
# cannot be asked (then nothing can be said). Used by the npu_driver role (install, upgrade,
# uninstall) through the cubestudio.ascend.npu_in_use filter.
#
# Entry point:
#   npu_use(processes, containers_fact) -> {"in_use": bool, "summary": str, "processes": [...],
#                                           "containers": [...], "errors": [...]}
#   NpuUseError                        input that is not what npu_smi_facts / npu_container_facts give

from __future__ import annotations

__all__ = ["NpuUseError", "npu_use"]


class NpuUseError(ValueError):
    """The facts given are not those of npu_smi_facts / npu_container_facts."""


def _process(p):
    return "pid %s %son NPU %s chip %s" % (
        p.get("pid"),
        (p.get("name") + " ") if p.get("name") else "",
        p.get("npu"),
        p.get("chip"),
    )


def _container(c):
    text = "%s %s%s:" % (
        c.get("engine"),
        (c["pod"] + " ") if c.get("pod") else "",
        c.get("name"),
    )
    if c.get("devices"):
        text += " " + " ".join(c["devices"])
    if c.get("all_devices"):
        text += " all devices"
    if c.get("visible_devices"):
        text += " ASCEND_VISIBLE_DEVICES=%s" % c["visible_devices"]
    return text


def npu_use(processes, containers_fact):
    """Whether the NPUs are in use, and a sentence that says by what.

    ``processes`` is the ``processes`` list of the ascend_npu_smi fact (None or [] when npu-smi
    is not installed), ``containers_fact`` the ascend_npu_containers fact of
    npu_container_facts (with ``fail_on_error: false``, so that its ``errors`` count).
    """
    processes = list(processes or [])
    if not isinstance(containers_fact, dict):
        raise NpuUseError(
            "expected the ascend_npu_containers fact of npu_container_facts (a dict), got %s"
            % type(containers_fact).__name__
        )
    containers = list(containers_fact.get("containers") or [])
    errors = list(containers_fact.get("errors") or [])
    for item in processes + containers:
        if not isinstance(item, dict):
            raise NpuUseError(
                "expected dicts of npu_smi_facts processes and npu_container_facts "
                "containers, got %s" % type(item).__name__
            )
    parts = []
    if processes:
        parts.append(
            "%d process(es) run on the NPUs (%s)"
            % (len(processes), ", ".join(_process(p) for p in processes))
        )
    if containers:
        parts.append(
            "%d running container(s) use the NPU devices (%s)"
            % (len(containers), ", ".join(_container(c) for c in containers))
        )
    if errors:
        parts.append("the container engines cannot be asked (%s)" % "; ".join(errors))
    return {
        "in_use": bool(parts),
        "summary": "; ".join(parts),
        "processes": processes,
        "containers": containers,
        "errors": errors,
    }
