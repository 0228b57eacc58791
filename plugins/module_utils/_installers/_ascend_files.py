# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. What Huawei's installers leave on a node, read from files under a root directory.
#
# Locations (see docs/modules.md and the collection's installed-files fixtures):
#   /etc/ascend_install.info                           driver/firmware installers, KEY=VALUE
#   <install>/driver/version.info                      Version, compatible_version_fw, ...
#   <install>/driver/tools/upgrade-tool                absent = incomplete driver install
#   <install>/firmware/version.info                    Version, compatible_version_drv, ...
#   <install>/ascend-toolkit/<ver>/<arch>-linux/ascend_toolkit_install.info   CANN <= 8.3
#   <install>/nnrt/<ver>/<arch>-linux/ascend_nnrt_install.info
#   <install>/nnae/<ver>/ascend_nnae_install.info                              (no arch dir)
#   <install>/cann-<ver>/[<arch>-linux/]ascend_*_install.info, <install>/cann -> cann-<ver>  CANN >= 8.5
#   <install>/Ascend-Docker-Runtime/ascend_docker_runtime_install.info         version=v7.3.0
#   /run/cubestudio-ascend/reboot-required            the npu_driver role: one reason a line
# ``latest`` links (ascend-toolkit/latest, nnae/latest, nnrt/latest) and the ``cann`` link
# tell which installed version is the default one.
#
# Every function takes the root of the file system to read (``/`` on a live node), so the
# same code reads a sandbox in tests or a mounted image. Nothing here raises on missing
# files: absent things are None.

from __future__ import annotations

import glob
import grp
import os
import pwd
import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    parse_ranges,
    sort_key,
)

__all__ = [
    "DEFAULT_INSTALL_PATH",
    "cann_packages",
    "device_nodes",
    "docker_runtime",
    "driver",
    "firmware",
    "install_info",
    "install_paths",
    "parse_info_file",
    "read_text",
    "reboot_marker",
    "under",
    "user",
]

DEFAULT_INSTALL_PATH = "/usr/local/Ascend"
INSTALL_INFO = "/etc/ascend_install.info"
DEVICE_NODES = ("davinci_manager", "devmm_svm", "hisi_hdc")
NPU_SMI = "/usr/local/sbin/npu-smi"
# Written by the npu_driver role when a package needs a reboot (roles/npu_driver/vars/main.yml
# _npu_driver_marker); /run is a tmpfs, so the reboot removes it.
REBOOT_MARKER = "/run/cubestudio-ascend/reboot-required"
NPU_SMI_ALT = "/usr/local/bin/npu-smi"
CANN_PRODUCTS = ("ascend-toolkit", "nnae", "nnrt")
_INFO_NAME_RE = re.compile(r"ascend_(?P<kind>[a-z0-9_]+?)_install\.info")
_DAVINCI_RE = re.compile(r"davinci[0-9]+")
# Huawei's .run packages: Ascend-hdk-*, Atlas-A3-hdk-*, Ascend-cann-*, Ascend-docker-runtime_*.
_PACKAGE_RE = re.compile(r"(?:Ascend|Atlas)-[A-Za-z0-9._-]+\.run")


def under(root: str, path: str) -> str:
    """``path`` (absolute on the node) as seen below ``root``."""
    return os.path.join(root, path.lstrip("/"))


