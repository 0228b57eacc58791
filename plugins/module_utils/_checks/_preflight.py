# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The checks of the preflight role, as pure functions.

What roles/preflight/tasks/gather.yml read of a node (``ansible_facts`` with the ``ascend`` fact
of ascend_facts and the ``ascend_host`` fact of ascend_host_facts, the node plan of ascend_plan,
the HwHiAiUser ids of every node of the play) and the role's settings go in; each check returns
one result ``{check, ok, severity, message, cause, fix}``. ``run`` grades them (skipped, warned)
into the list the role publishes as the fact ``preflight_results`` and builds the one refusal
message. The rules are the ones the layer roles refuse by: the space per file system (_space),
the installer's tools and the HwHiAiUser ids (_node_plan), the version matrix (_compat), the
IOMMU and SR-IOV rules (_iommu).
"""

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._evaluation import (
    evaluate as compat_evaluate,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._space import (
    shortfalls,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    preflight_results as iommu_results,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    account_problems,
    missing_tool_lines,
)

GIB = 1 << 30
# Every check, in the order they are reported (the ids of preflight_skip_checks and
# preflight_warn_checks); `packages` only when the packages are verified.
CHECKS = (
    "os",
    "python",
    "npu_devices",
    "disk",
    "tmp",
    "memory",
    "kernel_headers",
    "driver_tools",
    "hwhiaiuser",
    "container_engine",
    "iommu",
    "sriov",
    "versions",
    "packages",
)
# The troubleshooting row (data/troubleshooting.yml) each check's failure is, where there is one.
ROWS = {
    "npu_devices": "T1",
    "packages": "T2",
    "versions": "T3",
    "hwhiaiuser": "T4",
    "driver_tools": "T7",
    "kernel_headers": "T8",
    "disk": "T32",
    "tmp": "T32",
    "python": "T42",
    "iommu": "T45",
    "sriov": "T46",
}
_LABEL = {"info": "ok      ", "warning": "WARNING ", "error": "FAILED  "}
_OS_RULE = re.compile(r"os[.]")
FOOTER = (
    "Every result is in the fact preflight_results. A check your site knows better about can "
    "be reported without stopping the run (preflight_warn_checks) or turned off "
    "(preflight_skip_checks)."
)

ARGUMENT_SPEC = {
    "facts": {"type": "dict", "required": True},
    "plan": {"type": "dict", "required": True},
    "fleet": {"type": "list", "elements": "dict", "required": True},
    "host": {"type": "str", "default": ""},
    "driver_version": {"type": "str", "default": ""},
    "firmware_version": {"type": "str", "default": ""},
    "cann_version": {"type": "str", "default": ""},
    "runtime_version": {"type": "str", "default": ""},
    "compat_policy": {"type": "str", "default": "strict"},
    "install_path": {"type": "str", "default": "/usr/local/Ascend"},
    "tmp_path": {"type": "str", "default": "/tmp"},
    "sysfs_root": {"type": "str", "default": "/sys"},
    "min_python": {"type": "str", "default": "3.8"},
    "min_free_gb": {"type": "raw", "default": 20},
    "min_free_tmp_gb": {"type": "raw", "default": 4},
    "min_memory_gb": {"type": "raw", "default": 8},
    "expected_npu_count": {"type": "int", "default": 0},
    "hwhiaiuser_uid": {"type": "int", "default": 1000},
    "hwhiaiuser_gid": {"type": "int", "default": 1000},
    "container_engine": {"type": "str", "default": "auto"},
    "skip_checks": {"type": "list", "elements": "str", "default": []},
    "warn_checks": {"type": "list", "elements": "str", "default": []},
    "fail_on_error": {"type": "bool", "default": True},
    "verify_packages": {"type": "bool", "default": False},
    "artifact_local_dir": {"type": "str", "default": ""},
    "package_results": {"type": "list", "elements": "dict", "default": []},
    "matrix_file": {"type": "path"},
    "iommu_rules_file": {"type": "path"},
}


class PreflightError(ValueError):
    """Input the checks cannot read; the message names what is wrong."""


def _result(
    check: str, ok: bool, severity: str, message: str, cause="", fix=""
) -> dict:
    return {
        "check": check,
        "ok": bool(ok),
        "severity": "info" if ok else severity,
        "message": message,
        "cause": "" if ok else cause,
        "fix": "" if ok else fix,
    }


def _unique(values) -> list:
    out = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def _number(value, what: str) -> float:
    if isinstance(value, bool):
        raise PreflightError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PreflightError(f"{what} must be a number, got {value!r}") from None


def _version_tuple(text) -> tuple:
    return tuple(int(p) for p in re.findall(r"[0-9]+", str(text))[:3])


# The node's facts, read once.


def _need(mapping: dict, key: str, what: str):
    if not isinstance(mapping, dict) or key not in mapping:
        raise PreflightError(
            f"{what} lacks {key}: run gather.yml (ascend_facts, ascend_host_facts, setup) first"
        )
    return mapping[key]


def node_facts(facts: dict) -> dict:
    """The parts of ``ansible_facts`` the checks read; PreflightError when one is missing."""
    ascend = _need(facts, "ascend", "ansible_facts")
    host = _need(facts, "ascend_host", "ansible_facts")
    for key in (
        "pci_npu_count",
        "npu_family",
        "npu_families",
        "npu_model",
        "pci_devices",
    ):
        _need(ascend, key, "ansible_facts.ascend")
    for key in ("space", "programs", "kernel"):
        _need(host, key, "ansible_facts.ascend_host")
    for key in (
        "distribution",
        "distribution_version",
        "architecture",
        "python_version",
        "memtotal_mb",
    ):
        _need(facts, key, "ansible_facts")
    return {"ascend": ascend, "host": host, "facts": facts}


def versions(plan: dict, ascend: dict, params: dict) -> dict:
    """The versions the checks name: the ones about to be installed, else the installed ones."""
    installed = plan["npu_driver"]["installed"]
    cann = ascend.get("cann") or {}
    runtime = ascend.get("docker_runtime") or {}
    return {
        "driver": params.get("driver_version") or installed.get("driver") or "",
        "driver_installed": installed.get("driver") or "",
        "firmware": params.get("firmware_version") or installed.get("firmware") or "",
        "cann": params.get("cann_version") or cann.get("version") or "",
        "runtime": params.get("runtime_version") or runtime.get("version") or "",
    }


def compat_params(plan: dict, node: dict, wanted: dict, policy: str) -> dict:
    """The options of ascend_compat for the versions of the run on this node: the version.info
    ranges of what stays installed are held against what is about to be installed."""
    ascend = node["ascend"]
    facts = node["facts"]
    driver = ascend.get("driver") or {}
    firmware = ascend.get("firmware") or {}
    steps = plan["npu_driver"]
    return {
        "driver_version": wanted["driver"] or None,
        "firmware_version": wanted["firmware"] or None,
        "cann_version": wanted["cann"] or None,
        "docker_runtime_version": wanted["runtime"] or None,
        "driver_compatible_firmware": driver.get("compatible_firmware") or None
        if not steps["driver_changes"]
        else None,
        "firmware_compatible_driver": firmware.get("compatible_driver") or None
        if not steps["firmware_changes"]
        else None,
        "npu_family": ascend.get("npu_family") or None,
        "npu_product": ascend.get("npu_model") or None,
        "os_id": str(facts["distribution"]),
        "os_version": str(facts["distribution_version"]),
        "arch": str(facts["architecture"]),
        "policy": policy,
        "fail_on_error": False,
    }


# One function per check.


def check_os(node: dict, plan: dict, compat: dict) -> dict:
    facts = node["facts"]
    family = node["ascend"].get("npu_family")
    arch = str(facts["architecture"])
    findings = [
        f
        for f in compat["findings"]
        if _OS_RULE.match(f["rule"]) and f["severity"] in ("error", "warning")
    ]
    errors = [f for f in compat["refused"] if _OS_RULE.match(f["rule"])]
    arch_ok = bool(plan.get("arch"))
    ok = arch_ok and not findings
    causes = (
        []
        if arch_ok
        else [
            "Huawei ships its packages for %s only, this node is %s"
            % (" and ".join(plan.get("archs") or []), arch)
        ]
    )
    fixes = [] if arch_ok else ["use an aarch64 (Kunpeng) or x86_64 server"]
    return _result(
        "os",
        ok,
        "error" if errors or not arch_ok else "warning",
        "%s %s on %s%s"
        % (
            facts["distribution"],
            facts["distribution_version"],
            arch,
            ", Ascend " + family if family else ", no NPU family detected",
        ),
        "; ".join(causes + [f["message"] for f in findings]),
        "; ".join(fixes + _unique(f["fix"] for f in findings)),
    )


def check_python(node: dict, minimum: str) -> dict:
    facts = node["facts"]
    version = str(facts["python_version"])
    executable = (facts.get("python") or {}).get("executable") or "?"
    return _result(
        "python",
        _version_tuple(version) >= _version_tuple(minimum),
        "error",
        f"Python {version} ({executable})",
        f"the Python Ansible runs on this node is {version}, older than {minimum}, "
        "which ansible-core needs for its modules",
        f"install Python {minimum} or newer (python3 of the OS) and point "
        "ansible_python_interpreter at it",
    )


def check_npu_devices(ascend: dict, expected: int, sysfs_root: str) -> dict:
    count = int(ascend["pci_npu_count"] or 0)
    families = "/".join(ascend.get("npu_families") or []) or "unknown family"
    model = ascend.get("npu_model")
    message = f"{count} Ascend PCI function(s), {families}" + (
        f" ({model})" if model else ""
    )
    if expected > 0:
        message += f", {expected} expected"
    ok = count > 0 and (expected == 0 or count == expected)
    if count == 0:
        cause = (
            "no Huawei Ascend NPU (PCI vendor 0x19e5 with an NPU device id) is visible under "
            f"{sysfs_root}/bus/pci/devices, so there is nothing for the driver to drive"
        )
        fix = (
            "check the cards with `lspci -d 19e5:` and the BMC; a virtual machine needs the NPUs "
            "passed through; keep nodes without NPUs out of the ascend_nodes group"
        )
    else:
        cause = (
            f"{count} Ascend PCI functions are on the bus but preflight_expected_npu_count is "
            f"{expected}: a card is missing from the bus (unseated, unpowered or failed) or the "
            "expectation is wrong"
        )
        fix = (
            "compare `lspci -d 19e5:` with the cards the server should have and reseat or replace "
            "the missing one (an A3 NPU shows two functions, one per die); or correct "
            "preflight_expected_npu_count"
        )
    return _result("npu_devices", ok, "error", message, cause, fix)


def space_needs(params: dict, skip) -> list:
    """What the install path and the temporary directory need, for _space.shortfalls."""
    return [
        {"path": path, "what": what, "bytes": int(_number(gb, what) * GIB)}
        for check, path, what, gb in _space_checks(params)
        if check not in skip
    ]


def _space_checks(params: dict) -> list:
    """(check, path, the variable that sets the need, GB needed) of disk and tmp."""
    return [
        (
            "disk",
            params["install_path"],
            "preflight_min_free_gb",
            params["min_free_gb"],
        ),
        (
            "tmp",
            params["tmp_path"],
            "preflight_min_free_tmp_gb",
            params["min_free_tmp_gb"],
        ),
    ]


def _space_of(space: dict, path: str) -> dict:
    info = space.get(path)
    if not isinstance(info, dict):
        raise PreflightError(f"ascend_host_facts read no free space for {path}")
    return info


def check_space(space: dict, params: dict, skip=()) -> list:
    """The results disk (the install path) and tmp (the temporary directory). Paths on one file
    system share its free space: the needs add up per file system (_space.shortfalls, the rule
    npu_driver refuses by), so an install path under /tmp needs the sum of both."""
    try:
        short = shortfalls(space_needs(params, skip), space)
    except (KeyError, TypeError, ValueError) as error:
        raise PreflightError(f"the free space cannot be judged: {error}") from None
    out = []
    for check, path, what, gb in _space_checks(params):
        info = _space_of(space, path)
        free = info.get("free_gb") if info.get("free_gb") is not None else 0
        mine = [s for s in short if path in s["paths"]]
        where = info.get("mount") or info.get("checked_path")
        on = "(%s on %s)" % (info.get("fstype") or "?", info.get("mount") or "?")
        shared = (
            mine[0]["message"] + " (its paths share its free space)" if mine else ""
        )
        alone = bool(mine) and len(mine[0]["paths"]) == 1
        if check == "disk":
            message = f"{free} GB free under {path} {on}, {gb} GB needed"
            if info.get("free_gb") is None:
                cause = f"the free space of {info.get('checked_path')} cannot be read"
            else:
                cause = (
                    f"only {free} GB are free on {where}, which holds {path}, and {gb} GB are "
                    f"needed ({what})"
                    if alone
                    else shared
                ) + (
                    " for the driver, firmware and CANN packages and the versions kept beside "
                    "them: a disk that fills up while the firmware is flashed can leave a card "
                    "unusable"
                )
            fix = (
                f"free space on {where} (old CANN versions under {path}, "
                "/var/cache/ascend/packages, logs) or install elsewhere with ascend_install_path"
            )
        else:
            message = f"{free} GB free in {path} {on}, {gb} GB needed"
            cause = (
                f"only {free} GB are free in {path} and {gb} GB are needed ({what})"
                if alone
                else shared
            ) + (
                ": every .run package unpacks itself there before it installs, and the CANN "
                "toolkit is several GB"
            )
            fix = f"free space in {path} (or enlarge its tmpfs)"
        out.append(_result(check, not mine, "error", message, cause, fix))
    return out


def check_memory(facts: dict, minimum) -> dict:
    gb = round(int(facts["memtotal_mb"]) / 1024, 1)
    return _result(
        "memory",
        gb >= _number(minimum, "min_memory_gb"),
        "error",
        f"{gb} GB of memory, {minimum} GB needed",
        f"the node has {gb} GB of memory, less than the {minimum} GB of preflight_min_memory_gb "
        "(Atlas servers have hundreds): the wrong host, or memory that failed or is not seen",
        "check the host and its memory (dmidecode, the BMC), or lower preflight_min_memory_gb",
    )


def _stays(plan: dict, wanted: dict) -> str:
    if plan["npu_driver"]["driver_changes"]:
        return ""
    return f" (not needed: driver {wanted['driver_installed']} stays)"


def check_kernel_headers(host: dict, plan: dict, wanted: dict) -> dict:
    kernel = host["kernel"]
    release = kernel.get("release")
    headers = bool(kernel.get("headers"))
    dkms = host["programs"].get("dkms") is not None
    return _result(
        "kernel_headers",
        not plan["npu_driver"]["driver_changes"] or headers,
        "error",
        "headers of kernel %s %s, dkms %s%s"
        % (
            release,
            "present" if headers else "missing",
            "installed" if dkms else "not installed",
            _stays(plan, wanted),
        ),
        f"{kernel.get('build_dir')} does not exist, so the NPU driver about to be installed cannot "
        "build its kernel modules (DKMS builds them against the headers of the running kernel "
        f"{release})" + ("" if dkms else "; dkms is not installed either"),
        "install the headers of the running kernel and the build tools (Debian/Ubuntu: "
        f"linux-headers-{release} dkms gcc make; openEuler/EulerOS/Kylin/EL: kernel-devel-{release} "
        f"kernel-headers-{release} dkms gcc make), or boot the kernel whose headers are installed",
    )


def check_driver_tools(host: dict, plan: dict, wanted: dict) -> dict:
    tools = list(plan["npu_driver"]["required_tools"])
    missing = missing_tool_lines(tools, host["programs"])
    message = (
        "missing: " + ", ".join(missing)
        if missing
        else f"the {len(tools)} tools of the driver installer found"
    ) + _stays(plan, wanted)
    return _result(
        "driver_tools",
        not plan["npu_driver"]["driver_changes"] or not missing,
        "error",
        message,
        " and ".join(missing)
        + ' not found on the PATH ("a,b": either): the NPU driver installer '
        'stops with "The list of missing tools: ' + ",".join(missing) + ',"',
        "install them from the OS repositories (pciutils (lspci) and net-tools (ifconfig) on most "
        "distributions)",
    )


def _owner(getent) -> str | None:
    """The name getent found for a key (the first entry with a value), None when it found none."""
    for name, value in (getent or {}).items():
        if value:
            return name
    return None


def node_ids(entry: dict) -> dict:
    """One node's entry of ``fleet`` (``host``, ``user``: ascend_facts' ``hwhiaiuser``,
    ``uid_owners``/``gid_owners``: getent's ``getent_passwd``/``getent_group`` for the wanted
    ids) -> the ids _node_plan.account_problems reads."""
    user = entry.get("user") or {}
    if not isinstance(user, dict):
        raise PreflightError("the HwHiAiUser of %s is not a dict" % entry.get("host"))
    return {
        "user_uid": user.get("uid"),
        "user_gid": user.get("gid"),
        "group_gid": user.get("group_gid"),
        "uid_owner": _owner(entry.get("uid_owners")),
        "gid_owner": _owner(entry.get("gid_owners")),
    }


def check_hwhiaiuser(fleet: list, host: str, uid: int, gid: int) -> dict:
    """HwHiAiUser must have the wanted ids on every node of the play: a node with other ids
    fails, the others are warned that one of the play does."""
    ids = {}
    for entry in fleet:
        if not isinstance(entry, dict) or not entry.get("host"):
            raise PreflightError(
                "each item of fleet must be a dict with the host it was read on"
            )
        ids[str(entry["host"])] = node_ids(entry)
    if host not in ids:
        raise PreflightError(
            f"fleet has no HwHiAiUser ids of {host}, the node being checked"
        )
    try:
        problems = {
            name: account_problems(node, uid, gid) for name, node in ids.items()
        }
    except (TypeError, ValueError) as error:
        raise PreflightError(f"the HwHiAiUser ids are not numbers: {error}") from None
    mine = problems[host]
    others = [(name, p) for name, p in problems.items() if name != host and p]
    mine_ids = ids[host]
    have = (
        "uid %s, gid %s" % (mine_ids["user_uid"], mine_ids["user_gid"])
        if mine_ids["user_uid"] is not None
        else "absent"
    )
    cause = "on this node " + ", ".join(mine) if mine else "this node is right, but"
    if others:
        cause += (
            "; elsewhere in the play: " if mine else " elsewhere in the play: "
        ) + "; ".join("%s: %s" % (name, ", ".join(p)) for name, p in others)
    cause += (
        ". Containers run NPU jobs as HwHiAiUser, so its uid and gid "
        f"(npu_driver_hwhiaiuser_uid/_gid, now {uid}/{gid}) must be the same on every host and "
        "in the images"
    )
    return _result(
        "hwhiaiuser",
        not mine and not others,
        "error" if mine else "warning",
        f"HwHiAiUser {have}, wanted {uid}/{gid} on all {len(ids)} node(s) of the play",
        cause,
        f"give HwHiAiUser uid {uid} and gid {gid} on every node (move the accounts that hold them: "
        "usermod -u/groupmod -g, then chown their files), or choose ids that are free on every "
        "node with npu_driver_hwhiaiuser_uid and npu_driver_hwhiaiuser_gid (preflight reads the "
        "same variables)",
    )


def check_container_engine(programs: dict, engine: str) -> dict:
    found = [name for name in ("docker", "containerd") if programs.get(name)]
    wanted = ["docker", "containerd"] if engine == "auto" else [engine]
    return _result(
        "container_engine",
        any(name in wanted for name in found),
        "error",
        (
            "found: " + ", ".join(found)
            if found
            else "neither docker nor containerd found"
        )
        + f" (wanted: {engine})",
        " or ".join(wanted)
        + " is not installed (not on the PATH), and the Ascend Docker Runtime "
        "is wired into an existing engine"
        + (f" (ascend_container_engine is {engine})" if engine != "auto" else ""),
        "install the container engine your Kubernetes nodes use (containerd, or Docker) first, or "
        "set ascend_container_engine to the one that is installed",
    )


def check_iommu(ascend: dict, rules: dict) -> list:
    """The results iommu and sriov (module_utils/_node/_iommu.py, data/iommu.yml)."""
    try:
        return iommu_results(
            ascend.get("kernel_cmdline"), ascend.get("pci_devices"), rules
        )
    except IommuError as error:
        raise PreflightError(f"the IOMMU and SR-IOV checks: {error}") from None


def check_versions(compat: dict, wanted: dict) -> dict:
    findings = [
        f
        for f in compat["findings"]
        if not _OS_RULE.match(f["rule"]) and f["severity"] in ("error", "warning")
    ]
    errors = [f for f in compat["refused"] if not _OS_RULE.match(f["rule"])]
    named = [
        "%s %s" % (label, wanted[key])
        for key, label in (
            ("driver", "driver"),
            ("firmware", "firmware"),
            ("cann", "CANN"),
            ("runtime", "Ascend Docker Runtime"),
        )
        if wanted[key]
    ]
    return _result(
        "versions",
        not findings,
        "error" if errors else "warning",
        "%s (policy %s)"
        % (", ".join(named) or "no version to check", compat["policy"]),
        "; ".join(f["message"] for f in findings),
        "; ".join(_unique(f["fix"] for f in findings)),
    )


def check_packages(plan: dict, package_results: list, local_dir: str) -> dict:
    """The packages the plan installs, as ascend_package_verify judged them on the controller
    (a verified one has its size measured)."""
    files = list(plan.get("packages") or [])
    results = [r for r in package_results if r.get("item") in files]
    bad = [r for r in results if "size" not in r]
    return _result(
        "packages",
        not bad,
        "error",
        "%d package(s) to install: %s%s"
        % (
            len(files),
            ", ".join(files) or "none",
            "" if bad else ", all verified on the controller",
        ),
        " ".join("%s: %s." % (r["item"], r.get("cause", r.get("msg"))) for r in bad),
        (
            "; ".join(_unique(r["fix"] for r in bad if r.get("fix")))
            or f"put each package with its sha256 (ascend_artifact_checksums) in {local_dir}"
        )
        + " (docs/artifacts.md)",
    )


# The whole preflight of one node.


def _clean(text) -> str:
    return " ".join(str(text).split())


def grade(raw: list, skip, warn) -> list:
    """The results as the role publishes them: texts on one line, a skipped check ok with what
    it saw, a failed check of ``warn`` a warning."""
    out = []
    for result in raw:
        r = dict(result, skipped=False)
        for key in ("message", "cause", "fix"):
            r[key] = _clean(r[key])
        if r["check"] in skip:
            r.update(
                ok=True,
                severity="info",
                skipped=True,
                cause="",
                fix="",
                message="skipped (preflight_skip_checks); seen: " + r["message"],
            )
        elif not r["ok"] and r["check"] in warn:
            r["severity"] = "warning"
        out.append(r)
    return out


def findings(results: list) -> list:
    """The failed results in the doctor's shape {row, check, symptom, cause, fix, severity};
    ``row`` is the troubleshooting row of the check, empty where the table has none."""
    return [
        {
            "row": ROWS.get(r["check"], ""),
            "check": r["check"],
            "symptom": r["message"],
            "cause": r["cause"],
            "fix": r["fix"],
            "severity": r["severity"],
        }
        for r in results
        if not r["ok"]
    ]


def lines(results: list) -> list:
    """What the role shows: one line per check, cause and fix under a failed one."""
    out = []
    for r in results:
        label = "skipped " if r["skipped"] else _LABEL[r["severity"]]
        out.append(f"{label}{r['check']}: {r['message']}")
        if not r["ok"]:
            out += [f"          cause: {r['cause']}", f"          fix: {r['fix']}"]
    return out


def refusal(host: str, results: list) -> str:
    """The one message that refuses the node, listing every failed check (and the warnings);
    empty when no check failed with an error."""
    failed = [r for r in results if not r["ok"] and r["severity"] == "error"]
    warned = [r for r in results if not r["ok"] and r["severity"] == "warning"]
    if not failed:
        return ""
    text = [
        f"Preflight refused {host}: {len(failed)} of {len(results)} checks failed. "
        "Nothing was changed on the node."
    ]
    text += [f"- {r['check']}: {r['cause']}. Fix: {r['fix']}." for r in failed]
    if warned:
        text.append("Warnings (they do not stop the run):")
        text += [f"- {r['check']}: {r['cause']}. Fix: {r['fix']}." for r in warned]
    text.append(FOOTER)
    return "\n".join(text)


def run(params: dict, matrix: dict, iommu_rules: dict) -> dict:
    """Every check of one node, graded. ``params``: the options of ARGUMENT_SPEC;
    ``matrix``: data/version_matrix.yml (validated); ``iommu_rules``: data/iommu.yml (validated).

    Returns ``{results, findings, lines, msg, failed, versions, compat}``: ``results`` is the
    fact preflight_results, ``msg`` the refusal (empty when nothing refuses the node),
    ``failed`` whether the role fails the node (``fail_on_error`` and an error)."""
    node = node_facts(params["facts"])
    plan = params["plan"]
    for key in ("npu_driver", "arch"):
        _need(plan, key, "plan")
    for key in ("installed", "driver_changes", "firmware_changes", "required_tools"):
        _need(plan["npu_driver"], key, "plan.npu_driver")
    skip = list(params.get("skip_checks") or [])
    warn = list(params.get("warn_checks") or [])
    unknown = sorted(set(skip + warn) - set(CHECKS))
    if unknown:
        raise PreflightError(
            "preflight_skip_checks and preflight_warn_checks name checks that do not exist: %s "
            "(the checks: %s)" % (", ".join(unknown), ", ".join(CHECKS))
        )
    wanted = versions(plan, node["ascend"], params)
    policy = params.get("compat_policy") or "strict"
    try:
        compat = compat_evaluate(matrix, compat_params(plan, node, wanted, policy))
    except ValueError as error:
        raise PreflightError(
            f"the version matrix cannot judge the versions: {error}"
        ) from None
    host = params.get("host") or ""
    raw = [
        check_os(node, plan, compat),
        check_python(node, params.get("min_python") or "3.8"),
        check_npu_devices(
            node["ascend"],
            int(params.get("expected_npu_count") or 0),
            params["sysfs_root"],
        ),
        *check_space(node["host"]["space"], params, skip),
        check_memory(node["facts"], params["min_memory_gb"]),
        check_kernel_headers(node["host"], plan, wanted),
        check_driver_tools(node["host"], plan, wanted),
        check_hwhiaiuser(
            params["fleet"],
            host,
            int(params["hwhiaiuser_uid"]),
            int(params["hwhiaiuser_gid"]),
        ),
        check_container_engine(
            node["host"]["programs"], params.get("container_engine") or "auto"
        ),
        *check_iommu(node["ascend"], iommu_rules),
        check_versions(compat, wanted),
    ]
    if params.get("verify_packages") and params.get("artifact_local_dir"):
        raw.append(
            check_packages(
                plan, params.get("package_results") or [], params["artifact_local_dir"]
            )
        )
    results = grade(raw, skip, warn)
    message = refusal(host, results)
    return {
        "results": results,
        "findings": findings(results),
        "lines": lines(results),
        "msg": message,
        "failed": bool(message) and bool(params.get("fail_on_error", True)),
        "versions": wanted,
        "compat": compat,
    }
