# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated libdcmi.so through ctypes: what the driver installs, what the faults change."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest
from ascend_sim import dcmi, hardware
from simutil import driver_pkg

LIB = "/usr/local/Ascend/driver/lib64/driver/libdcmi.so"
VIEW = "/usr/local/Ascend/driver/lib64/driver/" + dcmi.VIEW_NAME

# Only a host whose gcc builds for another architecture skips: without gcc the library cannot
# be built at all, and every test below fails saying so (tools/bootstrap.sh debs installs gcc).
pytestmark = pytest.mark.skipif(
    dcmi.host_arch() not in (None, "x86_64"),
    reason="the library is built for the host (x86_64 packages)",
)


@pytest.fixture(autouse=True)
def _a_compiler():
    if shutil.which("gcc") is None:
        pytest.fail(
            "gcc not found: the simulated libdcmi.so cannot be built, so the driver packages "
            "carry no library. Install gcc and libc6-dev (tools/bootstrap.sh debs)",
            pytrace=False,
        )


class ChipInfo(ctypes.Structure):
    _fields_ = [
        ("chip_type", ctypes.c_char * 32),
        ("chip_name", ctypes.c_char * 32),
        ("chip_ver", ctypes.c_char * 32),
        ("aicore_cnt", ctypes.c_uint),
    ]


class HbmInfo(ctypes.Structure):
    _fields_ = [
        ("memory_size", ctypes.c_ulonglong),
        ("freq", ctypes.c_uint),
        ("memory_usage", ctypes.c_ulonglong),
        ("temp", ctypes.c_int),
        ("bandwith_util_rate", ctypes.c_uint),
    ]


class PcieInfo(ctypes.Structure):
    _fields_ = [
        ("venderid", ctypes.c_uint),
        ("subvenderid", ctypes.c_uint),
        ("deviceid", ctypes.c_uint),
        ("subdeviceid", ctypes.c_uint),
        ("domain", ctypes.c_int),
        ("bdf_busid", ctypes.c_uint),
        ("bdf_deviceid", ctypes.c_uint),
        ("bdf_funcid", ctypes.c_uint),
        ("reserve", ctypes.c_ubyte * 32),
    ]


