# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The npu_driver role's bookkeeping decisions between its steps (issue 23: Jinja formats, it
does not decide).

- ``options_by_component``: the installer options ascend_install_options decided, by component.
- ``reboot_reason`` / ``reboot_reasons``: why a package needs a reboot, and the run's list.
- ``reboot_required``: the fact npu_driver_reboot_required, before and after the reboot decision.
- ``removals``: what the uninstall entry point removes, firmware first.
"""

from __future__ import annotations

COMPONENTS = ("firmware", "driver")


def options_by_component(results: list) -> dict:
    """``{component: options}`` from the loop results of ascend_install_options (each result
    holds its step as ``__npu_driver_step``); a refused result has no options and is left out
    (the refusal is reported before)."""
    out = {}
    for result in results or []:
        if "options" in result:
            out[result["__npu_driver_step"]["component"]] = result["options"]
    return out


def reboot_reason(step: dict) -> str:
    """Why ``step`` (a driver plan step) needs a reboot, for the marker and the messages."""
    if step["component"] == "firmware":
        return f"firmware {step['version']} flashed ({step['file']}): the NPUs run it after a reboot"
    if step["action"] == "upgrade":
        return (
            f"driver {step['previous']} replaced by {step['version']} ({step['file']}): the installer "
            "could not reload the kernel modules, the old driver runs until a reboot"
        )
    return f"driver {step['version']} installed ({step['file']}): the installer asks for a reboot"


def reboot_reasons(reasons: list, step: dict, outcome, check_mode: bool) -> list:
    """``reasons`` plus the reason of ``step`` when it needs a reboot: its installer said so
    (outcome ``reboot``), or, in check mode where nothing runs, it flashes firmware or replaces
    a driver."""
    predicted = step["component"] == "firmware" or step["action"] == "upgrade"
    if outcome == "reboot" or (check_mode and predicted):
        return list(reasons or []) + [reboot_reason(step)]
    return list(reasons or [])


def reboot_required(
    marker: bool,
    reasons: list,
    after: bool = False,
    check_mode: bool = False,
    reboot: str = "never",
) -> bool:
    """npu_driver_reboot_required.

    Before the reboot decision: a marker of an earlier run, or a reason of this run. After it
    (``after``): the marker is still there, or in check mode (nothing was recorded) a reason of
    this run that npu_driver_reboot=never leaves pending.
    """
    if not after:
        return bool(marker) or len(reasons or []) > 0
    return bool(marker) or (check_mode and reboot == "never" and len(reasons or []) > 0)


def reboot_now(reboot: str, required: bool, steps: list, reasons: list) -> dict:
    """``{now, why}``: whether the role reboots the host after both packages, and why.

    ``npu_driver_reboot``: ``if_needed`` reboots when a reboot is required (a marker of an
    earlier run or a reason of this run), ``always`` also when packages were installed (any
    ``steps``), ``never`` does not. ``why`` names this run's reasons, else the pending reboot,
    else the installed packages.
    """
    required = bool(required)
    if reboot == "if_needed":
        now = required
    elif reboot == "always":
        now = required or len(steps or []) > 0
    else:
        now = False
    if reasons:
        why = "; ".join(str(reason) for reason in reasons)
    elif required:
        why = "a reboot pending since an earlier run"
    else:
        why = "packages were installed"
    return {"now": now, "why": why}


def removals(facts: dict, components: list) -> list:
    """``[{component, version, script}]`` of what the uninstall entry point removes: the
    installed ones of ``components``, firmware first (the reverse of a fresh install; Huawei
    leaves the order free), each with the uninstall script its package left."""
    unknown = [c for c in components if c not in COMPONENTS]
    if unknown:
        raise ValueError(
            "components must be of %s, got %s"
            % (", ".join(COMPONENTS), ", ".join(map(str, unknown)))
        )
    out = []
    for component in COMPONENTS:
        installed = (facts or {}).get(component) or {}
        if component in components and installed.get("version") is not None:
            out.append(
                {
                    "component": component,
                    "version": installed["version"],
                    "script": f"{installed.get('install_path', '')}/script/uninstall.sh",
                }
            )
    return out
