# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated ``npu-smi`` (standalone: imports nothing from the simulator package).

The driver installer copies this file to ``/usr/local/sbin/npu-smi`` and sets TOOL_VERSION.
It reads the simulator state (``<root>/var/lib/ascend-sim/state.json``) and the installed
driver's ``version.info``, and shows only the chips whose ``/dev/davinci<device>`` node
exists: inside a container that is exactly what the container runtime passed in. A container
of Huawei's Ascend Docker Runtime has no ``/var/lib/ascend-sim`` (its mount whitelist refuses
that path) but the driver's ``lib64`` from base.list: there the state is read from the copy
that the simulator keeps beside the driver's libraries (``STATE_COPY_RELPATH``, next to the
simulated libdcmi's device view), as the real tool reaches the chips through the driver.

Layouts reproduce the fixtures in tests/unit/plugins/module_utils/fixtures/npu-smi/.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

TOOL_VERSION = None  # set by the driver installer to the driver package version
STATE_RELPATH = "var/lib/ascend-sim/state.json"
# The copy of the state beside the driver's libraries (hardware.save_state), below the driver
# folder: what a container of the Ascend Docker Runtime sees (base.list mounts driver/lib64).
STATE_COPY_RELPATH = "lib64/driver/ascend-sim-state.json"
USAGE_LINE = "Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> [Options...]"
# GUESS: the exit status of npu-smi errors is not documented; C tools returning -1 give 255.
ERROR_RC = 255
NOT_STARTED_TEXT = "dcmi module initialize failed. ret is -8005"

# Default error of the "alarm" fault: the real 910 sample (npu-smi-info-t-health-i0-c0-alarm-910).
ALARM_CODES = ["A4025021", "8C03A000", "8C084E00"]
ALARM_INFO = [
    "ascend_monitor adda heart beat lost error",
    "node type=process-manager, sensor type=General Software, event state=The process start "
    "failed or exit abnormally",
    "node type=adda, sensor type=Heartbeat Sensor, event state=Heartbeat Lost.",
]

# Column geometry of the layouts seen in real output.
#   cols: widths of the three table segments (between '+'), ver_col: column of "Version:",
#   id_w: width of the NPU/Chip id inside the first cell, r1/r2: widths of the metric columns
#   (the last one is unpadded), hp_w/pair_w: width of "used" in "used / total" pairs,
#   chip_sep: separator between chips of one NPU, proc: widths of the process-table cells
#   that split the third segment.
LAYOUTS = {
    # 910/910B/A3 up to 25.3 (910b3-8card-23.0.7, 910b4-24.1.rc3, 910prob-24.1.0, a3-24.1.rc3.7)
    "hbm96": {
        "cols": (27, 15, 52),
        "ver_col": 35,
        "id_w": 6,
        "r1": (("Power(W)", 12), ("Temp(C)", 18), ("Hugepages-Usage(page)", 0)),
        "r2": (("AICore(%)", 12), ("Memory-Usage(MB)", 18), ("HBM-Usage(MB)", 0)),
        "hp_w": 5,
        "pair_w": 5,
        "chip_sep": "plain",
        "proc": (("Process name", 26), ("Process memory(MB)", 25)),
    },
    # 25.5 and later (910b2-2card-26.0.rc1-wide-with-container-pid)
    "wide116": {
        "cols": (27, 15, 70),
        "ver_col": 46,
        "id_w": 6,
        "r1": (("Power(W)", 21), ("Temp(C)", 24), ("Hugepages-Usage(page)", 0)),
        "r2": (("AICore(%)", 21), ("Memory-Usage(MB)", 24), ("HBM-Usage(MB)", 0)),
        "hp_w": 5,
        "pair_w": 5,
        "chip_sep": "plain",
        "proc": (
            ("Process name", 20),
            ("Process memory(MB)", 23),
            ("Process id in container", 25),
        ),
    },
    # 310P/310B from 23.0 (310p3-300i-duo-25.2.0, 310b1-soc-23.0.rc3); process table: GUESS
    "ddr106": {
        "cols": (31, 17, 54),
        "ver_col": 51,
        "id_w": 8,
        "r1": (("Power(W)", 13), ("Temp(C)", 18), ("Hugepages-Usage(page)", 0)),
        "r2": (("AICore(%)", 13), ("Memory-Usage(MB)", 0)),
        "hp_w": 6,
        "pair_w": 5,
        "chip_sep": "columns",
        "proc": (("Process name", 28), ("Process memory(MB)", 25)),
    },
    # 310P with 22.0 (310p3-1card-22.0.0-driver-22.0.2); process table: GUESS
    "ddr94": {
        "cols": (19, 17, 54),
        "ver_col": 39,
        "id_w": 8,
        "r1": (("Power(W)", 13), ("Temp(C)", 18), ("Hugepages-Usage(page)", 0)),
        "r2": (("AICore(%)", 13), ("Memory-Usage(MB)", 0)),
        "hp_w": 5,
        "pair_w": 5,
        "chip_sep": "columns",
        "proc": (("Process name", 28), ("Process memory(MB)", 25)),
    },
    # first-generation 310 (310-atlas200dk-21.0.3.1); process table: GUESS
    "old80": {
        "cols": (19, 17, 40),
        "ver_col": 39,
        "id_w": 8,
        "r1": (("Power(W)", 18), ("Temp(C)", 0)),
        "r2": (("AICore(%)", 18), ("Memory-Usage(MB)", 0)),
        "hp_w": 5,
        "pair_w": 5,
        "chip_sep": "columns",
        "proc": (("Process name", 20), ("Process memory(MB)", 19)),
    },
}