def run_dcmi(node, script):
    """Run ``script`` in a fresh interpreter (the library keeps its init flag per process)."""
    code = (
        "import ctypes, json, sys\n"
        "lib = ctypes.CDLL(sys.argv[1])\n"
        "def call(name, *args):\n"
        "    return getattr(lib, name)(*args)\n" + script
    )
    result = subprocess.run(
        [sys.executable, "-c", code, node.p(LIB)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def driver(node):
    result = node.run(driver_pkg("24.1.0"), "--full", "--quiet")
    assert result.returncode == 0, result.stdout
    return node


def load(node):
    return ctypes.CDLL(node.p(LIB))


def cards(lib):
    num = ctypes.c_int()
    ids = (ctypes.c_int * 64)()
    assert lib.dcmi_get_card_list(ctypes.byref(num), ids, 64) == 0
    return list(ids[: num.value])


def test_installed_root_owned_and_reproducible(driver):
    info = os.stat(driver.p(LIB))
    assert stat.S_IMODE(info.st_mode) == 0o444 and info.st_uid == os.getuid()
    with open(driver.p(LIB), "rb") as handle:
        assert handle.read(4) == b"\x7fELF"
    with open(driver.p(LIB), "rb") as mine, open(dcmi.build_library(), "rb") as built:
        assert mine.read() == built.read()
    assert "init 0" in driver.read(VIEW).splitlines()


def test_cards_chips_and_values_as_npu_smi_shows_them(driver):
    out = run_dcmi(
        driver,
        "assert call('dcmi_init') == 0\n"
        "n = ctypes.c_int(); ids = (ctypes.c_int * 64)()\n"
        "assert call('dcmi_get_card_num_list', ctypes.byref(n), ids, 64) == 0\n"
        "t = ctypes.c_int(); p = ctypes.c_int(); h = ctypes.c_uint(); d = ctypes.c_int()\n"
        "v = ctypes.create_string_buffer(64)\n"
        "assert call('dcmi_get_driver_version', v, 64) == 0\n"
        "rows = []\n"
        "for card in ids[: n.value]:\n"
        "    assert call('dcmi_get_device_num_in_card', card, ctypes.byref(d)) == 0\n"
        "    assert call('dcmi_get_device_temperature', card, 0, ctypes.byref(t)) == 0\n"
        "    assert call('dcmi_get_device_power_info', card, 0, ctypes.byref(p)) == 0\n"
        "    assert call('dcmi_get_device_health', card, 0, ctypes.byref(h)) == 0\n"
        "    rows.append([card, d.value, t.value, p.value, h.value])\n"
        "print(json.dumps({'driver': v.value.decode(), 'rows': rows}))\n",
    )
    data = json.loads(out)
    assert data["driver"] == "24.1.0"
    state = driver.state()
    expected = [
        [
            npu["id"],
            1,
            npu["chips"][0]["temp_c"],
            round(npu["chips"][0]["power_w"] * 10),
            0,
        ]
        for npu in state["npus"]
    ]
    assert data["rows"] == expected


def test_structures(driver):
    lib = load(driver)
    assert lib.dcmi_init() == 0
    info = ChipInfo()
    assert lib.dcmi_get_device_chip_info(0, 0, ctypes.byref(info)) == 0
    assert (info.chip_type, info.chip_name, info.aicore_cnt) == (
        b"Ascend",
        b"910B3",
        20,
    )
    hbm = HbmInfo()
    assert lib.dcmi_get_device_hbm_info(3, 0, ctypes.byref(hbm)) == 0
    assert (hbm.memory_size, hbm.memory_usage) == (65536, 3353 + 3)
    pcie = PcieInfo()
    assert lib.dcmi_get_device_pcie_info_v2(2, 0, ctypes.byref(pcie)) == 0
    assert (pcie.venderid, pcie.deviceid, pcie.domain, pcie.bdf_busid) == (
        0x19E5,
        0xD802,
        0,
        0x81,
    )
    logic, phy, card, dev = (
        ctypes.c_int(),
        ctypes.c_uint(),
        ctypes.c_int(),
        ctypes.c_int(),
    )
    assert (
        lib.dcmi_get_device_logic_id(ctypes.byref(logic), 5, 0) == 0
        and logic.value == 5
    )
    assert lib.dcmi_get_device_phyid_from_logicid(5, ctypes.byref(phy)) == 0
    assert phy.value == 5
    assert (
        lib.dcmi_get_card_id_device_id_from_logicid(
            ctypes.byref(card), ctypes.byref(dev), 7
        )
        == 0
    )
    assert (card.value, dev.value) == (7, 0)
    rate = ctypes.c_uint()
    assert lib.dcmi_get_device_utilization_rate(0, 0, 6, ctypes.byref(rate)) == 0
    assert rate.value == 5  # 3353 of 65536 MB
    # 910B has no DDR: the DDR calls are not supported, as on the real card.
    assert lib.dcmi_get_device_utilization_rate(0, 0, 1, ctypes.byref(rate)) == -8255
    assert lib.dcmi_get_device_health(9, 0, ctypes.byref(rate)) == -8008


def test_alarm_overtemp_and_missing_davinci_show_through(driver):
    for args in (
        ("fault", "set", "alarm", "--npu", "2"),
        ("fault", "set", "overtemp", "--npu", "4", "--temp", "91"),
        ("fault", "set", "missing-davinci", "--npu", "7"),
    ):
        assert driver.cli(*args).returncode == 0
    lib = load(driver)
    assert lib.dcmi_init() == 0
    assert cards(lib) == [0, 1, 2, 3, 4, 5, 6]
    health, temp, count = ctypes.c_uint(), ctypes.c_int(), ctypes.c_int()
    codes = (ctypes.c_uint * 8)()
    assert (
        lib.dcmi_get_device_health(2, 0, ctypes.byref(health)) == 0
        and health.value == 2
    )
    assert lib.dcmi_get_device_errorcode_v2(2, 0, ctypes.byref(count), codes, 8) == 0
    assert list(codes[: count.value]) == [0xA4025021, 0x8C03A000, 0x8C084E00]
    assert (
        lib.dcmi_get_device_health(1, 0, ctypes.byref(health)) == 0
        and health.value == 0
    )
    assert (
        lib.dcmi_get_device_temperature(4, 0, ctypes.byref(temp)) == 0
        and temp.value == 91
    )
    # The library rereads the view: a cleared fault shows without a new dcmi_init.
    assert driver.cli("fault", "clear", "alarm").returncode == 0
    assert (
        lib.dcmi_get_device_health(2, 0, ctypes.byref(health)) == 0
        and health.value == 0
    )
    assert driver.cli("fault", "clear", "missing-davinci").returncode == 0
    assert cards(lib) == list(range(8))


def test_device_not_started_fails_dcmi_init_with_8005(driver):
    assert driver.cli("fault", "set", "device-not-started").returncode == 0
    assert load(driver).dcmi_init() == -8005
    out = run_dcmi(driver, "print(call('dcmi_init'))\n")
    assert out.strip() == "-8005"
    assert driver.cli("fault", "clear", "device-not-started").returncode == 0
    assert run_dcmi(driver, "print(call('dcmi_init'))\n").strip() == "0"


def test_calls_before_init_and_without_view(driver):
    out = run_dcmi(
        driver,
        "h = ctypes.c_uint()\nprint(call('dcmi_get_device_health', 0, 0, ctypes.byref(h)))\n",
    )
    assert out.strip() == "-8012"  # not ready: dcmi_init first
    os.unlink(driver.p(VIEW))
    assert run_dcmi(driver, "print(call('dcmi_init'))\n").strip() == "-8005"


def test_no_driver_no_library_no_view(node, tmp_path):
    assert not node.exists(LIB) and not node.exists(VIEW)
    assert node.cli("fault", "set", "alarm").returncode == 0
    assert not node.exists("/usr/local/Ascend/driver")  # the view needs a driver


def test_uninstall_removes_library_and_view(driver):
    result = subprocess.run(
        ["bash", driver.p("/usr/local/Ascend/driver/script/uninstall.sh")],
        capture_output=True,
        text=True,
        env=driver.env,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not driver.exists(LIB) and not driver.exists(VIEW)


class MemoryInfo(ctypes.Structure):
    _fields_ = [
        ("memory_size", ctypes.c_ulonglong),
        ("memory_available", ctypes.c_ulonglong),
        ("freq", ctypes.c_uint),
        ("hugepagesize", ctypes.c_ulong),
        ("hugepages_total", ctypes.c_ulong),
        ("hugepages_free", ctypes.c_ulong),
        ("utiliza", ctypes.c_uint),
        ("reserve", ctypes.c_ubyte * 60),
    ]


def test_310p_has_ddr_and_no_hbm_or_power(sim):
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "300I-Duo", "--cards", "1")
    assert (
        sim.run(driver_pkg("24.1.0", chip="310p"), "--full", "--quiet").returncode == 0
    )
    lib = load(sim)
    assert lib.dcmi_init() == 0
    mem, hbm, power = MemoryInfo(), HbmInfo(), ctypes.c_int()
    assert lib.dcmi_get_device_memory_info_v3(0, 1, ctypes.byref(mem)) == 0
    assert (mem.memory_size, mem.memory_available) == (43693, 43693 - 1500)
    assert lib.dcmi_get_device_hbm_info(0, 0, ctypes.byref(hbm)) == -8255
    assert lib.dcmi_get_device_power_info(0, 0, ctypes.byref(power)) == -8255  # NA
    info = ChipInfo()
    assert lib.dcmi_get_device_chip_info(0, 0, ctypes.byref(info)) == 0
    assert (info.chip_name, info.aicore_cnt) == (b"310P3", 8)


def test_a3_dies(sim):
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "A3", "--cards", "2")
    assert sim.run(driver_pkg("24.1.0", chip="a3"), "--full", "--quiet").returncode == 0
    lib = load(sim)
    assert lib.dcmi_init() == 0
    num, power, phy = ctypes.c_int(), ctypes.c_int(), ctypes.c_uint()
    assert lib.dcmi_get_device_num_in_card(1, ctypes.byref(num)) == 0 and num.value == 2
    assert lib.dcmi_get_device_power_info(1, 1, ctypes.byref(power)) == -8255  # "-"
    assert lib.dcmi_get_device_logicid_from_phyid(3, ctypes.byref(phy)) == 0
    info = ChipInfo()
    assert lib.dcmi_get_device_chip_info(0, 1, ctypes.byref(info)) == 0
    assert info.chip_name == b"910_9391"


def test_build_is_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_CACHE", str(tmp_path / "cache"))
    first = dcmi.build_library()
    mtime = os.stat(first).st_mtime_ns
    assert dcmi.build_library() == first and os.stat(first).st_mtime_ns == mtime
    other = tmp_path / "other"
    monkeypatch.setenv("ASCEND_SIM_CACHE", str(other))
    again = dcmi.build_library()
    with open(first, "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()  # same sources, same bytes
    shutil.rmtree(tmp_path / "cache")


# ----------------------------------------------------------------------------- what Huawei's
# device plugin and npu-exporter call (tests/simulator/README.md, "Simulated libdcmi.so")


class ChipInfoV2(ctypes.Structure):
    _fields_ = ChipInfo._fields_ + [("npu_name", ctypes.c_char * 32)]


class BaseResource(ctypes.Structure):
    _fields_ = [
        ("token", ctypes.c_ulonglong),
        ("token_max", ctypes.c_ulonglong),
        ("task_timeout", ctypes.c_ulonglong),
        ("vfg_id", ctypes.c_uint),
        ("vip_mode", ctypes.c_ubyte),
        ("reserved", ctypes.c_ubyte * 31),
    ]


class ComputingResource(ctypes.Structure):
    _fields_ = (
        [("aic", ctypes.c_float), ("aiv", ctypes.c_float)]
        + [
            (n, ctypes.c_ushort)
            for n in ("dsa", "rtsq", "acsq", "cdqm", "c_core", "ffts")
        ]
        + [("sdma", ctypes.c_ushort), ("pcie_dma", ctypes.c_ushort)]
        + [("memory_size", ctypes.c_ulonglong)]
        + [
            (n, ctypes.c_uint)
            for n in ("event_id", "notify_id", "stream_id", "model_id")
        ]
        + [
            (n, ctypes.c_ushort)
            for n in (
                "topic_schedule_aicpu",
                "host_ctrl_cpu",
                "host_aicpu",
                "device_aicpu",
                "topic_ctrl_cpu_slot",
            )
        ]
        + [
            ("vdev_aicore_utilization", ctypes.c_uint),
            ("vdev_memory_total", ctypes.c_ulonglong),
            ("vdev_memory_free", ctypes.c_ulonglong),
            ("reserved", ctypes.c_ubyte * 12),
        ]
    )


class MediaResource(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_float) for n in ("jpegd", "jpege", "vpc", "vdec", "pngd", "venc")
    ] + [("reserved", ctypes.c_ubyte * 32)]


class SocTotalResource(ctypes.Structure):
    _fields_ = [
        ("vdev_num", ctypes.c_uint),
        ("vdev_id", ctypes.c_uint * 32),
        ("vfg_num", ctypes.c_uint),
        ("vfg_bitmap", ctypes.c_uint),
        ("base", BaseResource),
        ("computing", ComputingResource),
        ("media", MediaResource),
    ]


class SocFreeResource(ctypes.Structure):
    _fields_ = [
        ("vfg_num", ctypes.c_uint),
        ("vfg_bitmap", ctypes.c_uint),
        ("base", BaseResource),
        ("computing", ComputingResource),
        ("media", MediaResource),
    ]


class EccInfo(ctypes.Structure):
    _fields_ = [("enable_flag", ctypes.c_int)] + [
        (n, ctypes.c_uint)
        for n in (
            "single_bit_error_cnt",
            "double_bit_error_cnt",
            "total_single_bit_error_cnt",
            "total_double_bit_error_cnt",
            "single_bit_isolated_pages_cnt",
            "double_bit_isolated_pages_cnt",
            "single_bit_next_isolated_pages_cnt",
            "double_bit_next_isolated_pages_cnt",
        )
    ]


class MultiUtil(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_uint) for n in ("aic_util", "aiv_util", "aicore_util", "npu_util")
    ] + [("reserved", ctypes.c_uint * 8)]


