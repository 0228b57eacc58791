# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The logic of cubestudio.ascend.ascend_compat: pure functions from (matrix, versions)
# to findings. The matrix is data (data/version_matrix.yml, or a site file of the same shape;
# _matrix.py validates and reads it); which findings refuse an install is _refusals.py's.
#
# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The logic of cubestudio.ascend.ascend_compat: pure functions from (matrix, versions)
# to findings. The matrix is data (data/version_matrix.yml, or a site file of the same shape).
#
# Rule ids (stable; roles and reports match on them):
#   input.version                a given version is not a version (error)
#   driver.accepts-firmware      firmware outside the driver's compatible_version_fw (error)
#   firmware.accepts-driver      driver outside the firmware's compatible_version_drv (error)
#   driver.firmware.matrix       firmware not among the builds seen with the HDK release
#                                (warning strict / info tolerant; only without version.info ranges)
#   driver.known                 driver release not in the matrix (warning)
#   cann.matched                 CANN is not the matched set of the driver (error strict / warning tolerant)
#   cann.known                   CANN release not in the matrix (warning)
#   mindcluster.matched          MindCluster is not the matched set of the driver (error strict /
#                                warning tolerant when no tolerance table covers it)
#   mindcluster.tolerance.hdk    MindCluster release documented for other HDK lines (error, tolerant)
#   mindcluster.tolerance.cann   MindCluster release documented for other CANN lines (error, tolerant)
#   docker_runtime.mindcluster   docker runtime and device plugin (MindCluster) versions differ (error)
#   docker_runtime.minimum       docker runtime older than the documented minimum (error)
#   containerd.config-v3         containerd 2.x with a docker runtime that cannot edit its config (warning)
#   stack.docker, stack.containerd, stack.kubernetes
#                                engine/Kubernetes outside what MindCluster documents (warning)
#   os.supported                 OS not supported for the NPU family (error strict / warning tolerant)
#   os.no-data                   no OS list for the NPU family (info)
#   family.unknown               npu_family is not one the matrix knows (warning)
#   lifecycle.driver, lifecycle.firmware
#                                below the minimum for the product on this OS (error when the
#                                product is known, warning when only the family is)
#   matrix.guess                 the matched set used is flagged as a guess in the matrix (info)

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    FAMILIES,
    find_release,
    matched_set,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._refusals import (
    refusals,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    compare,
    in_ranges,
    release_line,
    same_release,
    sort_key,
)

__all__ = [
    "ARGUMENT_SPEC",
    "POLICIES",
    "evaluate",
]

POLICIES = ("strict", "tolerant")
VERSION_OPTIONS = (
    ("driver_version", "driver"),
    ("firmware_version", "firmware"),
    ("cann_version", "cann"),
    ("mindcluster_version", "mindcluster"),
    ("docker_runtime_version", "docker_runtime"),
    ("docker_version", "docker"),
    ("containerd_version", "containerd"),
    ("kubernetes_version", "kubernetes"),
)

ARGUMENT_SPEC = {
    "driver_version": {"type": "str"},
    "firmware_version": {"type": "str"},
    "cann_version": {"type": "str"},
    "mindcluster_version": {"type": "str"},
    "docker_runtime_version": {"type": "str"},
    "npu_family": {"type": "str"},
    "npu_product": {"type": "str"},
    "os_id": {"type": "str"},
    "os_version": {"type": "str"},
    "arch": {"type": "str"},
    "driver_compatible_firmware": {"type": "raw"},
    "firmware_compatible_driver": {"type": "raw"},
    "docker_version": {"type": "str"},
    "containerd_version": {"type": "str"},
    "kubernetes_version": {"type": "str"},
    "policy": {"type": "str", "default": "strict", "choices": list(POLICIES)},
    "fail_on_error": {"type": "bool", "default": True},
    "matrix_file": {"type": "path"},
}


def _finding(rule: str, severity: str, component: str, message: str, fix: str) -> dict:
    return {
        "rule": rule,
        "severity": severity,
        "component": component,
        "message": message,
        "fix": fix,
    }