HBM_FAMILIES = ("910", "910b", "a3", "a5")


class NpuSmiError(Exception):
    """An error npu-smi prints (text) and exits with (rc)."""

    def __init__(self, text, rc=ERROR_RC):
        super().__init__(text)
        self.text = text
        self.rc = rc


# ----------------------------------------------------------------------------- helpers


def sim_root():
    return os.environ.get("ASCEND_SIM_ROOT") or "/"


def rooted(root, path):
    return os.path.join(root, path.lstrip("/"))


def read_kv(path):
    """KEY=VALUE lines of a file as a dict ({} when missing)."""
    out = {}
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    out[key.strip()] = value.strip()
    except OSError:
        pass
    return out


def install_path(root):
    info = read_kv(rooted(root, "etc/ascend_install.info"))
    return info.get("Driver_Install_Path_Param") or "/usr/local/Ascend"


def major_minor(version):
    nums = re.findall(r"\d+", str(version or ""))
    if len(nums) < 2:
        return (0, 0)
    return (int(nums[0]), int(nums[1]))


def layout_name(state, tool_version):
    if state.get("layout"):
        return state["layout"]
    family = state.get("family")
    version = major_minor(tool_version)
    if family in HBM_FAMILIES:
        return "wide116" if version >= (25, 5) else "hbm96"
    if family == "310":
        return "old80"
    return "ddr94" if version < (23, 0) else "ddr106"


def fmt_num(value):
    if value is None:
        return "NA"
    if isinstance(value, float):
        return "%.1f" % value
    return str(value)


def fmt_pair(used, total, width):
    if used is None or total is None:
        return "NA"
    return "%s/ %s" % (str(used).ljust(width), total)


def faults_for(state, name, npu=None, chip=None):
    out = []
    for fault in state.get("faults", []):
        if fault.get("name") != name:
            continue
        if npu is not None and fault.get("npu") not in (None, npu):
            continue
        if chip is not None and fault.get("chip") not in (None, chip):
            continue
        out.append(fault)
    return out


def effective_chip(state, npu, chip):
    """The chip as shown, after the fault knobs (alarm, overtemp) are applied."""
    shown = dict(chip)
    shown.setdefault("error_codes", [])
    shown.setdefault("error_info", [])
    for fault in faults_for(state, "overtemp", npu["id"], chip["chip"]):
        shown["temp_c"] = fault.get("temp", 85)
    for fault in faults_for(state, "alarm", npu["id"], chip["chip"]):
        shown["health"] = fault.get("health", "Alarm")
        shown["error_codes"] = fault.get("codes") or list(ALARM_CODES)
        shown["error_info"] = fault.get("info") or list(ALARM_INFO)
    return shown