class ProcMem(ctypes.Structure):
    _fields_ = [("proc_id", ctypes.c_int), ("proc_mem_usage", ctypes.c_ulong)]


class PcieBandwidth(ctypes.Structure):
    _fields_ = [("profiling_time", ctypes.c_int)] + [
        (n, ctypes.c_uint * 3)
        for n in (
            "tx_p_bw",
            "tx_np_bw",
            "tx_cpl_bw",
            "tx_np_lantency",
            "rx_p_bw",
            "rx_np_bw",
            "rx_cpl_bw",
        )
    ]


class HccsBandwidth(ctypes.Structure):
    _fields_ = [
        ("profiling_time", ctypes.c_int),
        ("total_txbw", ctypes.c_double),
        ("total_rxbw", ctypes.c_double),
        ("tx_bandwidth", ctypes.c_double * 16),
        ("rx_bandwidth", ctypes.c_double * 16),
    ]


class Elabel(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_char * 256)
        for n in (
            "product_name",
            "model",
            "manufacturer",
            "manufacturer_date",
            "serial_number",
        )
    ]


class IpAddr(ctypes.Structure):
    _fields_ = [("u_addr", ctypes.c_ubyte * 16), ("ip_type", ctypes.c_int)]


class EventFilter(ctypes.Structure):
    _fields_ = [
        ("filter_flag", ctypes.c_ulonglong),
        ("event_id", ctypes.c_uint),
        ("severity", ctypes.c_ubyte),
        ("node_type", ctypes.c_ubyte),
        ("resv", ctypes.c_ubyte * 32),
    ]


