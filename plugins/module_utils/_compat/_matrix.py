# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The version matrix of cubestudio.ascend.ascend_compat (data/version_matrix.yml, or a
# site file of the same shape): its validation and its lookups (the release of a driver, the
# matched set of a release, the versions one ascend_release name selects).

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    compare,
    parse_ranges,
    release,
    same_release,
    sort_key,
)

__all__ = [
    "FAMILIES",
    "MatrixError",
    "find_release",
    "matched_set",
    "release_set",
    "validate_matrix",
]

FAMILIES = ("310", "310B", "310P", "910", "910B", "A3", "A5")


class MatrixError(Exception):
    """The version matrix does not have the documented structure."""


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise MatrixError(f"{where}: {what}")


def _check_version(value, where: str, optional: bool = False) -> None:
    if value is None and optional:
        return
    _need(
        isinstance(value, str),
        where,
        f"must be a version string (quote it in YAML), got {value!r}",
    )
    try:
        sort_key(value)
    except VersionError as error:
        raise MatrixError(f"{where}: {error}") from None


def _check_component(value, where: str) -> None:
    if value is None:
        return
    _need(isinstance(value, dict), where, "must be a mapping with 'version' or null")
    _check_version(value.get("version"), f"{where}.version")
    for index, other in enumerate(value.get("also") or []):
        _check_version(other, f"{where}.also[{index}]")
    _need(
        isinstance(value.get("guess", False), bool),
        f"{where}.guess",
        "must be true or false",
    )


def validate_matrix(data) -> dict:
    """Check the structure ascend_compat relies on; return the matrix or raise MatrixError."""
    _need(isinstance(data, dict), "matrix", "must be a mapping")
    _need(
        data.get("schema") == 1,
        "matrix.schema",
        f"must be 1, got {data.get('schema')!r}",
    )
    releases = data.get("releases")
    _need(
        isinstance(releases, list) and releases,
        "matrix.releases",
        "must be a non-empty list",
    )
    seen = {}
    for index, row in enumerate(releases):
        where = f"matrix.releases[{index}]"
        _need(isinstance(row, dict), where, "must be a mapping")
        _check_version(row.get("hdk"), f"{where}.hdk")
        key = release(row["hdk"])
        _need(
            key not in seen,
            f"{where}.hdk",
            f"{row['hdk']} is listed twice (also at index {seen.get(key)})",
        )
        seen[key] = index
        _check_component(row.get("cann"), f"{where}.cann")
        _check_component(row.get("mindcluster"), f"{where}.mindcluster")
        firmware = row.get("firmware")
        firmware = [] if firmware is None else firmware
        _need(isinstance(firmware, list), f"{where}.firmware", "must be a list")
        for fw_index, entry in enumerate(firmware):
            fw_where = f"{where}.firmware[{fw_index}]"
            _need(isinstance(entry, dict), fw_where, "must be a mapping")
            _check_version(entry.get("version"), f"{fw_where}.version")
            _check_version(entry.get("driver"), f"{fw_where}.driver", optional=True)
            families = entry.get("families", [])
            _need(
                isinstance(families, list)
                and all(isinstance(f, str) for f in families),
                f"{fw_where}.families",
                "must be a list of quoted family names",
            )
        if row.get("driver_compatible_firmware") is not None:
            try:
                parse_ranges(row["driver_compatible_firmware"])
            except VersionError as error:
                raise MatrixError(
                    f"{where}.driver_compatible_firmware: {error}"
                ) from None
    tolerance = (data.get("tolerance") or {}).get("mindcluster") or []
    _need(isinstance(tolerance, list), "matrix.tolerance.mindcluster", "must be a list")
    for index, entry in enumerate(tolerance):
        where = f"matrix.tolerance.mindcluster[{index}]"
        _need(isinstance(entry, dict), where, "must be a mapping")
        _check_version(entry.get("mindcluster"), f"{where}.mindcluster")
        for key in ("cann_lines", "hdk_lines"):
            lines = entry.get(key)
            _need(
                isinstance(lines, list)
                and all(isinstance(line, str) for line in lines),
                f"{where}.{key}",
                "must be a list of quoted 'X.Y' strings",
            )
    os_support = data.get("os_support") or {}
    _need(
        isinstance(os_support, dict),
        "matrix.os_support",
        "must be a mapping of family -> entry",
    )
    for family, entry in os_support.items():
        where = f"matrix.os_support.{family}"
        _need(
            isinstance(entry, dict) and isinstance(entry.get("os"), list),
            where,
            "needs an 'os' list",
        )
        for index, os_entry in enumerate(entry["os"]):
            _need(
                isinstance(os_entry, dict)
                and isinstance(os_entry.get("id"), str)
                and isinstance(os_entry.get("versions"), list)
                and all(isinstance(v, str) for v in os_entry["versions"]),
                f"{where}.os[{index}]",
                "needs an 'id' and a list of quoted 'versions'",
            )
    for index, entry in enumerate(data.get("lifecycle") or []):
        where = f"matrix.lifecycle[{index}]"
        _need(
            isinstance(entry, dict) and isinstance(entry.get("os"), dict),
            where,
            "needs 'family', 'os' and minimums",
        )
        _check_version(entry.get("driver"), f"{where}.driver", optional=True)
        _check_version(entry.get("firmware"), f"{where}.firmware", optional=True)
    rules = data.get("rules") or {}
    _need(isinstance(rules, dict), "matrix.rules", "must be a mapping")
    default = data.get("default_release")
    if default is not None:
        _check_version(default, "matrix.default_release")
        _need(
            release(default) in seen,
            "matrix.default_release",
            f"{default} is not one of the releases",
        )
    return data