def processes(state, visible_npus):
    rows = [dict(p) for p in state.get("processes", [])]
    for fault in faults_for(state, "busy"):
        rows.append(
            {
                "npu": fault.get("npu", 0) if fault.get("npu") is not None else 0,
                "chip": fault.get("chip") or 0,
                "pid": fault.get("pid", 4242),
                "name": fault.get("process", "python3"),
                "memory_mb": fault.get("memory", 3072),
                "container_pid": fault.get("container_pid"),
            }
        )
    ids = {npu["id"] for npu in visible_npus}
    return [row for row in rows if row["npu"] in ids]


# ----------------------------------------------------------------------------- context


class Context:
    """What one npu-smi invocation sees: state, versions and the visible chips."""

    def __init__(self, root=None, state=None, tool_version=None, driver_version=None):
        self.root = root or sim_root()
        path = install_path(self.root)
        if state is None:
            for relpath in (STATE_RELPATH, path + "/driver/" + STATE_COPY_RELPATH):
                try:
                    with open(rooted(self.root, relpath), encoding="utf-8") as handle:
                        state = json.load(handle)
                    break
                except (OSError, ValueError):
                    state = None
        self.state = state
        drv = read_kv(rooted(self.root, path + "/driver/version.info"))
        self.driver_version = driver_version or drv.get("Version")
        self.driver_info = drv
        self.tool_version = (
            tool_version
            or (state or {}).get("npu_smi_version")
            or TOOL_VERSION
            or self.driver_version
            or "NA"
        )
        if self.driver_version is None:
            self.driver_version = self.tool_version
        fw = read_kv(rooted(self.root, path + "/firmware/version.info"))
        self.firmware_version = (state or {}).get("firmware_active", fw.get("Version"))

    def check_started(self):
        if self.state is None or faults_for(self.state, "device-not-started"):
            raise NpuSmiError(NOT_STARTED_TEXT + "\n")

    def visible_npus(self):
        """NPUs with the chips whose /dev/davinci<device> exists in this (mount) namespace."""
        out = []
        for npu in self.state.get("npus", []):
            chips = [
                effective_chip(self.state, npu, chip)
                for chip in npu["chips"]
                if os.path.lexists(rooted(self.root, "dev/davinci%d" % chip["device"]))
            ]
            if chips:
                shown = dict(npu)
                shown["chips"] = chips
                out.append(shown)
        return out

    def npu(self, npu_id):
        for npu in self.visible_npus():
            if npu["id"] == npu_id:
                return npu
        raise NpuSmiError("Invalid card id.\nError parameter of -i\n%s\n" % USAGE_LINE)


# ----------------------------------------------------------------------------- npu-smi info


def _cell(text, width):
    return " " + text.ljust(width - 1)


def _metrics(columns, values):
    parts = []
    for (_title, width), value in zip(columns, values):
        parts.append(value.ljust(width) if width else value)
    return "".join(parts)


