# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated ``libdcmi.so``: its build, and the device view it reads.

The library (``tests/simulator/dcmi/libdcmi.c``) is compiled with the host's gcc when the
packages are built and shipped in the driver packages of the host's architecture; the driver
installs it as ``<driver>/lib64/driver/libdcmi.so``. Pods mount the driver folder, not the
simulator state, so ``hardware.save_state`` (the one writer of the state) also writes, while a
driver is installed, a flat view of the chips next to the library (``VIEW_NAME``), with the
values npu-smi shows (the same ``effective_chip`` logic). The format is described at the top of
libdcmi.c.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile

from . import catalog, hccn_tool, npusmi

VIEW_NAME = "ascend-sim-dcmi.view"
# npu-smi's copy of the simulator state, beside the view (npusmi.STATE_COPY_RELPATH).
STATE_COPY_NAME = "ascend-sim-state.json"
LIB_RELPATH = "lib64/driver"  # below the driver folder, next to the library
PAYLOAD_NAME = "lib/libdcmi.so"  # inside a driver package
SOURCES = ("libdcmi.c", "dcmi_interface_api.h")
CFLAGS = ("-shared", "-fPIC", "-O2", "-s", "-Wall", "-Wextra", "-Werror")
HEALTH = {"OK": 0, "Warning": 1, "Alarm": 2, "Critical": 3}
INIT_FAILED = (
    -8005
)  # DCMI_ERR_CODE_INNER_ERR: "dcmi module initialize failed. ret is -8005"
VDIE_BASE, NDIE_BASE = 0x42C711D4, 0x27216594  # as npu-smi info -t board -c shows them

# enum dcmi_rdfx_detect_result (Huawei's dcmi_interface_api.h in MindCluster's
# ascend-common/devmanager/dcmi; hccn_tool -net_health -g prints the same codes by name).
NET_HEALTH = {
    "Success": 0,
    "Socket fail": 1,
    "Receive timeout": 2,
    "Unreachable": 3,
    "Time exceeded": 4,
    "Fault": 5,
    "Init": 6,
    "Thread error": 7,
    "Detect ip set": 8,
}
# enum dcmi_device_type: the memory whose ECC dcmi_get_device_ecc_info reports.
ECC_DDR, ECC_HBM = 0, 2
DEFAULT_MTU = 1500  # GUESS: hccn_tool -mtu -g of a port nobody configured
NETWORK_KEYS = ("address", "netmask", "gateway", "netdetect", "link", "mtu")


class BuildError(Exception):
    pass


HCCN_TOOL_SOURCE = "hccn_view.sh"  # the minimal hccn_tool, next to this module


def hccn_tool_text():
    """The simulated driver's tools/hccn_tool: a small sh program reading the device view."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), HCCN_TOOL_SOURCE)
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def source_dir():
    return os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "dcmi"
    )


def _run(args, cwd=None):
    try:
        return subprocess.run(
            args, cwd=cwd, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        detail = getattr(err, "stderr", None) or str(err)
        raise BuildError("%s failed: %s" % (" ".join(args), detail.strip())) from None


@functools.lru_cache(maxsize=None)
def host_arch():
    """Architecture the host's gcc builds for (x86_64, aarch64), or None without gcc."""
    if shutil.which("gcc") is None:
        return None
    return _run(["gcc", "-dumpmachine"]).strip().split("-")[0]


def cache_dir():
    """$ASCEND_SIM_CACHE, else .build/ascend-sim of the repository, else a temporary folder."""
    if os.environ.get("ASCEND_SIM_CACHE"):
        return os.environ["ASCEND_SIM_CACHE"]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(source_dir())))
    if os.path.isfile(os.path.join(repo, "galaxy.yml")):
        return os.path.join(repo, ".build", "ascend-sim")
    return os.path.join(tempfile.gettempdir(), "ascend-sim-cache-%d" % os.getuid())


def build_key():
    digest = hashlib.sha256()
    digest.update(_run(["gcc", "--version"]).encode())
    digest.update(" ".join(CFLAGS).encode())
    for name in SOURCES:
        with open(os.path.join(source_dir(), name), "rb") as handle:
            digest.update(name.encode() + b"\0" + handle.read())
    return digest.hexdigest()[:16]