def read_text(path: str, limit: int = 1 << 20) -> str | None:
    """Text of a file (at most ``limit`` bytes), None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None


def parse_info_file(text: str | None) -> dict | None:
    """``KEY=VALUE`` lines -> dict (keys and values stripped, comments and junk skipped)."""
    if text is None:
        return None
    data = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if key.strip():
            data[key.strip()] = value.strip()
    return data


def _ranges(text: str | None) -> list | None:
    """Ranges of a compatible_version_* value as ``[{min, max}]``; None when absent/garbled."""
    if not text:
        return None
    try:
        return [{"min": low, "max": high} for low, high in parse_ranges(text)]
    except VersionError:
        return None


def _list(text: str | None) -> list | None:
    """``[A],[B,C]`` -> ``["A", "B,C"]`` for compatible_version (inner versions)."""
    if not text:
        return None
    return re.findall(r"\[([^\[\]]*)\]", text) or None


def install_info(root: str) -> dict | None:
    return parse_info_file(read_text(under(root, INSTALL_INFO)))


def install_paths(info: dict | None, override: str | None) -> dict:
    """Driver and firmware install paths: the override, else ascend_install.info, else default."""
    info = info or {}
    driver_path = (
        override or info.get("Driver_Install_Path_Param") or DEFAULT_INSTALL_PATH
    )
    firmware_path = override or info.get("Firmware_Install_Path_Param") or driver_path
    return {"driver": driver_path, "firmware": firmware_path}


# The driver installer of the scripts in shared/ascend/driver-installer-rules.md (HDK 25.x era)
# writes Driver_Install_Status=complete last; the record of an older complete install (a 23.x
# guide, installed-files/etc-ascend_install.info) has no such line. Where the line starts is not
# known: it is only required of drivers from this major release on, so that no complete older
# driver is ever taken for a half install (an ASSUMPTION, docs/design.md).
INSTALL_STATUS_FROM_MAJOR = 25


def install_unfinished(info: dict | None, version: str | None) -> bool:
    """A driver install that stopped half-way: ascend_install.info records it
    (``Driver_Install_Type``) without the ``Driver_Install_Status=complete`` the installer writes
    last (driver_install.sh; npu-smi then warns that the driver may not be complete)."""
    info = info or {}
    match = re.match(r"^([0-9]+)[.]", str(version or ""))
    if not match or int(match.group(1)) < INSTALL_STATUS_FROM_MAJOR:
        return False
    return (
        "Driver_Install_Type" in info
        and info.get("Driver_Install_Status") != "complete"
    )


def driver(root: str, install_path: str, info_file: dict | None = None) -> dict | None:
    """The driver under ``<install_path>/driver``; None when that directory does not exist.

    ``info_file`` is /etc/ascend_install.info (:func:`install_info`), for the install status."""
    path = os.path.join(install_path, "driver")
    if not os.path.isdir(under(root, path)):
        return None
    version_file = os.path.join(path, "version.info")
    info = parse_info_file(read_text(under(root, version_file)))
    upgrade_tool = os.path.isfile(
        under(root, os.path.join(path, "tools", "upgrade-tool"))
    )
    info_or_empty = info or {}
    unfinished = install_unfinished(info_file, info_or_empty.get("Version"))
    return {
        "version": info_or_empty.get("Version"),
        "package_version": info_or_empty.get("package_version"),
        "innerversion": info_or_empty.get("Innerversion"),
        "compatible_firmware": info_or_empty.get("compatible_version_fw"),
        "compatible_firmware_ranges": _ranges(
            info_or_empty.get("compatible_version_fw")
        ),
        "compatible_innerversions": _list(info_or_empty.get("compatible_version")),
        "install_path": path,
        "version_file": version_file if info is not None else None,
        "upgrade_tool": upgrade_tool,
        "unfinished": unfinished,
        "complete": info is not None
        and bool(info_or_empty.get("Version"))
        and upgrade_tool
        and not unfinished,
        "info": info,
    }


def firmware(root: str, install_path: str) -> dict | None:
    """The firmware package under ``<install_path>/firmware``; None without its version.info."""
    path = os.path.join(install_path, "firmware")
    version_file = os.path.join(path, "version.info")
    info = parse_info_file(read_text(under(root, version_file)))
    if info is None:
        return None
    return {
        "version": info.get("Version"),
        "package_version": info.get("package_version"),
        "compatible_driver": info.get("compatible_version_drv"),
        "compatible_driver_ranges": _ranges(info.get("compatible_version_drv")),
        "install_path": path,
        "version_file": version_file,
        "info": info,
    }


def _realpath(root: str, path: str) -> str:
    return os.path.realpath(under(root, path))


def _info_files(directory: str) -> list:
    """ascend_*_install.info files directly in ``directory`` or in its ``*-linux`` subdirs."""
    found = glob.glob(os.path.join(glob.escape(directory), "ascend_*_install.info"))
    found += glob.glob(
        os.path.join(glob.escape(directory), "*-linux", "ascend_*_install.info")
    )
    return sorted(found)


def _version_key(package: dict) -> tuple:
    try:
        return (1, sort_key(package["version"] or ""))
    except VersionError:
        return (0, ())


def cann_packages(root: str, install_path: str) -> dict:
    """Installed CANN packages (toolkit, nnae, nnrt, ... in the old and the 8.5.0 layouts).

    Returns ``{version, latest: {kind: package|None}, packages: [...]}``. A package is
    ``latest`` when the product's ``latest`` link (old layout) or the ``cann`` link (8.5.0
    layout) points at its directory.
    """
    candidates = []  # (layout, product, version directory on the node)
    for product in CANN_PRODUCTS:
        product_dir = os.path.join(install_path, product)
        for entry in sorted(
            glob.glob(os.path.join(glob.escape(under(root, product_dir)), "*"))
        ):
            name = os.path.basename(entry)
            if name != "latest" and os.path.isdir(entry) and not os.path.islink(entry):
                candidates.append(("classic", product, os.path.join(product_dir, name)))
        latest = os.path.join(product_dir, "latest")
        latest_on_disk = under(root, latest)
        if os.path.isdir(latest_on_disk) and not os.path.islink(latest_on_disk):
            # A real directory, not a link: a copied tree without version directories.
            candidates.append(("classic", product, latest))
    for entry in sorted(
        glob.glob(os.path.join(glob.escape(under(root, install_path)), "cann-*"))
    ):
        if os.path.isdir(entry) and not os.path.islink(entry):
            candidates.append(
                ("cann", "cann", os.path.join(install_path, os.path.basename(entry)))
            )

    packages = []
    seen = set()
    for layout, product, directory in candidates:
        for info_file in _info_files(under(root, directory)):
            real = os.path.realpath(info_file)
            if real in seen:
                continue
            seen.add(real)
            info = parse_info_file(read_text(info_file)) or {}
            match = _INFO_NAME_RE.fullmatch(os.path.basename(info_file))
            kind = match.group("kind") if match else None
            link = os.path.join(
                install_path, "cann" if layout == "cann" else f"{product}/latest"
            )
            is_latest = os.path.islink(under(root, link)) and _realpath(
                root, link
            ) == os.path.realpath(under(root, directory))
            node_path = "/" + os.path.relpath(info_file, root)
            packages.append(
                {
                    "kind": kind,
                    "package_name": info.get("package_name"),
                    "version": info.get("version"),
                    "innerversion": info.get("innerversion"),
                    "arch": info.get("arch"),
                    "path": info.get("path"),
                    "directory": directory,
                    "info_file": os.path.normpath(node_path),
                    "layout": layout,
                    "latest": is_latest,
                }
            )
    latest = {}
    for kind in sorted({p["kind"] for p in packages if p["kind"]}):
        of_kind = [p for p in packages if p["kind"] == kind]
        linked = [p for p in of_kind if p["latest"]]
        latest[kind] = max(linked or of_kind, key=_version_key)
    for kind in ("toolkit", "nnae", "nnrt"):
        latest.setdefault(kind, None)
    default = latest["toolkit"] or latest["nnae"] or latest["nnrt"]
    return {
        "version": default["version"] if default else None,
        "latest": latest,
        "packages": packages,
    }


def docker_runtime(root: str, install_path: str) -> dict | None:
    """Ascend Docker Runtime from its install.info; None when it is not installed."""
    path = os.path.join(install_path, "Ascend-Docker-Runtime")
    info_file = os.path.join(path, "ascend_docker_runtime_install.info")
    info = parse_info_file(read_text(under(root, info_file)))
    if info is None:
        return None
    raw = info.get("version")
    version = raw[1:] if raw and raw[:1] in ("v", "V") else raw
    install_dir = info.get("path") or path
    return {
        "version": version or None,
        "version_raw": raw,
        "install_scene": info.get("install-scene") or None,
        "install_path": install_dir,
        "binary": os.path.join(install_dir, "ascend-docker-runtime"),
        "binary_present": os.path.isfile(
            under(root, os.path.join(install_dir, "ascend-docker-runtime"))
        ),
        "arch": info.get("arch"),
        "build": info.get("build"),
        "config_file_path": info.get("config-file-path") or None,
        "injection_mode": info.get("injection-mode") or None,
        "info_file": info_file,
        "info": info,
    }


def _passwd_entry(text: str | None, name: str, fields: int) -> list | None:
    for line in (text or "").splitlines():
        parts = line.split(":")
        if len(parts) >= fields and parts[0] == name:
            return parts
    return None


def user(root: str, name: str = "HwHiAiUser") -> dict | None:
    """uid, gid, group gid, home and shell of a user from <root>/etc/passwd and /etc/group.

    On the live system (root ``/``) the name service (LDAP, SSSD) is asked when the files do
    not know the user.
    """
    entry = _passwd_entry(read_text(under(root, "/etc/passwd")), name, 7)
    group = _passwd_entry(read_text(under(root, "/etc/group")), name, 3)
    result = None
    if entry and entry[2].isdigit() and entry[3].isdigit():
        result = {
            "name": name,
            "uid": int(entry[2]),
            "gid": int(entry[3]),
            "home": entry[5],
            "shell": entry[6],
        }
    elif os.path.realpath(root) == "/":
        try:
            record = pwd.getpwnam(name)
            result = {
                "name": name,
                "uid": record.pw_uid,
                "gid": record.pw_gid,
                "home": record.pw_dir,
                "shell": record.pw_shell,
            }
        except KeyError:
            result = None
    if result is None:
        return None
    group_gid = int(group[2]) if group and group[2].isdigit() else None
    if group_gid is None and os.path.realpath(root) == "/":
        try:
            group_gid = grp.getgrnam(name).gr_gid
        except KeyError:
            group_gid = None
    result["group_gid"] = group_gid
    return result


def device_nodes(root: str) -> dict:
    """/dev/davinciN count, management device nodes and npu-smi presence under ``root``."""
    dev = under(root, "/dev")
    try:
        names = os.listdir(dev)
    except OSError:
        names = []
    davinci = sorted(int(n[7:]) for n in names if _DAVINCI_RE.fullmatch(n))
    return {
        "davinci_devices": len(davinci),
        "davinci_ids": davinci,
        "management": {
            name: os.path.exists(os.path.join(dev, name)) for name in DEVICE_NODES
        },
        "npu_smi": {
            "path": NPU_SMI,
            "present": os.path.isfile(under(root, NPU_SMI)),
            "is_directory": os.path.isdir(under(root, NPU_SMI)),
            "alt_path": NPU_SMI_ALT,
            "alt_present": os.path.isfile(under(root, NPU_SMI_ALT)),
        },
    }


def reboot_marker(root: str) -> dict:
    """The pending reboot the npu_driver role recorded: ``{pending, reasons, marker}``."""
    path = under(root, REBOOT_MARKER)
    text = read_text(path, limit=1 << 16)
    if text is None and not os.path.exists(path):
        return {"pending": False, "reasons": [], "marker": REBOOT_MARKER}
    reasons = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line and line not in reasons:
            reasons.append(line)
    return {"pending": True, "reasons": reasons, "marker": REBOOT_MARKER}


def running_installers(root: str) -> list:
    """Processes below ``root``/proc running a Huawei .run package: ``[{pid, package}]``.

    A run that lost its connection leaves the package's installer going on the node; installing
    over it would break both. A process counts when one of its arguments is a path or name of a
    Huawei package (the shell running the .run, its makeself layer, coreutils timeout around it).
    """
    proc = under(root, "/proc")
    try:
        entries = os.listdir(proc)
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(os.path.join(proc, entry, "cmdline"), "rb") as handle:
                raw = handle.read(1 << 16)
        except OSError:
            continue  # gone, or not ours to read
        for arg in raw.decode("utf-8", errors="replace").split("\0"):
            name = os.path.basename(arg.strip())
            if _PACKAGE_RE.fullmatch(name):
                found.append({"pid": int(entry), "package": name})
                break
    return sorted(found, key=lambda item: item["pid"])