def render_info(ctx):
    lay = LAYOUTS[layout_name(ctx.state, ctx.tool_version)]
    w1, w2, w3 = lay["cols"]
    width = w1 + w2 + w3 + 4
    family = ctx.state.get("family")
    a3 = family == "a3"
    plain = "+" + "-" * (width - 2) + "+"
    dashes = "+" + "+".join("-" * w for w in lay["cols"]) + "+"
    equals = "+" + "+".join("=" * w for w in lay["cols"]) + "+"

    def row(c1, c2, c3):
        return "|%s|%s|%s|" % (_cell(c1, w1), _cell(c2, w2), _cell(c3, w3))

    def idcell(a, b=""):
        return str(a).ljust(lay["id_w"]) + str(b) if b != "" else str(a)

    head = "npu-smi %s" % ctx.tool_version
    version_line = (
        "| " + head.ljust(lay["ver_col"] - 2) + "Version: " + str(ctx.driver_version)
    )
    lines = [plain, version_line.ljust(width - 1) + "|", dashes]
    r1_titles = [title for title, _width in lay["r1"]]
    r2_titles = [title for title, _width in lay["r2"]]
    if family in HBM_FAMILIES:
        second_title = "Chip" + (" " * (lay["id_w"] - 4) + "Phy-ID" if a3 else "")
    else:
        second_title = "Chip".ljust(lay["id_w"]) + "Device"
    lines.append(
        row(
            "NPU".ljust(lay["id_w"]) + "Name",
            "Health",
            _metrics(lay["r1"], r1_titles),
        )
    )
    lines.append(row(second_title, "Bus-Id", _metrics(lay["r2"], r2_titles)))
    lines.append(equals)
    npus = ctx.visible_npus()
    for npu in npus:
        for index, chip in enumerate(npu["chips"]):
            if index:
                lines.append(plain if lay["chip_sep"] == "plain" else dashes)
            power = chip.get("power_w")
            power_text = fmt_num(power)
            if power is None and a3:
                power_text = "-"
            r1 = [power_text, fmt_num(chip.get("temp_c"))]
            if len(lay["r1"]) == 3:
                r1.append(
                    fmt_pair(
                        chip.get("hugepages_used"),
                        chip.get("hugepages_total"),
                        lay["hp_w"],
                    )
                )
            r2 = [
                fmt_num(chip.get("aicore_pct")),
                fmt_pair(
                    chip.get("memory_used_mb"),
                    chip.get("memory_total_mb"),
                    lay["pair_w"],
                ),
            ]
            if len(lay["r2"]) == 3:
                r2.append(
                    fmt_pair(
                        chip.get("hbm_used_mb"), chip.get("hbm_total_mb"), lay["pair_w"]
                    )
                )
            lines.append(
                row(
                    idcell(npu["id"], npu["name"]),
                    chip.get("health", "OK"),
                    _metrics(lay["r1"], r1),
                )
            )
            if family in HBM_FAMILIES:
                chip_id = idcell(chip["chip"], chip["phy_id"] if a3 else "")
            else:
                chip_id = idcell(chip["chip"], chip["device"])
            lines.append(
                row(chip_id, chip.get("bus_id") or "NA", _metrics(lay["r2"], r2))
            )
        lines.append(equals)
    lines.extend(render_processes(ctx, lay, npus, dashes, equals, width))
    return "\n".join(lines) + "\n"


def render_processes(ctx, lay, npus, dashes, equals, width):
    w1, w2 = lay["cols"][:2]
    proc_cols = lay["proc"]

    def prow(c1, c2, rest):
        cells = "".join(
            "|" + (" " + value).ljust(cw)
            for value, (_title, cw) in zip(rest, proc_cols)
        )
        return "|%s|%s%s|" % (_cell(c1, w1), _cell(c2, w2), cells)

    lines = [
        dashes,
        prow("NPU     Chip", "Process id", [title for title, _width in proc_cols]),
        equals,
    ]
    rows = processes(ctx.state, npus)
    for npu in npus:
        mine = [proc for proc in rows if proc["npu"] == npu["id"]]
        if not mine:
            lines.append(
                ("| No running processes found in NPU %d" % npu["id"]).ljust(width - 1)
                + "|"
            )
            lines.append(equals)
            continue
        for proc in mine:
            values = [proc.get("name") or "", fmt_num(proc.get("memory_mb"))]
            if len(proc_cols) == 3:
                cpid = proc.get("container_pid")
                values.append("NA" if cpid is None else str(cpid))
            lines.append(
                prow(
                    str(proc["npu"]).ljust(8) + str(proc["chip"]),
                    str(proc["pid"]),
                    values,
                )
            )
            lines.append(equals)
    return lines


# ----------------------------------------------------------------------------- key/value


def kv(key, value, indent="        "):
    return "%s%s: %s" % (indent, key.ljust(31), value)


def render_list(ctx):
    npus = ctx.visible_npus()
    blocks = [kv("Total Count", len(npus))]
    for npu in npus:
        blocks.append(
            "\n".join([kv("NPU ID", npu["id"]), kv("Chip Count", len(npu["chips"]))])
        )
    return "\n\n".join(blocks) + "\n"