NOT_SUPPORTED, NO_DEVICE, BAD_PARAMETER = -8255, -8008, -8001
VDEV_MNG, HCCS, CHIP_INF = 52, 16, 12
ROCE, VNIC = 1, 0
HCCN_TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"


def device_info(lib, card, main_cmd, sub_cmd, struct, size=None):
    size = ctypes.c_uint(ctypes.sizeof(struct) if size is None else size)
    rc = lib.dcmi_get_device_info(
        card, 0, main_cmd, sub_cmd, ctypes.byref(struct), ctypes.byref(size)
    )
    return rc, size.value


def device_ip(lib, card, ip_type=0, port=ROCE):
    ip, mask = IpAddr(), IpAddr()
    ip.ip_type = ip_type
    rc = lib.dcmi_get_device_ip(card, 0, port, 0, ctypes.byref(ip), ctypes.byref(mask))
    text = (
        ".".join(str(b) for b in ip.u_addr[:4]),
        ".".join(str(b) for b in mask.u_addr[:4]),
    )
    return rc, text


def net_health(lib, card):
    result = ctypes.c_int(-1)
    rc = lib.dcmi_get_device_network_health(card, 0, ctypes.byref(result))
    return rc, result.value


def hccn(node, *args):
    return subprocess.run(
        [node.p(HCCN_TOOL), *args],
        capture_output=True,
        text=True,
        env={
            "PATH": "/usr/bin:/bin"
        },  # what MindCluster passes (PATH, LD_LIBRARY_PATH)
        check=False,
    )