def _clean(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


def _norm_os(text: str | None) -> str | None:
    if text is None:
        return None
    value = re.sub(r"\blts\b", "", text.strip().lower())
    value = re.sub(r"[\s_]+", "-", value.strip())
    return re.sub(r"-+", "-", value).strip("-")


# Distribution names (as Ansible reports them) whose Huawei OS id differs.
_OS_ALIASES = {
    "bigcloud-enterprise-linux": "bclinux",
    "uniontech-os-server": "uos",
    "uniontech": "uos",
    "ctyun": "ctyunos",
}


def _same_os(os_id: str, entry_id: str) -> bool:
    """``Kylin Linux Advanced Server`` is ``kylin``, ``openEuler`` is ``openeuler`` ..."""
    given, listed = _norm_os(os_id), _norm_os(entry_id)
    given = _OS_ALIASES.get(given, given)
    return given == listed or given.startswith(listed + "-")


def _os_matches(
    os_id: str, os_version: str | None, entry_id: str, versions: list
) -> bool:
    if not _same_os(os_id, entry_id):
        return False
    if os_version is None:
        return True
    wanted = _norm_os(os_version)
    for version in versions:
        listed = _norm_os(version)
        if wanted == listed or wanted.startswith(listed + "."):
            return True
    return False


def _arch_matches(arch: str | None, entry_arch: str | None) -> bool:
    if not entry_arch or not arch:
        return True
    aliases = {"arm64": "aarch64", "amd64": "x86_64", "x86-64": "x86_64"}
    return aliases.get(arch.lower(), arch.lower()) == entry_arch.lower()


def _in_line(version: str, lines: list) -> bool:
    return release_line(version) in {line.strip().lower() for line in lines}


class _Evaluation:
    def __init__(self, matrix: dict, params: dict) -> None:
        self.matrix = matrix
        self.params = {key: _clean(value) for key, value in params.items()}
        self.policy = self.params.get("policy") or "strict"
        self.strict = self.policy == "strict"
        self.findings: list = []
        self.versions: dict = {}

    def add(self, *args) -> None:
        self.findings.append(_finding(*args))

    def read_versions(self) -> None:
        for option, component in VERSION_OPTIONS:
            value = self.params.get(option)
            if value is None:
                continue
            value = str(value)
            try:
                sort_key(value)
            except VersionError:
                self.add(
                    "input.version",
                    "error",
                    component,
                    f"{option}={value!r} is not a version",
                    f"pass the version as the {component} reports it (for example 24.1.rc3 or 8.0.RC3)",
                )
                continue
            self.versions[component] = value

    def family(self) -> str | None:
        family = self.params.get("npu_family")
        if family is None:
            return None
        canon = {f.upper(): f for f in FAMILIES}.get(str(family).upper())
        if canon is None:
            self.add(
                "family.unknown",
                "warning",
                "npu",
                f"npu_family {family!r} is not one of {', '.join(FAMILIES)}; OS and lifecycle checks skipped",
                "pass ansible_facts.ascend.npu_family",
            )
        return canon

    # driver <-> firmware
    def check_driver_firmware(self, row, base) -> None:
        driver = self.versions.get("driver")
        firmware = self.versions.get("firmware")
        if not driver or not firmware:
            return
        ranges_used = False
        driver_ranges = self.params.get("driver_compatible_firmware")
        source = "the installed driver's version.info"
        if (
            driver_ranges is None
            and row is not None
            and row.get("driver_compatible_firmware")
            and same_release(driver, row["hdk"])
        ):
            driver_ranges = row["driver_compatible_firmware"]
            source = f"the version.info of driver {row['hdk']} (matrix)"
        if driver_ranges is not None:
            ranges_used = True
            try:
                accepted = in_ranges(firmware, driver_ranges)
            except VersionError as error:
                accepted = None
                self.add(
                    "input.version",
                    "error",
                    "driver",
                    f"driver_compatible_firmware cannot be read: {error}",
                    "pass ansible_facts.ascend.driver.compatible_firmware unchanged",
                )
            if accepted is False:
                self.add(
                    "driver.accepts-firmware",
                    "error",
                    "firmware",
                    f"driver {driver} accepts firmware {driver_ranges} ({source}); firmware {firmware} is outside",
                    "install the firmware of the driver's HDK package (on an installed node: firmware first, "
                    "then driver, then reboot)",
                )
        firmware_ranges = self.params.get("firmware_compatible_driver")
        if firmware_ranges is not None:
            ranges_used = True
            try:
                accepted = in_ranges(driver, firmware_ranges)
            except VersionError as error:
                accepted = None
                self.add(
                    "input.version",
                    "error",
                    "firmware",
                    f"firmware_compatible_driver cannot be read: {error}",
                    "pass ansible_facts.ascend.firmware.compatible_driver unchanged",
                )
            if accepted is False:
                self.add(
                    "firmware.accepts-driver",
                    "error",
                    "driver",
                    f"firmware {firmware} accepts drivers {firmware_ranges} (its version.info); driver {driver} is outside",
                    "install driver and firmware from the same HDK release (upgrade order: firmware, then driver)",
                )
        if ranges_used or row is None:
            return
        entries = list(row.get("firmware") or []) + list(
            (base or {}).get("firmware") or []
        )
        if not entries:
            self.add(
                "driver.firmware.matrix",
                "info",
                "firmware",
                f"the matrix knows no firmware build of HDK {row['hdk']}; firmware {firmware} not checked",
                "pass driver_compatible_firmware and firmware_compatible_driver from ascend_facts",
            )
        elif not any(compare(entry["version"], firmware) == 0 for entry in entries):
            seen = ", ".join(entry["version"] for entry in entries)
            self.add(
                "driver.firmware.matrix",
                "warning" if self.strict else "info",
                "firmware",
                f"firmware {firmware} is not a build seen with HDK {row['hdk']} ({seen})",
                "check with the compatible_version_fw of the installed driver (pass driver_compatible_firmware)",
            )

    def check_cann(self, row, matched) -> None:
        cann = self.versions.get("cann")
        driver = self.versions.get("driver")
        if not cann:
            return
        by_cann = matched_set(self.matrix, cann_version=cann)
        if by_cann is None:
            self.add(
                "cann.known",
                "warning",
                "cann",
                f"CANN {cann} is not in the version matrix",
                "use a CANN release listed in docs/version-matrix.md or add it with matrix_file",
            )
        if not driver or row is None or not matched or not matched["cann"]:
            return
        wanted = [matched["cann"]] + matched["cann_also"]
        if any(same_release(cann, version) for version in wanted):
            return
        mixes = (self.matrix.get("tolerance") or {}).get("real_world_mixes") or []
        seen_mix = next(
            (
                mix
                for mix in mixes
                if same_release(mix["driver"], driver)
                and same_release(mix["cann"], cann)
            ),
            None,
        )
        other = ""
        if by_cann:
            other = f"; CANN {cann} belongs to HDK {by_cann['hdk']}" + (
                " (a guess)" if by_cann["guess"] else ""
            )
        message = (
            f"CANN {cann} is not the matched set of driver {driver}: Huawei's bundles pair HDK "
            f"{matched['hdk']} with CANN {' or '.join(wanted)}{other}"
        )
        if seen_mix and not self.strict:
            severity, message = (
                "info",
                f"{message} (this mix is seen working: {seen_mix.get('note', 'field report')})",
            )
        else:
            severity = "error" if self.strict else "warning"
        fix = f"install CANN {matched['cann']}"
        if by_cann:
            fix += f", or the driver of HDK {by_cann['hdk']}"
        if self.strict:
            fix += ", or run with policy=tolerant to accept a documented or field-proven mix"
        self.add("cann.matched", severity, "cann", message, fix)

    def check_mindcluster(self, matched) -> None:
        mindcluster = self.versions.get("mindcluster")
        if not mindcluster:
            return
        driver = self.versions.get("driver")
        cann = self.versions.get("cann")
        tolerance = next(
            (
                entry
                for entry in (self.matrix.get("tolerance") or {}).get("mindcluster")
                or []
                if same_release(entry["mindcluster"], mindcluster)
            ),
            None,
        )
        if not self.strict and tolerance is not None:
            if driver and not _in_line(driver, tolerance["hdk_lines"]):
                self.add(
                    "mindcluster.tolerance.hdk",
                    "error",
                    "mindcluster",
                    f"MindCluster {mindcluster} is documented for HDK {', '.join(x + '.x' for x in tolerance['hdk_lines'])}, "
                    f"not for driver {driver}",
                    "use the MindCluster release of the driver's matched set or upgrade the driver",
                )
            if cann and not _in_line(cann, tolerance["cann_lines"]):
                self.add(
                    "mindcluster.tolerance.cann",
                    "error",
                    "mindcluster",
                    f"MindCluster {mindcluster} is documented for CANN {', '.join(x + '.x' for x in tolerance['cann_lines'])}, "
                    f"not for CANN {cann}",
                    "use the MindCluster release of the CANN's matched set",
                )
            return
        if not driver or not matched or not matched["mindcluster"]:
            return
        if same_release(mindcluster, matched["mindcluster"]):
            return
        self.add(
            "mindcluster.matched",
            "error" if self.strict else "warning",
            "mindcluster",
            f"MindCluster {mindcluster} is not the matched set of driver {driver}: HDK {matched['hdk']} "
            f"is bundled with MindCluster {matched['mindcluster']}",
            f"deploy MindCluster (device plugin, docker runtime, exporter) {matched['mindcluster']}",
        )

    def check_docker_runtime(self) -> None:
        runtime = self.versions.get("docker_runtime")
        mindcluster = self.versions.get("mindcluster")
        if runtime and mindcluster and not same_release(runtime, mindcluster):
            self.add(
                "docker_runtime.mindcluster",
                "error",
                "docker_runtime",
                f"Ascend Docker Runtime {runtime} and device plugin {mindcluster} must be the same release",
                f"install Ascend Docker Runtime {mindcluster} (or the device plugin {runtime})",
            )
        minimum = (
            (self.matrix.get("rules") or {}).get("docker_runtime_minimum") or {}
        ).get("version")
        if runtime and minimum and compare(runtime, minimum) < 0:
            self.add(
                "docker_runtime.minimum",
                "error",
                "docker_runtime",
                f"Ascend Docker Runtime {runtime} is older than {minimum}, the oldest the device plugin supports",
                f"install Ascend Docker Runtime {minimum} or later",
            )
        containerd = self.versions.get("containerd")
        v3 = (self.matrix.get("rules") or {}).get("containerd_config_v3_from") or {}
        if (
            runtime
            and containerd
            and v3.get("docker_runtime")
            and v3.get("containerd")
            and compare(containerd, v3["containerd"]) >= 0
            and compare(runtime, v3["docker_runtime"]) < 0
        ):
            self.add(
                "containerd.config-v3",
                "warning",
                "docker_runtime",
                f"containerd {containerd} uses config version 3, which Ascend Docker Runtime {runtime} cannot edit "
                f"(only {v3['docker_runtime']} and later can)",
                "write the ascend runtime into /etc/containerd/config.toml with "
                "cubestudio.ascend.containerd_runtime_config, or use docker runtime "
                f"{v3['docker_runtime']} or later",
            )

    def check_stack(self) -> None:
        stacks = self.matrix.get("container_stack") or []
        if not stacks:
            return
        stack = stacks[-1]
        for component, rule in (
            ("docker", "stack.docker"),
            ("containerd", "stack.containerd"),
            ("kubernetes", "stack.kubernetes"),
        ):
            version = self.versions.get(component)
            limits = stack.get(component)
            if not version or not limits:
                continue
            low, high = str(limits["min"]), str(limits["max"])
            if not in_ranges(version, [[low, high]]):
                self.add(
                    rule,
                    "warning",
                    component,
                    f"{component} {version} is outside {low} - {high}, what MindCluster {stack['mindcluster']} documents",
                    f"use {component} {low} to {high}",
                )

    def check_os(self, family: str | None) -> None:
        os_id = self.params.get("os_id")
        if not family or not os_id:
            return
        os_version = self.params.get("os_version")
        arch = self.params.get("arch")
        entry = (self.matrix.get("os_support") or {}).get(family)
        if not entry:
            self.add(
                "os.no-data",
                "info",
                "os",
                f"the matrix has no OS list for NPU family {family}",
                "check Huawei's product documentation for the OS",
            )
            return
        supported = any(
            _os_matches(os_id, os_version, item["id"], item["versions"])
            and _arch_matches(arch, item.get("arch"))
            for item in entry["os"]
        )
        if supported:
            return
        listed = "; ".join(
            f"{item['id']} {', '.join(item['versions'])}" for item in entry["os"]
        )
        self.add(
            "os.supported",
            "error" if self.strict else "warning",
            "os",
            f"{os_id} {os_version or ''}".strip()
            + f" is not a supported OS for Ascend {family} ({listed})",
            "install a supported OS release, or run with policy=tolerant to try anyway",
        )

    def check_lifecycle(self, family: str | None) -> None:
        os_id = self.params.get("os_id")
        if not family or not os_id:
            return
        product = self.params.get("npu_product")
        for entry in self.matrix.get("lifecycle") or []:
            if entry.get("family") != family or not _arch_matches(
                self.params.get("arch"), entry.get("arch")
            ):
                continue
            os_entry = entry["os"]
            if not _os_matches(
                os_id,
                self.params.get("os_version"),
                os_entry["id"],
                os_entry.get("versions") or [],
            ):
                continue
            if (
                product
                and entry.get("product")
                and entry["product"].lower() not in product.lower()
            ):
                continue
            severity = "error" if product else "warning"
            scope = entry.get("product") or family
            hedge = "" if product else f" (applies if this node is an {scope})"
            for component, rule in (
                ("driver", "lifecycle.driver"),
                ("firmware", "lifecycle.firmware"),
            ):
                minimum = entry.get(component)
                version = self.versions.get(component)
                if minimum and version and compare(version, minimum) < 0:
                    self.add(
                        rule,
                        severity,
                        component,
                        f"{scope} on {os_id} {self.params.get('os_version') or ''} needs {component} {minimum} or later; "
                        f"{component} is {version}{hedge}",
                        f"install {component} {minimum} or later",
                    )

    def run(self) -> dict:
        self.read_versions()
        family = self.family()
        driver = self.versions.get("driver")
        row = base = matched = None
        if driver:
            row, base = find_release(self.matrix, driver)
            if row is None:
                self.add(
                    "driver.known",
                    "warning",
                    "driver",
                    f"driver {driver} belongs to no HDK release of the version matrix; CANN and MindCluster not checked",
                    "use a release listed in docs/version-matrix.md or add it with matrix_file",
                )
            else:
                matched = matched_set(self.matrix, driver_version=driver, family=family)
        elif self.versions.get("cann"):
            matched = matched_set(
                self.matrix, cann_version=self.versions["cann"], family=family
            )
        self.check_driver_firmware(row, base)
        self.check_cann(row, matched)
        self.check_mindcluster(matched)
        self.check_docker_runtime()
        self.check_stack()
        self.check_os(family)
        self.check_lifecycle(family)
        if matched and matched["guess"] and driver:
            origin = (
                f" (taken from HDK {matched['inherited_from']})"
                if matched["inherited_from"]
                else ""
            )
            self.add(
                "matrix.guess",
                "info",
                "matrix",
                f"the matched set of driver {driver}{origin} is partly a guess in the matrix: CANN "
                f"{matched['cann']}, MindCluster {matched['mindcluster']}",
                "confirm with Huawei's release notes for this HDK release",
            )
        return {
            "ok": not any(f["severity"] == "error" for f in self.findings),
            "policy": self.policy,
            "findings": self.findings,
            "refused": refusals(self.findings, self.policy),
            "recommended": matched,
        }


def evaluate(matrix: dict, params: dict) -> dict:
    """Check the versions in ``params`` (the ascend_compat options) against ``matrix``.

    Returns ``{ok, policy, findings, refused, recommended}``; ``refused`` the findings that
    refuse an install under the policy (refusals); ``recommended`` is the matched set of the
    driver (or of the CANN when no driver is given), or None.
    """
    if (params.get("policy") or "strict") not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}")
    return _Evaluation(matrix, params).run()