def build_library():
    """Path of libdcmi.so built from the sources, compiled once per content (same bytes)."""
    out_dir = os.path.join(cache_dir(), "libdcmi-" + build_key())
    out = os.path.join(out_dir, "libdcmi.so")
    if os.path.isfile(out):
        return out
    os.makedirs(cache_dir(), exist_ok=True)
    work = tempfile.mkdtemp(prefix="libdcmi.", dir=cache_dir())
    try:
        for name in SOURCES:  # relative names: no build path ends up in the binary
            shutil.copy(os.path.join(source_dir(), name), os.path.join(work, name))
        _run(["gcc", *CFLAGS, "-o", "libdcmi.so", "libdcmi.c"], cwd=work)
        os.makedirs(out_dir, exist_ok=True)
        os.replace(os.path.join(work, "libdcmi.so"), out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


@functools.lru_cache(maxsize=None)
def library_bytes(arch):
    """The library for a driver package of ``arch``; None when the host cannot build it."""
    if arch != host_arch():
        return None
    with open(build_library(), "rb") as handle:
        return handle.read()


# ----------------------------------------------------------------------------- view


def chip_name(state, npu):
    """The DCMI chip name: npu-smi's Name, except A3 whose npu-smi Name is "Ascend910"."""
    if state.get("family") == "a3":
        return catalog.A3_CHIP_NAME
    return npu["name"]


def _pair(used, total):
    return "-" if total is None else "%d/%d" % (used or 0, total)


def _words(seed, base):
    return ",".join(npusmi._die_id(seed, base).split())


def _text(value):
    """A view value: one token, "-" for none, spaces and percent signs escaped."""
    if value is None or value == "":
        return "-"
    return str(value).replace("%", "%25").replace(" ", "%20")


def port_link(chip):
    """UP or DOWN, as hccn_tool answers ``-link -g`` (one answer: hccn_tool.link_status)."""
    return hccn_tool.link_status(chip)


def network_health(state, npu, chip):
    """The chip's dcmi_get_device_network_health result (enum dcmi_rdfx_detect_result): the
    value hccn_tool answers for ``-net_health -g`` (one answer: hccn_tool.net_health), as
    its number."""
    return NET_HEALTH[hccn_tool.net_health(state, npu, chip)]


def network_fields(state, npu, chip):
    """The NPU port's settings (chip["network"], written by hccn_tool or `ascend-sim net set`)."""
    net = chip.get("network") or {}
    return [
        ("speed", catalog.PORT_SPEED_MBPS.get(state.get("family"), "-")),
        ("ip", _text(net.get("address"))),
        ("mask", _text(net.get("netmask"))),
        ("gw", _text(net.get("gateway"))),
        ("detect", _text(net.get("netdetect"))),
        ("link", port_link(chip)),
        ("mtu", net.get("mtu") or DEFAULT_MTU),
        ("nethealth", network_health(state, npu, chip)),
    ]


def chip_processes(state, npu, chip):
    """pid:MB of the processes npu-smi lists on this chip (the `busy` knob and state rows)."""
    rows = [
        row
        for row in npusmi.processes(state, [npu])
        if (row.get("chip") or 0) == chip["chip"]
    ]
    return (
        ",".join("%d:%d" % (row["pid"], row.get("memory_mb") or 0) for row in rows)
        or "-"
    )


def _ecc(state, chip):
    if chip.get("hbm_total_mb") is not None:
        return ECC_HBM
    if chip.get("memory_total_mb"):
        return ECC_DDR
    return "-"


def _utilisation(family, shown):
    """aic,aiv,aicore,npu as npu-smi info -t usages shows them (Aicube, Aivector, Aicore, NPU)."""
    if family not in catalog.MULTI_UTIL_FAMILIES:
        return "-"
    aicore = shown.get("aicore_pct") or 0
    return "0,0,%d,%d" % (aicore, aicore)


def chip_line(state, npu, chip):
    shown = npusmi.effective_chip(state, npu, chip)
    power = shown.get("power_w")
    device = chip["device"]
    phy = chip.get("phy_id")
    seed = npu["id"] * 16 + chip["chip"]
    family = state.get("family")
    fields = [
        ("card", npu["id"]),
        ("dev", chip["chip"]),
        ("logic", device),
        ("phy", device if phy is None else phy),
        ("slot", npu.get("slot", 0)),
        ("name", chip_name(state, npu)),
        ("aicores", catalog.AICORE_COUNT.get(state.get("model"), 0)),
        ("health", HEALTH.get(shown.get("health", "OK"), 3)),
        ("temp", shown.get("temp_c") or 0),
        ("power", -1 if power is None else round(power * 10)),
        ("aicore", shown.get("aicore_pct") or 0),
        ("hbm", _pair(shown.get("hbm_used_mb"), shown.get("hbm_total_mb"))),
        ("ddr", _pair(shown.get("memory_used_mb"), shown.get("memory_total_mb"))),
        (
            "hugepages",
            _pair(shown.get("hugepages_used"), shown.get("hugepages_total")),
        ),
        ("board", npu.get("board_id") or state.get("board_id") or "0"),
        ("pcie", (chip.get("bus_id") or "-").lower()),
        ("vendor", catalog.HUAWEI_VENDOR),
        ("device", "0x" + state["pci_device"]),
        ("subvendor", state["subsystem_vendor"]),
        ("subdevice", state["subsystem_device"]),
        ("vdie", _words(seed, VDIE_BASE)),
        ("ndie", _words(seed, NDIE_BASE)),
        ("errors", ",".join(shown.get("error_codes") or []) or "-"),
        ("ver", "V1"),
        # npu_name of chip info v2: GUESS npu-smi's Name (MindCluster never reads it).
        ("npuname", _text(npu["name"])),
        ("product", _text(catalog.PRODUCT_TYPE.get(state.get("model")))),
        ("eprod", _text(npu.get("product_name"))),
        ("maker", "Huawei"),
        ("serial", _text(npu.get("serial"))),
        ("voltage", catalog.VOLTAGE_CENTIVOLT.get(family, "-")),
        ("mainboard", catalog.MAINBOARD_ID.get(state.get("model"), "-")),
        ("ecc", _ecc(state, chip)),
        ("util", _utilisation(family, shown)),
        ("pciebw", int(family in catalog.PCIE_BANDWIDTH_FAMILIES)),
        ("hccs", int(family in catalog.HCCS_FAMILIES)),
        ("procs", chip_processes(state, npu, chip)),
    ] + network_fields(state, npu, chip)
    return "chip " + " ".join("%s=%s" % (key, value) for key, value in fields)


def view_text(state, dev_dir, driver_version):
    """The device view of ``state``; ``dev_dir`` is where the /dev/davinci<N> nodes are."""
    started = not npusmi.faults_for(state, "device-not-started")
    lines = [
        "# ascend-sim DCMI device view: written by ascend-sim with every state change,",
        "# read by the simulated libdcmi.so next to it. Do not edit.",
        "init %d" % (0 if started else INIT_FAILED),
        "driver %s" % (driver_version or "NA"),
        "dev %s" % dev_dir,
    ]
    for npu in state.get("npus", []):
        for chip in npu["chips"]:
            lines.append(chip_line(state, npu, chip))
    return "\n".join(lines) + "\n"