def render_mapping(ctx):
    indent = "        "
    lines = [
        indent
        + "NPU ID".ljust(31)
        + "Chip ID".ljust(31)
        + "Chip Logic ID".ljust(31)
        + "Chip Name".ljust(30)
    ]
    for npu in ctx.visible_npus():
        for chip in npu["chips"]:
            lines.append(
                indent
                + str(npu["id"]).ljust(31)
                + str(chip["chip"]).ljust(31)
                + str(chip["device"]).ljust(31)
                + "Ascend %s" % npu["name"]
            )
        if ctx.state.get("mcu"):
            lines.append(
                indent
                + str(npu["id"]).ljust(31)
                + str(len(npu["chips"])).ljust(31)
                + "-".ljust(31)
                + "Mcu".ljust(30)
            )
    return "\n".join(lines) + "\n"


def _in_range(version, spec):
    """True when ``version`` is inside one of the ``[lo,hi]`` ranges of ``spec``."""

    def key(text):
        return [int(x) if x.isdigit() else -1 for x in re.findall(r"\d+|rc", text)]

    for lo, hi in re.findall(r"\[([^,\]]+),([^\]]+)\]", spec or ""):
        if key(lo) <= key(version) <= key(hi):
            return True
    return False


def compatibility(ctx):
    if not ctx.firmware_version:
        return "NA"
    spec = ctx.driver_info.get("compatible_version_fw")
    if spec is None:
        return "NA"
    # GUESS: only "OK" has been seen; a firmware outside the driver's range is shown as "NOT OK".
    return "OK" if _in_range(ctx.firmware_version, spec) else "NOT OK"


def _hex_id(value, upper):
    digits = value[2:] if value.lower().startswith("0x") else value
    return "0x" + (digits.upper() if upper else digits.lower())


def render_board(ctx, npu, chip_id=None):
    state = ctx.state
    new_style = major_minor(ctx.tool_version) >= (25, 0)
    firmware = ctx.firmware_version or "NA"
    if chip_id is not None:
        chip = _chip(npu, chip_id)
        seed = npu["id"] * 16 + chip["chip"]
        lines = [
            kv("NPU ID", npu["id"]),
            kv("Chip ID", chip["chip"]),
            kv("Chip Type", "Ascend"),
            kv("Chip Name", npu["name"]),
            kv("Chip Version", "V1"),
            kv("Board ID", npu.get("board_id", state.get("board_id", "NA"))),
            kv("PCB ID", "NA"),
            kv("BOM ID", 1),
            kv("VDie ID", _die_id(seed, 0x42C711D4)),
            kv("NDie ID", _die_id(seed, 0x27216594)),
            kv("Chip Position ID", chip["chip"]),
            kv("PCIe Bus Info", chip.get("bus_id") or "NA"),
            kv("Firmware Version", firmware),
        ]
        return "\n".join(lines) + "\n"
    first = npu["chips"][0]
    lines = [kv("NPU ID", npu["id"])]
    if major_minor(ctx.tool_version) >= (24, 1):
        lines += [
            kv("Product Name", npu.get("product_name") or "NA"),
            kv("Model", "NA"),
            kv("Manufacturer", "Huawei"),
            kv("Serial Number", npu.get("serial") or "NA"),
        ]
    lines += [
        kv("Software Version", ctx.driver_version),
        kv("Firmware Version", firmware),
        kv("Compatibility", compatibility(ctx)),
        kv("Board ID", npu.get("board_id", state.get("board_id", "NA"))),
        kv("PCB ID", "A"),
        kv("BOM ID", 1),
        kv("PCIe Bus Info", first.get("bus_id") or "NA"),
        kv("Slot ID", npu.get("slot", 0)),
        kv("Class ID", "NA"),
        kv("PCI Vendor ID", _hex_id("0x19e5", new_style)),
        kv("PCI Device ID", _hex_id("0x" + state.get("pci_device", "0"), True)),
        kv(
            "Subsystem Vendor ID",
            _hex_id(state.get("subsystem_vendor", "0x19e5"), new_style),
        ),
        kv("Subsystem Device ID", _hex_id(state.get("subsystem_device", "0"), True)),
        kv("Chip Count", len(npu["chips"])),
    ]
    return "\n".join(lines) + "\n"


def _die_id(seed, base):
    words = [(base + seed * 0x01010101 + i * 0x11111111) & 0xFFFFFFFF for i in range(5)]
    return " ".join("%08X" % word for word in words)