def test_chip_info_v2_and_the_ai_cores_of_the_servertype_label(driver):
    lib = load(driver)
    assert lib.dcmi_init() == 0
    info = ChipInfoV2()
    assert lib.dcmi_get_device_chip_info_v2(4, 0, ctypes.byref(info)) == 0
    assert (info.chip_type, info.chip_name, info.chip_ver) == (
        b"Ascend",
        b"910B3",
        b"V1",
    )
    assert (info.aicore_cnt, info.npu_name) == (20, b"910B3")
    unit = ctypes.c_int(-1)
    assert lib.dcmi_get_device_type(4, 0, ctypes.byref(unit)) == 0 and unit.value == 0
    total, free = SocTotalResource(), SocFreeResource()
    assert device_info(lib, 4, VDEV_MNG, 1, total) == (0, ctypes.sizeof(total))
    # MindCluster: servertype Ascend910B-<computing.aic>; vdev_num 0 (no vNPU), 20 on a 910B3.
    assert (total.vdev_num, total.computing.aic) == (0, 20.0)
    assert total.computing.memory_size == 65536
    assert device_info(lib, 4, VDEV_MNG, 2, free) == (0, ctypes.sizeof(free))
    assert (free.computing.aic, free.computing.memory_size) == (20.0, 65536)
    # The caller states its buffer size; a short one is refused, unknown commands unsupported.
    assert device_info(lib, 4, VDEV_MNG, 1, total, ctypes.sizeof(total) - 1)[0] == (
        BAD_PARAMETER
    )
    assert device_info(lib, 4, VDEV_MNG, 0, total)[0] == NOT_SUPPORTED
    assert device_info(lib, 4, CHIP_INF, 1, total)[0] == NOT_SUPPORTED
    assert device_info(lib, 4, 56, 0, total)[0] == NOT_SUPPORTED  # SIO: A3 only
    hccs_stat = (ctypes.c_uint * 128)(*([7] * 128))
    assert device_info(lib, 4, HCCS, 3, hccs_stat)[0] == 0 and set(hccs_stat) == {0}
    assert device_info(lib, 9, VDEV_MNG, 1, total)[0] == NO_DEVICE
    size = ctypes.c_uint(ctypes.sizeof(total))
    assert lib.dcmi_get_device_info(4, 0, VDEV_MNG, 1, None, ctypes.byref(size)) == (
        BAD_PARAMETER
    )


