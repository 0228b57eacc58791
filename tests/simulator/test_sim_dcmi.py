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
from ascend_sim import dcmi
from simutil import driver_pkg

LIB = "/usr/local/Ascend/driver/lib64/driver/libdcmi.so"
VIEW = "/usr/local/Ascend/driver/lib64/driver/" + dcmi.VIEW_NAME

pytestmark = pytest.mark.skipif(
    dcmi.host_arch() != "x86_64",
    reason="the library is built for the host (x86_64 packages)",
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