def _chip(npu, chip_id):
    for chip in npu["chips"]:
        if chip["chip"] == chip_id:
            return chip
    raise NpuSmiError("Invalid chip id.\nError parameter of -c\n%s\n" % USAGE_LINE)


def render_health(ctx, npu, chip_id):
    chip = _chip(npu, chip_id)
    codes = chip.get("error_codes") or []
    info = chip.get("error_info") or []
    lines = [
        kv("Health Status", chip.get("health", "OK")),
        kv("Error Code", " ".join(codes) if codes else "NA"),
        kv("Error Information", info[0] if info else "NA"),
    ]
    for extra in info[1:]:
        lines.append("")
        lines.append(kv("", extra))
    return "\n".join(lines) + "\n"


def _rate(used, total):
    if not total or used is None:
        return 0
    return round(100.0 * used / total)


def render_usages(ctx, npu):
    blocks = ["\n".join([kv("NPU ID", npu["id"]), kv("Chip Count", len(npu["chips"]))])]
    a2 = ctx.state.get("family") in ("910b", "a3", "a5")
    for chip in npu["chips"]:
        lines = [
            kv("DDR Capacity(MB)", chip.get("memory_total_mb") or 0),
            kv(
                "DDR Usage Rate(%)",
                _rate(chip.get("memory_used_mb"), chip.get("memory_total_mb")),
            ),
            kv("DDR Hugepages Total(page)", chip.get("hugepages_total") or 0),
            kv(
                "DDR Hugepages Usage Rate(%)",
                _rate(chip.get("hugepages_used"), chip.get("hugepages_total")),
            ),
        ]
        if chip.get("hbm_total_mb") is not None:
            lines += [
                kv("HBM Capacity(MB)", chip.get("hbm_total_mb")),
                kv(
                    "HBM Usage Rate(%)",
                    _rate(chip.get("hbm_used_mb"), chip.get("hbm_total_mb")),
                ),
            ]
        lines.append(kv("Aicore Usage Rate(%)", chip.get("aicore_pct") or 0))
        if a2:
            lines.append(kv("Aivector Usage Rate(%)", 0))
        lines += [
            kv("Aicpu Usage Rate(%)", 0),
            kv("Ctrlcpu Usage Rate(%)", 6 if a2 else 0),
            kv("DDR Bandwidth Usage Rate(%)", 0),
        ]
        if chip.get("hbm_total_mb") is not None:
            lines.append(kv("HBM Bandwidth Usage Rate(%)", 0))
        if a2:
            lines.append(kv("NPU Utilization(%)", chip.get("aicore_pct") or 0))
            lines.append(kv("Aicube Usage Rate(%)", 0))
        lines.append(kv("Chip ID", chip["chip"]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def render_temp(ctx, npu):
    blocks = ["\n".join([kv("NPU ID", npu["id"]), kv("Chip Count", len(npu["chips"]))])]
    for chip in npu["chips"]:
        blocks.append(
            "\n".join(
                [
                    kv("NPU Temperature (C)", chip.get("temp_c")),
                    kv("Chip ID", chip["chip"]),
                ]
            )
        )
    if ctx.state.get("mcu"):
        blocks.append(
            "\n".join(
                [
                    kv("LM75A_TE (C)", 36),
                    kv("LM75B_TE (C)", 36),
                    kv("Chip Name", "MCU"),
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"


# ----------------------------------------------------------------------------- product, topo, MCU

# Product Type by model where a real output names it: 310P3 "Atlas 300I Pro" and 300I Duo
# "Atlas 300I Duo" (npu-smi info -t product of a 300I Duo in a public Go test fixture; the
# names MindCluster's dcmi_get_product_type callers know). Other models: a per-NPU
# "product_type" in the state, else NA (GUESS: what npu-smi shows for a field the board does
# not report, as "Model : NA" in -t board).
PRODUCT_TYPE = {"310P3": "Atlas 300I Pro", "300I-Duo": "Atlas 300I Duo"}
# MCU version when the state names none: the factory MCU of a public 910B4 x 8 capture
# (npu-smi upgrade -b mcu -i 0 before its upgrade); GUESS for every other model.
DEFAULT_MCU_VERSION = "23.3.13"
TOPO_LEGEND = """Legend:

  X    = Self
  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.
  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.
  PIX  = Path traversing a single PCIe switch
  PXB  = Path traversing multiple PCIe switches
  HCCS = Connection traversing HCCS.
  NA   = Unknown relationship.
"""


def product_type(state, npu):
    return npu.get("product_type") or PRODUCT_TYPE.get(state.get("model"), "NA")


def render_product(ctx, npu, chip_id=None):
    """npu-smi info -t product -i N [-c C]: with -c the one line of Huawei's doc example;
    without, the NPU ID / Chip Count head and one block per chip, as -t usages."""
    value = product_type(ctx.state, npu)
    if chip_id is not None:
        _chip(npu, chip_id)
        return kv("Product Type", value) + "\n"
    blocks = ["\n".join([kv("NPU ID", npu["id"]), kv("Chip Count", len(npu["chips"]))])]
    for chip in npu["chips"]:
        blocks.append(
            "\n".join([kv("Product Type", value), kv("Chip ID", chip["chip"])])
        )
    return "\n\n".join(blocks) + "\n"


def cpu_affinity(npu, chip):
    """The CPUs next to an NPU: the state's, else by PCI bus the NUMA layout of the public
    8 x 910B3 capture (a Kunpeng 920 with 4 x 48 cores: bus 0x00-0x3f CPUs 0-23, 0x40-0x7f
    48-71, 0x80-0xbf 96-119, 0xc0-0xff 144-167; GUESS for other machines)."""
    if npu.get("cpu_affinity"):
        return npu["cpu_affinity"]
    try:
        bus = int(chip["bus_id"].split(":")[1], 16)
    except (KeyError, IndexError, ValueError, AttributeError):
        return "NA"
    first = (bus >> 6) * 48
    return "%d-%d" % (first, first + 23)


def topo_link(state, a, b):
    """The path between two NPUs: HCCS between every pair of a 910B/A3 module (the public
    8 x 910B3 capture); Atlas 800 9000 (910): HCCS inside each group of four, SYS between
    them; PCIe cards (310P and others): SYS (GUESSES)."""
    if a == b:
        return "X"
    family = state.get("family")
    if family in ("910b", "a3"):
        return "HCCS"
    if family == "910" and a // 4 == b // 4:
        return "HCCS"
    return "SYS"


def render_topo(ctx):
    """npu-smi info -t topo: the matrix of the visible NPUs and their CPU affinity, then the
    legend (the 8 x 910B3 capture: a tab and 3 blanks before the header, 11-wide columns)."""
    rows = [(npu, chip) for npu in ctx.visible_npus() for chip in npu["chips"][:1]]
    names = ["NPU%d" % npu["id"] for npu, _chip in rows]
    lines = ["\t   " + "".join(name.ljust(11) for name in names) + "CPU Affinity"]
    for npu, chip in rows:
        cells = [topo_link(ctx.state, npu["id"], other["id"]) for other, _c in rows]
        lines.append(
            ("NPU%d" % npu["id"]).ljust(11)
            + "".join(cell.ljust(11) for cell in cells)
            + cpu_affinity(npu, chip)
        )
    return "\n".join(lines) + "\n\n" + TOPO_LEGEND


def render_mcu_version(ctx, npu):
    """npu-smi upgrade -b mcu -i N: the one line of Huawei's quick-installation guide and the
    910B4 capture."""
    version = (
        npu.get("mcu_version") or ctx.state.get("mcu_version") or DEFAULT_MCU_VERSION
    )
    return kv("Version", version) + "\n"


UPGRADE_USAGE = (
    "Usage: npu-smi upgrade <-h|-t type|-q type|-b type|-a type> [Options...]"
)


def run_upgrade(args, ctx):
    """npu-smi upgrade: only the version query of the MCU (-b mcu -i N) is simulated."""
    opts = {}
    args = list(args)
    while args:
        flag = args.pop(0)
        if flag in ("-h", "--help"):
            return 0, UPGRADE_USAGE + "\n"
        if flag in ("-t", "-q", "-b", "-a", "-i", "-f") and args:
            opts[flag] = args.pop(0)
        else:
            return ERROR_RC, "Error parameter of %s\n%s\n" % (flag, UPGRADE_USAGE)
    if opts.get("-b") != "mcu" or set(opts) != {"-b", "-i"}:
        # flashing (-t), status (-q), activation (-a) and bootloader/vrd are not simulated
        return (
            ERROR_RC,
            "ascend-sim: only npu-smi upgrade -b mcu -i <id> is simulated\n",
        )
    ctx = ctx or Context()
    try:
        ctx.check_started()
        return 0, render_mcu_version(ctx, ctx.npu(_int_arg(opts["-i"], "-i")))
    except NpuSmiError as err:
        return err.rc, err.text


# ----------------------------------------------------------------------------- command line


def _int_arg(value, flag):
    if value is None or not re.fullmatch(r"\d+", value):
        raise NpuSmiError(
            "Invalid %s.\nError parameter of %s\n%s\n"
            % ("card id" if flag == "-i" else "chip id", flag, USAGE_LINE)
        )
    return int(value)


def run(argv, ctx=None):
    """Return (rc, output) of ``npu-smi <argv>``."""
    if not argv or argv[0] in ("-h", "--help"):
        return 0, USAGE_LINE + "\n"
    if argv[0] == "upgrade":
        return run_upgrade(argv[1:], ctx)
    if argv[0] != "info":
        return ERROR_RC, "Invalid command.\n%s\n" % USAGE_LINE
    opts = {}
    args = list(argv[1:])
    while args:
        flag = args.pop(0)
        if flag in ("-l", "-m", "-h"):
            opts[flag] = True
        elif flag in ("-t", "-i", "-c"):
            if not args:
                return ERROR_RC, "Error parameter of %s\n%s\n" % (flag, USAGE_LINE)
            opts[flag] = args.pop(0)
        else:
            return ERROR_RC, "Error parameter of %s\n%s\n" % (flag, USAGE_LINE)
    if opts.get("-h"):
        return 0, USAGE_LINE + "\n"
    ctx = ctx or Context()
    try:
        ctx.check_started()
        if opts.get("-l"):
            return 0, render_list(ctx)
        if opts.get("-m"):
            return 0, render_mapping(ctx)
        kind = opts.get("-t")
        if kind == "topo":
            return 0, render_topo(ctx)
        if kind is None:
            if "-i" in opts:
                return 0, render_board(ctx, ctx.npu(_int_arg(opts["-i"], "-i")))
            return 0, render_info(ctx)
        npu = ctx.npu(_int_arg(opts.get("-i"), "-i"))
        chip = _int_arg(opts["-c"], "-c") if "-c" in opts else None
        if kind == "board":
            return 0, render_board(ctx, npu, chip)
        if kind == "health":
            return 0, render_health(ctx, npu, 0 if chip is None else chip)
        if kind == "usages":
            return 0, render_usages(ctx, npu)
        if kind == "temp":
            return 0, render_temp(ctx, npu)
        if kind == "product":
            return 0, render_product(ctx, npu, chip)
        return ERROR_RC, "Invalid type.\nError parameter of -t\n%s\n" % USAGE_LINE
    except NpuSmiError as err:
        return err.rc, err.text


HALF_INSTALL_WARNING = "The driver package may not be completely installed"


def half_installed(root=None):
    """A driver in ascend_install.info without its final Driver_Install_Status line."""
    info = read_kv(rooted(root or sim_root(), "etc/ascend_install.info"))
    return "Driver_Install_Type" in info and "Driver_Install_Status" not in info


GARBAGE_TEXT = "\x1b[?25l#### dcmi: ??? \ufffd\ufffd 0x7f3a\n+----+----+\n| ?? |\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    state = Context().state if argv and argv[0] == "info" else None
    if state is not None and faults_for(state, "npu-smi-hang"):
        # A DCMI call that never returns: sleep until killed (the caller's time-out).
        while True:
            time.sleep(3600)
    if state is not None and faults_for(state, "npu-smi-garbage"):
        sys.stdout.write(GARBAGE_TEXT)
        sys.stdout.flush()
        return 0
    rc, text = run(argv)
    if half_installed():
        # The wording is real (driver-installer-rules.md); where it is printed is a GUESS.
        text = "Warning: %s\n%s" % (HALF_INSTALL_WARNING, text)
    sys.stdout.write(text)
    sys.stdout.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main())