def test_exporter_values_match_npu_smi(driver):
    state = driver.state()
    state["npus"][1]["chips"][0]["aicore_pct"] = 37
    hardware.save_state(state, driver.path)
    assert (
        driver.cli(
            "fault", "set", "busy", "--npu", "3", "--pid", "777", "--memory", "2048"
        ).returncode
        == 0
    )
    lib = load(driver)
    assert lib.dcmi_init() == 0

    util = MultiUtil()
    assert lib.dcmi_get_device_multi_utilization_rate(1, 0, ctypes.byref(util)) == 0
    usages = driver.npu_smi("info", "-t", "usages", "-i", "1").stdout
    assert "Aicore Usage Rate(%)" in usages and ": 37" in usages
    assert (util.aic_util, util.aiv_util, util.aicore_util, util.npu_util) == (
        0,
        0,
        37,
        37,
    )

    procs, num = (ProcMem * 32)(), ctypes.c_int(-1)
    assert lib.dcmi_get_device_resource_info(3, 0, procs, ctypes.byref(num)) == 0
    assert (num.value, procs[0].proc_id, procs[0].proc_mem_usage) == (
        1,
        777,
        2048 << 20,
    )
    table = driver.npu_smi("info").stdout
    assert "777" in table and "2048" in table  # the same process in npu-smi's table
    assert lib.dcmi_get_device_resource_info(2, 0, procs, ctypes.byref(num)) == 0
    assert num.value == 0
    assert driver.cli("fault", "clear", "busy").returncode == 0
    assert lib.dcmi_get_device_resource_info(3, 0, procs, ctypes.byref(num)) == 0
    assert num.value == 0

    elabel = Elabel()
    assert lib.dcmi_get_card_elabel_v2(5, ctypes.byref(elabel)) == 0
    board = driver.npu_smi("info", "-t", "board", "-i", "5").stdout
    npu5 = state["npus"][5]
    assert "Serial Number                  : %s" % npu5["serial"] in board
    assert (elabel.product_name, elabel.manufacturer, elabel.serial_number) == (
        b"IT21HMDC_Bin5",
        b"Huawei",
        npu5["serial"].encode(),
    )

    volt, ecc = ctypes.c_uint(), EccInfo()
    assert (
        lib.dcmi_get_device_voltage(0, 0, ctypes.byref(volt)) == 0 and volt.value == 88
    )
    assert lib.dcmi_get_device_ecc_info(0, 0, 2, ctypes.byref(ecc)) == 0  # HBM
    assert (ecc.enable_flag, ecc.single_bit_error_cnt, ecc.double_bit_error_cnt) == (
        1,
        0,
        0,
    )
    assert (
        lib.dcmi_get_device_ecc_info(0, 0, 0, ctypes.byref(ecc)) == NOT_SUPPORTED
    )  # no DDR
    pcie = PcieBandwidth(profiling_time=200)
    pcie.rx_p_bw[1] = 99
    assert lib.dcmi_get_pcie_link_bandwidth_info(0, 0, ctypes.byref(pcie)) == 0
    assert (pcie.profiling_time, list(pcie.rx_p_bw)) == (200, [0, 0, 0])
    hccs = HccsBandwidth(profiling_time=300, total_txbw=5.0)
    assert lib.dcmi_get_hccs_link_bandwidth_info(0, 0, ctypes.byref(hccs)) == 0
    assert (hccs.profiling_time, hccs.total_txbw) == (300, 0.0)

    board_id, text = ctypes.c_uint(), ctypes.create_string_buffer(65)
    assert lib.dcmi_get_mainboard_id(0, 0, ctypes.byref(board_id)) == NOT_SUPPORTED
    assert (
        lib.dcmi_get_product_type(0, 0, text, 65) == NOT_SUPPORTED
    )  # 910B: no 310P name
    version = ctypes.create_string_buffer(33)
    assert lib.dcmi_get_dcmi_version(version, 33) == 0 and version.value == b"24.1.0"
    assert lib.dcmi_get_dcmi_version(version, 0) == BAD_PARAMETER
    power = ctypes.c_int()
    assert lib.dcmi_mcu_get_power_info(0, ctypes.byref(power)) == 0
    assert power.value == round(state["npus"][0]["chips"][0]["power_w"] * 10)
    assert lib.dcmi_get_device_voltage(8, 0, ctypes.byref(volt)) == NO_DEVICE
    assert lib.dcmi_get_device_voltage(0, 0, None) == BAD_PARAMETER


def test_fault_subscription_fails_so_the_plugin_polls(driver):
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda event: None)
    out = run_dcmi(
        driver,
        "f = (ctypes.c_ubyte * 48)()\n"  # struct dcmi_event_filter, passed by value
        "print(call('dcmi_subscribe_fault_event', -1, -1, f, None))\n"
        "call('dcmi_init')\n"
        "print(call('dcmi_subscribe_fault_event', -1, -1, f, None))\n",
    )
    assert out.split() == ["-8012", "-8255"]
    lib = load(driver)
    assert lib.dcmi_init() == 0
    assert (
        lib.dcmi_subscribe_fault_event(-1, -1, EventFilter(), callback) == NOT_SUPPORTED
    )
    # The alarm knob reaches the plugin through the polled error codes.
    assert driver.cli("fault", "set", "alarm", "--npu", "6").returncode == 0
    count, codes = ctypes.c_int(), (ctypes.c_uint * 128)()
    assert lib.dcmi_get_device_errorcode_v2(6, 0, ctypes.byref(count), codes, 128) == 0
    assert [hex(c) for c in codes[: count.value]] == [
        "0xa4025021",
        "0x8c03a000",
        "0x8c084e00",
    ]


