# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Data of the simulated world: NPU models, release trains, package names, version files.

Every value comes from /work/shared/ascend (version-matrix.md, installed-files/, fixtures) or is
marked ``GUESS`` right where it is defined (and listed in README.md, "Assumptions").
"""

from __future__ import annotations

import re

HUAWEI_VENDOR = "0x19e5"
PCI_CLASS_ACCELERATOR = "0x120000"  # "Processing accelerators"

# PCI device ids (version-matrix.md section 4).
PCI_DEVICE_IDS = {
    "d100": "Ascend 310",
    "d105": "Ascend 310B (Atlas 200I A2)",
    "d107": "Ascend 310B (Atlas 200I DK A2)",
    "d500": "Ascend 310P (subsystem 0x0100 300I Pro, 0x0110 300I Duo)",
    "d801": "Ascend 910",
    "d802": "Ascend 910B (A2)",
    "d803": "Ascend 910_93 (A3)",
    "d806": "Atlas 350 (A5)",
}

# Bus numbers of real 8-card hosts (fixtures), reused for the first cards of a model.
_BUS_910B = ["C1", "C2", "81", "82", "01", "02", "41", "42"]  # 910b3-8card-23.0.7
_BUS_910 = ["C1", "81", "41", "01", "C2", "82", "42", "02"]  # 910prob-8card-24.1.0
# fmt: off
_BUS_A3 = [  # a3-ascend910-8npu-16chip-24.1.rc3.7, one bus per die
    "9D", "9F", "99", "9B", "95", "97", "91", "93",
    "8D", "8F", "89", "8B", "85", "87", "81", "83",
]
# fmt: on
_BUS_310P = ["01", "06", "0B", "10", "15", "1A", "1F", "24"]  # GUESS beyond 01/06


class Model:
    """One NPU model as ``hw-init --model`` knows it."""

    def __init__(self, key, **kw):
        self.key = key
        self.smi_name = kw.pop("smi_name", key)  # "Name" column of npu-smi info
        self.family = kw.pop(
            "family"
        )  # package chip: 910b, 910, 310p, a3, 310, 310b, a5
        self.pci_device = kw.pop("pci_device")
        self.revision = kw.pop("revision", "0x20")
        self.subsystem_vendor = kw.pop("subsystem_vendor", HUAWEI_VENDOR)
        self.subsystem_device = kw.pop("subsystem_device")
        self.board_id = kw.pop("board_id")
        self.chips_per_npu = kw.pop("chips_per_npu", 1)
        self.hbm_mb = kw.pop("hbm_mb", None)  # None: no HBM column (310 family)
        self.ddr_mb = kw.pop("ddr_mb", [0])  # DDR total per chip (cycled)
        self.ddr_used_mb = kw.pop("ddr_used_mb", 0)
        self.hbm_used_mb = kw.pop("hbm_used_mb", 0)
        self.power_w = kw.pop("power_w")  # None -> NA
        self.temp_c = kw.pop("temp_c")
        self.hugepages = kw.pop("hugepages", (0, 0))
        self.buses = kw.pop(
            "buses", None
        )  # None -> no PCI device (SoC boards, Bus-Id NA)
        self.bus_per_chip = kw.pop("bus_per_chip", False)
        self.mcu = kw.pop("mcu", False)  # -m shows an "Mcu" chip 1 (A2 boards)
        self.product_name = kw.pop("product_name", None)
        self.max_cards = kw.pop("max_cards", 16)
        self.guess = kw.pop("guess", "")
        if kw:
            raise TypeError("unknown model attributes: %s" % sorted(kw))

    @property
    def has_hbm(self):
        return self.hbm_mb is not None


def _m(key, **kw):
    return key, Model(key, **kw)


# fmt: off
MODELS = dict(
    [
        # 910B (A2): one chip per NPU, HBM only (DDR 0 / 0), MCU in `info -m`.
        _m("910B1", family="910b", pci_device="d802", subsystem_device="0x3000", board_id="0x30",
           hbm_mb=65536, hbm_used_mb=3353, power_w=95.0, temp_c=45, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDC_Bin5", max_cards=16),
        _m("910B2", family="910b", pci_device="d802", subsystem_device="0x3000", board_id="0x33",
           hbm_mb=65536, hbm_used_mb=3406, power_w=93.6, temp_c=44, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDC_Bin5", max_cards=16),
        _m("910B2C", family="910b", pci_device="d802", subsystem_device="0x3003", board_id="0x65",
           hbm_mb=65536, hbm_used_mb=3406, power_w=93.6, temp_c=44, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDB02-B2", max_cards=16),
        _m("910B3", family="910b", pci_device="d802", subsystem_device="0x3000", board_id="0x33",
           hbm_mb=65536, hbm_used_mb=3353, power_w=96.4, temp_c=45, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDC_Bin5", max_cards=16),
        _m("910B4", family="910b", pci_device="d802", subsystem_device="0x3002", board_id="0x34",
           hbm_mb=32768, hbm_used_mb=2847, power_w=89.6, temp_c=46, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDC_Bin5", max_cards=16),
        _m("910B4-1", family="910b", pci_device="d802", subsystem_device="0x3005", board_id="0x34",
           hbm_mb=65536, hbm_used_mb=2847, power_w=89.6, temp_c=46, buses=_BUS_910B, mcu=True,
           product_name="IT21HMDC_Bin5", max_cards=16),
        # First-generation 910 (Atlas 800 9000/9010): DDR and HBM pairs, subsystem 0x0200/0x0100.
        _m("910A", family="910", pci_device="d801", subsystem_vendor="0x0200", subsystem_device="0x0100",
           board_id="0x02", hbm_mb=32768, hbm_used_mb=10, ddr_mb=[13553, 15665, 15665, 15567],
           ddr_used_mb=2100, power_w=77.0, temp_c=38, buses=_BUS_910, max_cards=8),
        _m("910ProA", family="910", pci_device="d801", subsystem_vendor="0x0200", subsystem_device="0x0100",
           board_id="0x02", hbm_mb=32768, hbm_used_mb=10, ddr_mb=[13553, 15665, 15665, 15567],
           ddr_used_mb=2100, power_w=77.0, temp_c=38, buses=_BUS_910, max_cards=8),
        _m("910ProB", family="910", pci_device="d801", subsystem_vendor="0x0200", subsystem_device="0x0100",
           board_id="0x02", hbm_mb=32768, hbm_used_mb=10, ddr_mb=[13553, 15665, 15665, 15567],
           ddr_used_mb=2100, power_w=77.0, temp_c=38, buses=_BUS_910, max_cards=8),
        _m("910PremiumA", family="910", pci_device="d801", subsystem_vendor="0x0200",
           subsystem_device="0x0100", board_id="0x02", hbm_mb=32768, hbm_used_mb=10,
           ddr_mb=[13553, 15665, 15665, 15567], ddr_used_mb=2100, power_w=77.0, temp_c=38,
           buses=_BUS_910, max_cards=8),
        # A3 (Atlas 800I A3 / 900 A3 PoD): 2 dies per NPU, "Chip  Phy-ID", one bus per die,
        # the second die shows Power "-" (a3 fixture).
        _m("A3", smi_name="Ascend910", family="a3", pci_device="d803", subsystem_device="0x3000",
           board_id="0xb1", chips_per_npu=2, hbm_mb=65536, hbm_used_mb=3400, power_w=180.0,
           temp_c=37, buses=_BUS_A3, bus_per_chip=True, max_cards=8,
           guess="subsystem 0x3000 and board id 0xb1 are GUESSES"),
        # 310P: DDR only, Hugepages column. 300I Pro = 1 chip, 300I Duo = 2 chips on one bus.
        _m("310P3", family="310p", pci_device="d500", revision="0x23", subsystem_device="0x0100",
           board_id="0x01", ddr_mb=[21527], ddr_used_mb=3841, power_w=None, temp_c=51,
           buses=_BUS_310P, max_cards=8),
        _m("300I-Duo", smi_name="310P3", family="310p", pci_device="d500", revision="0x23",
           subsystem_device="0x0110", board_id="0x06", chips_per_npu=2, ddr_mb=[44280, 43693],
           ddr_used_mb=1500, power_w=None, temp_c=45, buses=_BUS_310P, max_cards=8,
           guess="board id 0x06 is a GUESS"),
        # SoC / developer boards without a PCI bus id in npu-smi.
        _m("310", family="310", pci_device="d100", subsystem_device="0x0100", board_id="0x01",
           ddr_mb=[8192], ddr_used_mb=5324, power_w=12.8, temp_c=58, hugepages=None, max_cards=4,
           guess="subsystem/board ids are GUESSES"),
        _m("310B1", family="310b", pci_device="d107", subsystem_device="0x0100", board_id="0x01",
           ddr_mb=[11577], ddr_used_mb=4974, power_w=8.9, temp_c=54, hugepages=(15, 15),
           max_cards=1, guess="subsystem/board ids are GUESSES"),
        # A5 / Atlas 350: only the PCI id is known; the npu-smi columns are a GUESS (wide layout).
        _m("950PR", family="a5", pci_device="d806", subsystem_device="0x0100", board_id="0x18",
           hbm_mb=131072, hbm_used_mb=4096, power_w=120.0, temp_c=40, buses=_BUS_910B,
           max_cards=8, guess="everything except the PCI id d806 is a GUESS"),
    ]
)
# fmt: on


# AI cores per chip, as DCMI's chip info reports them (the device plugin's `servertype` label is
# Ascend910B-<n>). 910B3 = 20 is seen on real nodes (servertype Ascend910B-20); the rest are GUESSES.
AICORE_COUNT = {
    "910B1": 24,
    "910B2": 24,
    "910B2C": 24,
    "910B3": 20,
    "910B4": 20,
    "910B4-1": 20,
    "910A": 32,
    "910ProA": 32,
    "910ProB": 30,
    "910PremiumA": 32,
    "A3": 24,
    "310P3": 8,
    "300I-Duo": 8,
    "310": 2,
    "310B1": 2,
    "950PR": 32,
}
# DCMI chip name of an A3 die (npu-smi's Name column shows "Ascend910"): GUESS.
A3_CHIP_NAME = "910_9391"

# What DCMI's dcmi_get_product_type answers. MindCluster knows the 310P names "Atlas 300I Pro",
# "Atlas 300I Duo", "Atlas 300V Pro", "Atlas 300V" (component/ascend-device-plugin/pkg/common/
# proto.go Get310PProductType, ascend-common/api/default_name.go Atlas300IDuo); the other models
# answer -8255 (not supported), which MindCluster logs at debug level only. 910B/A3: GUESS.
PRODUCT_TYPE = {
    "310P3": "Atlas 300I Pro",
    "300I-Duo": "Atlas 300I Duo",
}

# Chip voltage as dcmi_get_device_voltage reports it, in 0.01 V (the exporter's
# npu_chip_info_voltage = value * 0.01). No real value is in the facts: GUESSES.
VOLTAGE_CENTIVOLT = {
    "910b": 88,
    "910": 88,
    "a3": 88,
    "310p": 80,
    "310": 80,
    "310b": 80,
    "a5": 88,
}

# dcmi_get_mainboard_id per model. MindCluster compares it only with A3 and A5 main boards
# (0x14, 0x18, 0x19, 0x1C, 0x1D; Atlas 350/950/850 ids); the value of A2 and 310P boards is not
# in the facts, so every model answers -8255 (not supported; MindCluster warns once at start).
MAINBOARD_ID = {}

# Families whose chips answer dcmi_get_device_multi_utilization_rate, the PCIe link bandwidth and
# HCCS calls (the exporter serves overall/cube utilisation on 910B/A3, PCIe bandwidth on 910B, HCCS
# on 910B/A3: /work/shared/ascend/npu-exporter-metrics.md, "Per device").
MULTI_UTIL_FAMILIES = ("910b", "a3")
PCIE_BANDWIDTH_FAMILIES = ("910b",)
HCCS_FAMILIES = ("910b", "a3")

# Line speed of an NPU's RoCE port as `hccn_tool -speed -g` shows it (Mb/s). GUESS: 200GE ports
# of Atlas 800T A2 (910B) and A3 boards, 100GE on first-generation 910.
PORT_SPEED_MBPS = {"910b": 200000, "a3": 200000, "910": 100000}


def model(key):
    try:
        return MODELS[key]
    except KeyError:
        raise KeyError(
            "unknown model %r (known: %s)" % (key, ", ".join(sorted(MODELS)))
        ) from None


def default_buses(mdl, count):
    """PCI bus numbers (2 hex digits) for ``count`` buses of a model."""
    known = list(mdl.buses or [])
    out = known[:count]
    nxt = 0x10
    while len(out) < count:
        candidate = "%02X" % nxt
        if candidate not in out and candidate not in known:
            out.append(candidate)
        nxt += 0x05
    return out


# --------------------------------------------------------------------------------------
# Release trains (version-matrix.md section 1)
# --------------------------------------------------------------------------------------

TRAINS = {
    # Real driver and firmware version.info files exist for this one; no CANN/MindCluster.
    "23.0.7": {
        "hdk": "23.0.7",
        "firmware": "7.1.0.11.220",
        "cann": None,
        "mindcluster": None,
    },
    "24.1.0": {
        "hdk": "24.1.0",
        "firmware": "7.5.0.2.220",
        "cann": "8.0.0",
        "mindcluster": "6.0.0",
    },
    "25.5.0": {
        "hdk": "25.5.0",
        "firmware": "7.8.0.5.216",
        "cann": "8.5.0",
        "mindcluster": "7.3.0",
    },
    # MindCluster 26.1.0 release notes pair it with HDK 26.1.0 and CANN 9.1.0; the firmware
    # number of HDK 26.1.0 is unknown: 7.9.0.1.210 is a GUESS.
    "26.1.0": {
        "hdk": "26.1.0",
        "firmware": "7.9.0.1.210",
        "cann": "9.1.0",
        "mindcluster": "26.1.0",
    },
}
DEFAULT_TRAINS = ("23.0.7", "24.1.0", "25.5.0", "26.1.0")
ARCHES = ("x86_64", "aarch64")
CHIPS = ("910b", "910", "310p", "a3")

# Driver /usr/local/Ascend/driver/version.info, in the key order of the real files.
DRIVER_VERSION_INFO = {
    # COPIED: installed-files/driver-version.info.23.0.7
    "23.0.7": [
        ("Version", "23.0.7"),
        ("ascendhal_version", "7.35.19"),
        ("aicpu_version", "1.0"),
        ("tdt_version", "1.0"),
        ("log_version", "1.0"),
        ("prof_version", "2.0"),
        ("dvppkernels_version", "1.1"),
        ("tsfw_version", "1.0"),
        ("Innerversion", "V100R001C15SPC012B220"),
        (
            "compatible_version",
            "[V100R001C29],[V100R001C30],[V100R001C13],[V100R001C15]",
        ),
        ("compatible_version_fw", "[7.0.0,7.1.99]"),
        ("package_version", "23.0.7"),
    ],
    # GUESS (shape of the real 24.1.rc1 file): range widened to the 7.5 firmware of the train.
    "24.1.0": [
        ("Version", "24.1.0"),
        ("ascendhal_version", "7.35.19"),
        ("aicpu_version", "1.0"),
        ("tdt_version", "1.0"),
        ("log_version", "1.0"),
        ("prof_version", "2.0"),
        ("dvppkernels_version", "1.1"),
        ("tsfw_version", "1.0"),
        ("Innerversion", "V100R001C19SPC002B220"),
        (
            "compatible_version",
            "[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]",
        ),
        ("compatible_version_fw", "[7.0.0,7.5.99]"),
        ("package_version", "24.1.0"),
    ],
    # GUESS
    "25.5.0": [
        ("Version", "25.5.0"),
        ("ascendhal_version", "7.35.23"),
        ("aicpu_version", "1.0"),
        ("tdt_version", "1.0"),
        ("log_version", "1.0"),
        ("prof_version", "2.0"),
        ("dvppkernels_version", "1.1"),
        ("tsfw_version", "1.0"),
        ("Innerversion", "V100R001C25SPC001B216"),
        (
            "compatible_version",
            "[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],"
            "[V100R001C21],[V100R001C23],[V100R001C25]",
        ),
        ("compatible_version_fw", "[7.0.0,7.8.99]"),
        ("package_version", "25.5.0"),
    ],
    # GUESS
    "26.1.0": [
        ("Version", "26.1.0"),
        ("ascendhal_version", "7.35.25"),
        ("aicpu_version", "1.0"),
        ("tdt_version", "1.0"),
        ("log_version", "1.0"),
        ("prof_version", "2.0"),
        ("dvppkernels_version", "1.1"),
        ("tsfw_version", "1.0"),
        ("Innerversion", "V100R001C27SPC001B210"),
        (
            "compatible_version",
            "[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23],"
            "[V100R001C25],[V100R001C26],[V100R001C27]",
        ),
        ("compatible_version_fw", "[7.0.0,7.9.99]"),
        ("package_version", "26.1.0"),
    ],
}

FIRMWARE_VERSION_INFO = {
    # COPIED: installed-files/firmware-version.info.7.1.0.11.220
    "7.1.0.11.220": [
        ("Version", "7.1.0.11.220"),
        ("firmware_version", "1.0"),
        ("package_version", "23.0.7"),
        ("compatible_version_drv", "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"),
    ],
    # GUESS (same pattern: the driver releases of the train and its RCs)
    "7.5.0.2.220": [
        ("Version", "7.5.0.2.220"),
        ("firmware_version", "1.0"),
        ("package_version", "24.1.0"),
        (
            "compatible_version_drv",
            "[23.0.0,23.0.0.],[24.1.rc1,24.1.rc1.],[24.1.rc2,24.1.rc2.],[24.1.rc3,24.1.rc3.],"
            "[24.1.0,24.1.0.]",
        ),
    ],
    # GUESS
    "7.8.0.5.216": [
        ("Version", "7.8.0.5.216"),
        ("firmware_version", "1.0"),
        ("package_version", "25.5.0"),
        (
            "compatible_version_drv",
            "[24.1.0,24.1.0.],[25.0.rc1,25.0.rc1.],[25.2.0,25.2.0.],[25.3.rc1,25.3.rc1.],"
            "[25.5.0,25.5.0.]",
        ),
    ],
    # GUESS (the firmware number itself is a guess too)
    "7.9.0.1.210": [
        ("Version", "7.9.0.1.210"),
        ("firmware_version", "1.0"),
        ("package_version", "26.1.0"),
        (
            "compatible_version_drv",
            "[25.5.0,25.5.0.],[26.0.rc1,26.0.rc1.],[26.1.0,26.1.0.]",
        ),
    ],
}

# CANN packages. innerversion/compatible_version of 8.5.0 are COPIED from
# installed-files/ascend_toolkit_install.info.8.5.0-new-layout; the others are GUESSES that
# follow the same shape (compatible_version lists the driver Innerversion families).
CANN = {
    "8.0.0": {
        "layout": "old",
        "innerversion": "V100R001C19SPC002B220",
        "compatible_version": "[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]",
        "nnae_nnrt": True,
    },
    "8.5.0": {
        "layout": "new",
        "innerversion": "V100R001C25SPC001B212",
        "compatible_version": (
            "[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23]"
        ),
        "nnae_nnrt": False,
        # CANN 8.5.0 release notes (hiascend CANNCommunityEdition/850 releasenote_0001): the new
        # paths "保持与历史版本路径兼容" - ascend-toolkit/set_env.sh and ascend-toolkit/latest/*
        # keep working (Huawei's own 8.5.0 image, Ascend/cann-container-image
        # cann/8.5.0-910b-ubuntu22.04-py3.11/Dockerfile, sources ascend-toolkit/set_env.sh).
        # Not stated for 9.x.
        "toolkit_compat": True,
    },
    "9.1.0": {
        "layout": "new",
        "innerversion": "V100R001C27SPC001B210",
        "compatible_version": (
            "[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23],[V100R001C25],[V100R001C27]"
        ),
        "nnae_nnrt": False,
    },
}

# Ascend Docker Runtime (MindCluster) generations (container-runtime-config.md section 2).
DOCKER_RUNTIME = {
    "6.0.0": {"generation": "legacy", "eula": False, "info_keys": "6.0"},
    "7.3.0": {"generation": "legacy", "eula": False, "info_keys": "7.x"},
    "26.1.0": {"generation": "modern", "eula": True, "info_keys": "master"},
}


def version_key(version):
    """Sortable key of an Ascend version: 25.0.rc1.1 < 25.0.0 < 25.0.1; case-insensitive."""
    parts = []
    for token in str(version).lower().split("."):
        match = re.fullmatch(r"(rc|t|b|alpha|beta)?(\d+)", token)
        if match is None:
            parts.append((0, 0, token))
        elif match.group(1):
            # An rc/beta is lower than the final release of the same prefix.
            parts.append((-1, int(match.group(2)), match.group(1)))
        else:
            parts.append((1, int(match.group(2)), ""))
    return tuple(parts)


def hdk_major_minor(version):
    """(major, minor) of an HDK version, e.g. 25.5 for 25.5.1 and 26.0 for 26.0.rc1."""
    nums = re.findall(r"\d+", str(version))
    if len(nums) < 2:
        return (0, 0)
    return (int(nums[0]), int(nums[1]))


# --------------------------------------------------------------------------------------
# Package file names (installer-cli.md)
# --------------------------------------------------------------------------------------


def driver_file(chip, version, arch):
    if chip == "a3":
        return "Atlas-A3-hdk-npu-driver_%s_linux-%s.run" % (version, arch)
    return "Ascend-hdk-%s-npu-driver_%s_linux-%s.run" % (chip, version, arch)


def firmware_file(chip, version):
    if chip == "a3":
        return "Atlas-A3-hdk-npu-firmware_%s.run" % version
    return "Ascend-hdk-%s-npu-firmware_%s.run" % (chip, version)


def cann_file(component, version, arch):
    return "Ascend-cann-%s_%s_linux-%s.run" % (component, version, arch)


def docker_runtime_file(version, arch):
    return "Ascend-docker-runtime_%s_linux-%s.run" % (version, arch)


def chip_label(chip):
    """Chip as it appears in upper-case labels (ASCEND-HDK-910B-NPU ...)."""
    return "A3" if chip == "a3" else chip.upper()


def version_info_text(pairs):
    return "".join("%s=%s\n" % (key, value) for key, value in pairs)