def find_release(matrix: dict, driver_version: str) -> tuple:
    """(row, base_row) of the driver's HDK release; base_row is the X.Y.0 row for a maintenance
    release X.Y.N (N > 0), else None. (None, None) when the matrix does not know the release."""
    rows = {release(row["hdk"]): row for row in matrix["releases"]}
    key = release(driver_version)
    row = rows.get(key)
    fields = key.split(".")
    base = None
    if len(fields) == 3 and fields[2].isdigit() and fields[2] != "0":
        base = rows.get(f"{fields[0]}.{fields[1]}.0")
    if row is None and base is not None:
        return base, None
    return row, base


def _component(row: dict, base: dict | None, name: str) -> tuple:
    """(component dict, inherited from base) of a row."""
    if row.get(name):
        return row[name], False
    if base is not None and base.get(name):
        return base[name], True
    return None, False


def _firmware_for(
    row: dict, base: dict | None, driver_version: str | None, family: str | None
) -> dict | None:
    entries = list(row.get("firmware") or [])
    if base is not None:
        entries += base.get("firmware") or []

    def score(entry):
        exact = bool(
            driver_version
            and entry.get("driver")
            and compare(entry["driver"], driver_version) == 0
        )
        families = entry.get("families") or []
        fits = not family or not families or family in families
        return (exact, fits and bool(families), fits)

    fitting = [entry for entry in entries if score(entry)[2]]
    if not fitting:
        return None
    return max(fitting, key=score)


def matched_set(
    matrix: dict,
    driver_version: str | None = None,
    cann_version: str | None = None,
    family: str | None = None,
):
    """Huawei's matched set for a driver (or, without a driver, for a CANN release).

    Returns ``{hdk, driver, firmware, cann, cann_also, mindcluster, docker_runtime, guess,
    inherited_from, evidence}`` or None when the matrix does not know the release.
    """
    row = base = None
    if driver_version:
        row, base = find_release(matrix, driver_version)
    elif cann_version:
        for candidate in matrix["releases"]:
            cann = candidate.get("cann") or {}
            versions = [cann.get("version")] + list(cann.get("also") or [])
            if any(v and same_release(v, cann_version) for v in versions):
                row = candidate
                break
    if row is None:
        return None
    cann, cann_inherited = _component(row, base, "cann")
    mindcluster, mc_inherited = _component(row, base, "mindcluster")
    firmware = _firmware_for(row, base, driver_version, family)
    guess = bool(
        (cann or {}).get("guess")
        or (mindcluster or {}).get("guess")
        or cann_inherited
        or mc_inherited
    )
    evidence = []
    for component in (cann, mindcluster):
        for source in (component or {}).get("evidence") or []:
            if source not in evidence:
                evidence.append(source)
    mindcluster_version = mindcluster["version"] if mindcluster else None
    return {
        "hdk": row["hdk"],
        "driver": driver_version or row["hdk"].lower(),
        "firmware": firmware["version"] if firmware else None,
        "cann": cann["version"] if cann else None,
        "cann_also": list((cann or {}).get("also") or []),
        "mindcluster": mindcluster_version,
        "docker_runtime": mindcluster_version,
        "guess": guess,
        "inherited_from": base["hdk"]
        if (cann_inherited or mc_inherited) and base
        else None,
        "evidence": evidence,
    }


def release_set(
    matrix: dict, name: str | None = None, family: str | None = None
) -> dict:
    """The versions one ``ascend_release`` name selects: ``{release, driver, firmware, cann,
    runtime, mindcluster, guess}``, each None where the matrix names none. An empty name is the
    matrix's ``default_release``. MatrixError names the known releases when the name is not one."""
    if not name:
        name = matrix.get("default_release")
        if not name:
            raise MatrixError(
                "the version matrix has no default_release: set ascend_release"
            )
    name = str(name)
    try:
        matched = matched_set(matrix, driver_version=name.lower(), family=family)
    except VersionError as error:
        raise MatrixError(
            f"ascend_release {name!r} is not a version: {error}"
        ) from None
    if matched is None or release(matched["hdk"]) != release(name):
        known = ", ".join(str(row["hdk"]) for row in matrix["releases"])
        raise MatrixError(
            f"ascend_release {name} is not a release of the version matrix (known: {known})"
        )
    # A release whose packages carry a build number (23.0.rc2.2) installs its newest build.
    row, base = find_release(matrix, name)
    builds = row.get("driver_builds") or []

    # Firmware seen only with other NPU families is no answer for this one (or an unknown one).
    def for_family(entries):
        return [
            entry
            for entry in entries or []
            if not entry.get("families") or family in entry["families"]
        ]

    firmware = _firmware_for(
        {"firmware": for_family(row.get("firmware"))},
        {"firmware": for_family(base.get("firmware"))} if base else None,
        name.lower(),
        family,
    )
    return {
        "release": matched["hdk"],
        "driver": str(builds[-1]) if builds else matched["driver"],
        "firmware": firmware["version"] if firmware else None,
        "cann": matched["cann"],
        "runtime": matched["docker_runtime"],
        "mindcluster": matched["mindcluster"],
        "guess": matched["guess"],
    }