def test_network_not_configured(driver):
    lib = load(driver)
    assert lib.dcmi_init() == 0
    assert device_ip(lib, 0)[0] == NO_DEVICE  # INFERRED: "no ip was preset"
    assert net_health(lib, 0) == (0, 6)  # DCMI_RDFX_DETECT_INIT
    info = os.lstat(driver.p(HCCN_TOOL))
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o555
    for args, text in (
        (("-link", "-g"), "link status: UP\n"),
        (("-net_health", "-g"), "net health status: Init\n"),
        (("-speed", "-g"), "Speed: 200000 Mb/s\n"),
        (
            ("-bandwidth", "-g"),
            "Bandwidth TX: 0.00 MB/sec\nBandwidth RX: 0.00 MB/sec\n",
        ),
        (("-mtu", "-g"), "mtu:1500\n"),
    ):
        result = hccn(driver, "-i", "3", *args)
        assert (result.returncode, result.stdout) == (0, text), args
    # MindCluster splits -link -g on single spaces and wants exactly three words.
    assert hccn(driver, "-i", "3", "-link", "-g").stdout.rstrip("\n").split(" ") == [
        "link",
        "status:",
        "UP",
    ]
    up = [
        line.split()
        for line in hccn(driver, "-i", "0", "-link_stat", "-g").stdout.splitlines()
        if "link up count" in line
    ]
    assert up == [["[devid", "0]link", "up", "count", ":", "1"]]
    stat_out = hccn(driver, "-i", "0", "-stat", "-g").stdout
    assert "roce_rx_err_pkt_num:0" in stat_out.splitlines()
    result = hccn(driver, "-i", "0", "-ip", "-g")
    assert result.returncode == 13
    assert result.stderr == "Get ipconf failed, because no ip was preset there!\n"
    assert hccn(driver, "-i", "8", "-link", "-g").returncode != 0  # no such device
    assert hccn(driver, "-i", "0", "-optical", "-g").returncode != 0  # not simulated


