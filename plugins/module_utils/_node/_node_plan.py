# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PRIVATE to the cubestudio.ascend collection: the node layer's decisions, made once.

``plan(catalogue, params)`` takes a node's ``ascend_facts`` and the wanted versions and returns
what the driver/firmware layer will do (which packages, in Huawei's order, with which action),
the package names and architecture of the other layers, and the installer's required tools.
preflight and the layer roles call it through the ``cubestudio.ascend.ascend_plan`` action, so
they cannot disagree. The Huawei facts it reads are ``data/catalogue.yml``.
"""

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._layer_state import (
    LayerStateError,
    check_name,
    converged,
)

ARGUMENT_SPEC = {
    "facts": {"type": "dict", "required": True},
    "architecture": {"type": "str", "required": True},
    "driver_version": {"type": "str", "default": ""},
    "firmware_version": {"type": "str", "default": ""},
    "manage_firmware": {"type": "bool", "default": True},
    "chip": {"type": "str", "default": ""},
    "arch": {"type": "str", "default": ""},
    "driver_file": {"type": "str", "default": ""},
    "firmware_file": {"type": "str", "default": ""},
    "runtime_version": {"type": "str", "default": ""},
    "cann_version": {"type": "str", "default": ""},
    "cann_packages": {"type": "list", "elements": "str", "default": ["toolkit"]},
    "cann_files": {"type": "dict", "default": {}},
    "cann_arch": {"type": "str", "default": ""},
    "cann_keep_old_versions": {"type": "bool", "default": True},
    "runtime_file": {"type": "str", "default": ""},
    "runtime_engine": {"type": "str", "default": ""},
    "runtime_state": {
        "type": "str",
        "default": "present",
        "choices": ["present", "absent"],
    },
    "inputs": {"type": "dict", "default": {}},
    "checksums": {"type": "dict", "default": {}},
    "local_dir": {"type": "str", "default": ""},
    "layer": {"type": "str", "default": ""},
    "fingerprint": {"type": "str", "default": ""},
    "catalogue_file": {"type": "path"},
}


class PlanError(Exception):
    """Bad input or a broken catalogue: the message says which and how to fix it."""


# The plan options that name and shape the packages, each with the public role variable that
# sets it and the default of that variable (its role's defaults/main.yml; a unit test holds them
# equal). Every caller of the plan - preflight in its own play, each layer role - passes them as
# one dict, built by plan_inputs (the lookup cubestudio.ascend.plan_inputs), so preflight checks
# the very files the roles install.
INPUT_VARIABLES = (
    ("manage_firmware", "npu_driver_manage_firmware", True),
    ("chip", "npu_driver_chip", ""),
    ("arch", "npu_driver_arch", ""),
    ("driver_file", "npu_driver_file", ""),
    ("firmware_file", "npu_driver_firmware_file", ""),
    ("cann_packages", "cann_toolkit_packages", ["toolkit"]),
    ("cann_files", "cann_toolkit_files", {}),
    ("cann_arch", "cann_toolkit_arch", ""),
    ("cann_keep_old_versions", "cann_toolkit_keep_old_versions", True),
    ("runtime_file", "ascend_runtime_package_file", ""),
)

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def _input_value(option: str, variable: str, default, value):
    """``value`` in the shape of ``default``; PlanError naming the variable otherwise."""
    if value is None:
        return default
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if str(value).strip().lower() in _TRUE + _FALSE:
            return str(value).strip().lower() in _TRUE
    elif isinstance(default, list):
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
    elif isinstance(default, dict):
        if isinstance(value, dict):
            return {str(k): str(v) for k, v in value.items()}
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise PlanError(
        "%s (the plan's %s) must be %s, not %r"
        % (variable, option, type(default).__name__, value)
    )


def plan_inputs(value_of) -> dict:
    """The plan's package inputs from the public role variables.

    ``value_of(name)`` returns a variable's value, or None when it is not set (a role that is
    not in the play: its default holds, as in that role)."""
    return {
        option: _input_value(option, variable, default, value_of(variable))
        for option, variable, default in INPUT_VARIABLES
    }


def _with_inputs(params: dict) -> dict:
    """``params`` with the options of ``inputs`` (a dict of plan_inputs) in place."""
    inputs = params.get("inputs") or {}
    known = {
        option: (variable, default) for option, variable, default in INPUT_VARIABLES
    }
    unknown = sorted(set(inputs) - set(known))
    if unknown:
        raise PlanError(
            "inputs has no option %s (known: %s): pass lookup('cubestudio.ascend.plan_inputs')"
            % (", ".join(unknown), ", ".join(known))
        )
    merged = dict(params)
    for option, value in inputs.items():
        merged[option] = _input_value(option, known[option][0], known[option][1], value)
    return merged


def expected_davinci_count(catalogue: dict, facts: dict) -> int:
    """The /dev/davinci nodes the NPUs on the PCI bus give: one per chip, that is the PCI
    functions times the chips behind one function (2 on an Atlas 300I Duo, data/catalogue.yml).
    npu_driver's verify and the doctor count against this one number."""
    per_function = catalogue["chips_per_pci_function"].get(
        facts.get("npu_model") or "", 1
    )
    return int(facts.get("pci_npu_count") or 0) * int(per_function)