def test_network_set_directly_reaches_dcmi_and_hccn_tool(driver):
    result = driver.cli(
        "net", "set", "--npu", "2", "--address", "10.0.0.12",
        "--netmask", "255.255.255.0", "--gateway", "10.0.0.1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lib = load(driver)
    assert lib.dcmi_init() == 0
    assert device_ip(lib, 2) == (0, ("10.0.0.12", "255.255.255.0"))
    assert device_ip(lib, 2, ip_type=1)[0] == NO_DEVICE  # no IPv6 address
    assert device_ip(lib, 2, port=VNIC)[0] == NOT_SUPPORTED
    assert device_ip(lib, 1)[0] == NO_DEVICE  # another NPU: still nothing
    assert net_health(lib, 2) == (0, 6)  # no detect address yet: Init
    assert hccn(driver, "-i", "2", "-ip", "-g").stdout == (
        "ipaddr:10.0.0.12\nnetmask:255.255.255.0\n"
    )
    assert hccn(driver, "-i", "2", "-gateway", "-g").stdout == (
        "default gateway:10.0.0.1, Iface:eth2\n"
    )

    assert (
        driver.cli("net", "set", "--npu", "2", "--netdetect", "10.0.0.1").returncode
        == 0
    )
    assert net_health(lib, 2) == (0, 0)  # DCMI_RDFX_DETECT_OK
    assert (
        hccn(driver, "-i", "2", "-net_health", "-g").stdout
        == "net health status: Success\n"
    )
    assert driver.cli("net", "set", "--npu", "2", "--link", "DOWN").returncode == 0
    assert net_health(lib, 2) == (0, 5)  # DCMI_RDFX_DETECT_FAULT
    assert hccn(driver, "-i", "2", "-link", "-g").stdout == "link status: DOWN\n"
    assert hccn(driver, "-i", "2", "-speed", "-g").stdout == "Speed: Unknown!\n"
    assert driver.state()["npus"][2]["chips"][0]["network"] == {
        "address": "10.0.0.12",
        "netmask": "255.255.255.0",
        "gateway": "10.0.0.1",
        "netdetect": "10.0.0.1",
        "link": "DOWN",
    }
    assert driver.cli("net", "clear", "--npu", "2").returncode == 0
    assert device_ip(lib, 2)[0] == NO_DEVICE and net_health(lib, 2) == (0, 6)
    bad = driver.cli("net", "set", "--npu", "2", "--address", "10.0.0.300")
    assert bad.returncode == 1 and "no IPv4 address" in bad.stderr
    assert (
        driver.cli("net", "set", "--npu", "9", "--address", "10.0.0.3").returncode == 1
    )
    assert driver.cli("net", "set", "--npu", "2", "--mtu", "20").returncode == 1


def test_network_health_from_the_state_contract():
    """The library reports what hccn_tool -net_health -g says (one answer, as a number)."""

    def health(**net):
        chip = {"chip": 0, "network": net} if net else {"chip": 0}
        return dcmi.network_health({}, {"id": 0}, chip)

    port = {"address": "10.0.0.2", "netmask": "255.255.255.0"}
    assert health() == 6  # Init: no detection running
    assert health(netdetect="10.0.0.1", **port) == 0
    assert health(netdetect="10.0.0.1", link="UP", **port) == 0
    assert health(netdetect="10.0.0.1", link="DOWN", **port) == 5
    assert health(link="DOWN", **port) == 5  # a port without link is Fault
    assert health(netdetect="10.0.0.1") == 8  # Detect ip set: no address of its own
    assert health(netdetect="10.9.0.1", **port) == 3  # outside the subnet, no gateway


def test_calls_before_init_and_while_the_device_did_not_start(driver):
    script = (
        "v = ctypes.c_uint(); r = ctypes.c_int()\n"
        "print(call('dcmi_get_device_voltage', 0, 0, ctypes.byref(v)),"
        " call('dcmi_get_device_network_health', 0, 0, ctypes.byref(r)))\n"
    )
    assert run_dcmi(driver, script).split() == ["-8012", "-8012"]
    assert driver.cli("fault", "set", "device-not-started").returncode == 0
    assert run_dcmi(driver, script).split() == ["-8005", "-8005"]


def test_310p_product_types_ecc_and_ai_cores(sim):
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "300I-Duo", "--cards", "1")
    assert (
        sim.run(driver_pkg("24.1.0", chip="310p"), "--full", "--quiet").returncode == 0
    )
    lib = load(sim)
    assert lib.dcmi_init() == 0
    text = ctypes.create_string_buffer(65)
    # MindCluster's 310P names (Get310PProductType, Atlas300IDuo).
    assert lib.dcmi_get_product_type(0, 1, text, 65) == 0
    assert text.value == b"Atlas 300I Duo"
    total, ecc, util = SocTotalResource(), EccInfo(), MultiUtil()
    assert device_info(lib, 0, VDEV_MNG, 1, total)[0] == 0
    assert (total.vdev_num, total.computing.aic) == (0, 8.0)  # servertype Ascend310P-8
    assert lib.dcmi_get_device_ecc_info(0, 0, 0, ctypes.byref(ecc)) == 0  # DDR
    assert ecc.enable_flag == 1
    assert lib.dcmi_get_device_ecc_info(0, 0, 2, ctypes.byref(ecc)) == NOT_SUPPORTED
    assert lib.dcmi_get_device_multi_utilization_rate(0, 0, ctypes.byref(util)) == (
        NOT_SUPPORTED
    )
    pcie = PcieBandwidth()
    assert lib.dcmi_get_pcie_link_bandwidth_info(0, 0, ctypes.byref(pcie)) == (
        NOT_SUPPORTED
    )
    info = ChipInfoV2()
    assert lib.dcmi_get_device_chip_info_v2(0, 1, ctypes.byref(info)) == 0
    assert (info.chip_name, info.aicore_cnt) == (b"310P3", 8)
    volt = ctypes.c_uint()
    assert (
        lib.dcmi_get_device_voltage(0, 1, ctypes.byref(volt)) == 0 and volt.value == 80
    )
    power = ctypes.c_int()
    assert lib.dcmi_mcu_get_power_info(0, ctypes.byref(power)) == NOT_SUPPORTED  # NA


def test_310p3_single_chip_card_is_an_atlas_300i_pro(sim):
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "310P3", "--cards", "2")
    assert (
        sim.run(driver_pkg("24.1.0", chip="310p"), "--full", "--quiet").returncode == 0
    )
    lib = load(sim)
    assert lib.dcmi_init() == 0
    text = ctypes.create_string_buffer(65)
    assert lib.dcmi_get_product_type(1, 0, text, 65) == 0
    assert text.value == b"Atlas 300I Pro"
    mem = (
        ctypes.c_ulonglong * 2
    )()  # struct dcmi_memory_info_stru: size, freq + utiliza
    assert lib.dcmi_get_memory_info(1, 0, mem) == 0 and mem[0] == 21527