def validate_catalogue(data) -> dict:
    """The catalogue as read from YAML, checked for what the plan uses."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise PlanError("the catalogue must be a mapping with schema: 1")
    for key, kind in (
        ("architectures", dict),
        ("families", dict),
        ("chips_per_pci_function", dict),
        ("packages", dict),
        ("installer_tools", dict),
    ):
        if not isinstance(data.get(key), kind):
            raise PlanError("the catalogue has no %s mapping %r" % (kind.__name__, key))
    for name, family in data["families"].items():
        if not isinstance(family, dict) or not isinstance(family.get("chip"), str):
            raise PlanError("catalogue families.%s needs a quoted chip" % name)
    for component in ("driver", "firmware", "docker_runtime", "cann"):
        entry = data["packages"].get(component)
        if not isinstance(entry, dict) or not isinstance(entry.get("pattern"), str):
            raise PlanError("catalogue packages.%s needs a pattern" % component)
    cann = data.get("cann")
    if not isinstance(cann, dict) or not isinstance(cann.get("kinds"), list):
        raise PlanError("catalogue cann needs a list of kinds")
    layout_from = cann.get("new_layout_from")
    if not isinstance(layout_from, str) or not re.match(
        r"^[0-9]+[.][0-9]+$", layout_from
    ):
        raise PlanError("catalogue cann.new_layout_from must be a quoted 'X.Y'")
    for installer, tools in data["installer_tools"].items():
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise PlanError(
                "catalogue installer_tools.%s must be a list of names" % installer
            )
    return data


def package_arch(catalogue: dict, machine: str, override: str = "") -> str:
    """The architecture in Huawei's package names for a machine; '' when Huawei has none."""
    if override:
        return override
    return catalogue["architectures"].get(machine or "", "")


def package_name(
    catalogue: dict, component: str, version: str, chip: str = "", arch: str = ""
) -> str:
    entry = catalogue["packages"][component]
    pattern = (entry.get("by_chip") or {}).get(chip, entry["pattern"])
    return pattern.format(chip=chip, version=version, arch=arch)


def missing_tool_lines(lines: list, programs: dict) -> list:
    """The tool lines (``a,b``: either) none of whose programs ``programs`` (name -> path or a
    false value, as ascend_host_facts reports them) has."""
    return [
        line
        for line in lines
        if not any(programs.get(tool) for tool in line.split(","))
    ]


def probed_tools(catalogue: dict, installer: str) -> list:
    """Every program name an installer's tool lines mention, for ascend_host_facts."""
    names = []
    for line in catalogue["installer_tools"].get(installer, []):
        names.extend(tool for tool in line.split(",") if tool not in names)
    return names


RUN_USER = "HwHiAiUser"


def account_problems(ids: dict, uid: int, gid: int) -> list:
    """What is wrong with the driver's run user on one node, for the wanted ``uid``/``gid``.

    ``ids``: ``user_uid``/``user_gid`` (HwHiAiUser's ids, None when it does not exist),
    ``group_gid`` (the group HwHiAiUser's id, None when absent), ``uid_owner``/``gid_owner``
    (the user and group that hold the wanted ids, None when free). preflight (for every node of
    the play) and npu_driver (before it creates the user) ask this one rule."""
    uid, gid = int(uid), int(gid)
    problems = []
    if ids.get("user_uid") is not None and int(ids["user_uid"]) != uid:
        problems.append("%s has uid %s (%d wanted)" % (RUN_USER, ids["user_uid"], uid))
    if ids.get("user_gid") is not None and int(ids["user_gid"]) != gid:
        problems.append(
            "its primary group is gid %s (%d wanted)" % (ids["user_gid"], gid)
        )
    if ids.get("group_gid") is not None and int(ids["group_gid"]) != gid:
        problems.append(
            "group %s has gid %s (%d wanted)" % (RUN_USER, ids["group_gid"], gid)
        )
    if ids.get("uid_owner") not in (None, "", RUN_USER):
        problems.append(
            "uid %d, wanted for %s, belongs to user %s"
            % (uid, RUN_USER, ids["uid_owner"])
        )
    if ids.get("gid_owner") not in (None, "", RUN_USER):
        problems.append(
            "gid %d, wanted for group %s, belongs to group %s"
            % (gid, RUN_USER, ids["gid_owner"])
        )
    return problems


def _version(part) -> str | None:
    return (part or {}).get("version") or None


def _step(component, version, previous, file_name, params) -> dict:
    local_dir = params.get("local_dir") or ""
    return {
        "component": component,
        "version": version,
        "previous": previous,
        "action": "full" if previous is None else "upgrade",
        "file": file_name,
        "sha256": str((params.get("checksums") or {}).get(file_name, "")).lower(),
        "source": (local_dir.rstrip("/") + "/" + file_name) if local_dir else "",
    }


def _driver(catalogue: dict, facts: dict, params: dict) -> dict:
    family = facts.get("npu_family") or ""
    chip = params.get("chip") or (catalogue["families"].get(family) or {}).get(
        "chip", ""
    )
    arch = package_arch(catalogue, params["architecture"], params.get("arch") or "")
    driver = facts.get("driver")
    firmware = facts.get("firmware")
    installed_driver = _version(driver)
    installed_firmware = _version(firmware)
    wanted_driver = params.get("driver_version") or ""
    wanted_firmware = (
        (params.get("firmware_version") or "")
        if params.get("manage_firmware", True)
        else ""
    )
    driver_differs = bool(wanted_driver) and (
        installed_driver is None or installed_driver.lower() != wanted_driver.lower()
    )
    firmware_differs = bool(wanted_firmware) and (
        installed_firmware is None
        or installed_firmware.lower() != wanted_firmware.lower()
    )
    steps_driver, steps_firmware = [], []
    if driver_differs:
        name = params.get("driver_file") or package_name(
            catalogue, "driver", wanted_driver, chip, arch
        )
        steps_driver.append(
            _step("driver", wanted_driver, installed_driver, name, params)
        )
    if firmware_differs:
        name = params.get("firmware_file") or package_name(
            catalogue, "firmware", wanted_firmware, chip, arch
        )
        steps_firmware.append(
            _step("firmware", wanted_firmware, installed_firmware, name, params)
        )
    fresh = installed_driver is None
    # Huawei's order: on a host without a driver, driver then firmware; over an installed
    # driver, firmware then driver.
    steps = steps_driver + steps_firmware if fresh else steps_firmware + steps_driver
    return {
        "chip": chip,
        "arch": arch,
        "known_families": sorted(catalogue["families"]),
        "fresh": fresh,
        "installed": {"driver": installed_driver, "firmware": installed_firmware},
        "partial": driver is not None
        and installed_driver is not None
        and not driver.get("complete", True),
        # What preflight checks against: the driver changes when it differs or is half installed.
        "driver_changes": driver_differs
        or (
            bool(wanted_driver)
            and driver is not None
            and not driver.get("complete", True)
        ),
        "firmware_changes": firmware_differs,
        "steps": steps,
        "expected_devices": expected_davinci_count(catalogue, facts),
        "required_tools": list(catalogue["installer_tools"].get("driver", [])),
        "probed_tools": probed_tools(catalogue, "driver"),
    }


def runtime_action(
    installed, version: str, engine: str = "", state: str = "present"
) -> str:
    """What the runtime package must do: install, upgrade, reinstall, uninstall or none.

    ``installed``: ascend_facts' ``docker_runtime`` (None when absent). A runtime whose binary is
    missing, or that was installed for another engine (install scene), is reinstalled; versions
    compare case-insensitively. ``engine`` '' (preflight and upgrade.yml, before the engine is
    decided on the node) leaves the install scene out. The ascend_runtime role acts on this
    answer and upgrade.yml reads it (the plan's ``changing``), so they cannot disagree."""
    if state == "absent":
        return "none" if installed is None else "uninstall"
    if installed is None:
        return "install"
    if not installed.get("binary_present", True):
        return "reinstall"
    current = str(installed.get("version") or "")
    if version and current.lower() != version.lower():
        return "upgrade"
    scene = installed.get("install_scene")
    if engine and scene and scene != engine:
        return "reinstall"
    return "none"


def _runtime(catalogue: dict, facts: dict, params: dict) -> dict:
    arch = package_arch(catalogue, params["architecture"], params.get("arch") or "")
    version = params.get("runtime_version") or ""
    runtime = facts.get("docker_runtime")
    installed = _version(runtime)
    state = params.get("runtime_state") or "present"
    action = (
        runtime_action(runtime, version, params.get("runtime_engine") or "", state)
        if version or state == "absent"
        else "none"
    )
    return {
        "arch": arch or params["architecture"],
        "file": params.get("runtime_file")
        or (
            package_name(
                catalogue,
                "docker_runtime",
                version,
                arch=arch or params["architecture"],
            )
            if version
            else ""
        ),
        "installed": installed,
        "action": action,
        "changes": action != "none",
    }


def cann_line(version: str) -> int:
    """X.Y of a CANN version as X * 1000 + Y (8.5.RC1 -> 8005); -1 when it has no X.Y."""
    match = re.match(r"^([0-9]+)(?:[.]([0-9]*))?", str(version))
    if not match:
        return -1
    return int(match.group(1)) * 1000 + int(match.group(2) or 0)


def _cann(catalogue: dict, facts: dict, params: dict) -> dict:
    machine = params["architecture"]
    arch = params.get("cann_arch") or package_arch(catalogue, machine)
    version = params.get("cann_version") or ""
    kinds = list(catalogue["cann"]["kinds"])
    wanted_kinds = [
        kind for kind in kinds if kind in (params.get("cann_packages") or [])
    ]
    major, minor = catalogue["cann"]["new_layout_from"].split(".")
    new_layout = bool(version) and cann_line(version) >= int(major) * 1000 + int(minor)
    result = {
        "arch": arch,
        "arch_known": arch in catalogue["architectures"].values(),
        "kinds": wanted_kinds,
        "new_layout": new_layout,
        "steps": [],
    }
    if not version:
        return result
    pattern = catalogue["packages"]["cann"]["pattern"]
    files = {
        kind: pattern.format(kind=kind, version=version, arch=arch) for kind in kinds
    }
    files.update(params.get("cann_files") or {})
    installed = (facts.get("cann") or {}).get("packages") or []
    wanted = version.lower()
    keep_old = params.get("cann_keep_old_versions", True)

    def step(kind, same, whitelist=""):
        return {
            "kind": kind,
            "file": files["toolkit" if whitelist else kind],
            "action": "upgrade" if (same and not keep_old) else "install",
            "whitelist": whitelist,
            "log": "ascend_%s_install.log"
            % ("toolkit" if whitelist or new_layout else kind),
        }

    if new_layout:
        same = [p for p in installed if p.get("layout") == "cann"]
        if not any(str(p.get("version") or "").lower() == wanted for p in same):
            subset = "toolkit" not in wanted_kinds
            result["steps"].append(
                step("nnrt", same, "nnrt") if subset else step("toolkit", same)
            )
    else:
        for kind in wanted_kinds:
            same = [
                p
                for p in installed
                if p.get("layout") == "classic" and p.get("kind") == kind
            ]
            if not any(str(p.get("version") or "").lower() == wanted for p in same):
                result["steps"].append(step(kind, same))
    return result


def plan(catalogue: dict, params: dict) -> dict:
    """The node's plan: ``{archs, arch, npu_driver, cann_toolkit, ascend_runtime}``."""
    params = _with_inputs(params)
    facts = params.get("facts")
    if not isinstance(facts, dict) or "pci_npu_count" not in facts:
        raise PlanError(
            "facts must be ansible_facts['ascend'] of cubestudio.ascend.ascend_facts "
            "(no pci_npu_count in what was given)"
        )
    if not params.get("architecture"):
        raise PlanError(
            "architecture is empty: gather the facts (ansible_facts['architecture']) first"
        )
    archs = sorted(set(catalogue["architectures"].values()))
    layer = None
    if params.get("layer"):
        try:
            name = check_name(params["layer"])
        except LayerStateError as error:
            raise PlanError(str(error)) from None
        if not params.get("fingerprint"):
            raise PlanError(
                "layer %s needs its fingerprint (lookup cubestudio.ascend.layer_fingerprint)"
                % name
            )
        done, reasons = converged(
            facts.get("layers") or {}, name, params["fingerprint"], facts
        )
        layer = {"name": name, "converged": done, "reasons": reasons}
    driver = _driver(catalogue, facts, params)
    cann = _cann(catalogue, facts, params)
    runtime = _runtime(catalogue, facts, params)
    packages = [step["file"] for step in driver["steps"] + cann["steps"]]
    if runtime["action"] in ("install", "upgrade", "reinstall") and runtime["file"]:
        packages.append(runtime["file"])
    return {
        "layer": layer,
        "archs": archs,
        "arch": package_arch(
            catalogue, params["architecture"], params.get("arch") or ""
        ),
        "npu_driver": driver,
        "cann_toolkit": cann,
        "ascend_runtime": runtime,
        # What a rolling upgrade reads: the layers that change, and every package they install.
        "changing": [
            name
            for name, changes in (
                # Steps, or a half-installed driver to be refused (no step then).
                ("npu_driver", driver["driver_changes"] or driver["firmware_changes"]),
                ("cann_toolkit", bool(cann["steps"])),
                ("ascend_runtime", runtime["changes"]),
            )
            if changes
        ],
        "packages": packages,
    }
