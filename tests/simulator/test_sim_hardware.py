# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hw-init, the fake PCI sysfs, the lspci shim, the CLI, fault knobs and boot."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from ascend_sim import hardware, lspci
from simutil import read_fixture

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
    _npu_smi,
    _pci,
)


def lspci_out(sim, *args):
    result = subprocess.run(
        [sim.p("/usr/local/bin/lspci"), *args],
        capture_output=True,
        text=True,
        env=sim.env,
        check=False,
    )
    return result


def test_hw_init_writes_state_sysfs_shim_kernel_build_and_boot_unit(sim):
    state = sim.hw_init("--model", "910B3", "--cards", "8")
    assert state["model"] == "910B3"
    assert [npu["id"] for npu in state["npus"]] == list(range(8))
    assert [chip["device"] for chip in hardware.chips(state)] == list(range(8))
    devices = sorted(os.listdir(sim.p("/sys/bus/pci/devices")))
    huawei = [
        d
        for d in devices
        if sim.read("/sys/bus/pci/devices/%s/vendor" % d) == "0x19e5\n"
    ]
    assert len(huawei) == 8
    one = "/sys/bus/pci/devices/0000:c1:00.0/"
    assert sim.read(one + "device") == "0xd802\n"
    assert sim.read(one + "subsystem_vendor") == "0x19e5\n"
    assert sim.read(one + "subsystem_device") == "0x3000\n"
    assert sim.read(one + "class") == "0x120000\n"
    assert os.access(sim.p("/usr/local/bin/lspci"), os.X_OK)
    assert os.path.isfile(sim.p(hardware.kernel_build_dir() + "/Makefile"))
    unit = sim.read("/etc/systemd/system/ascend-sim-boot.service")
    assert "ExecStart=" in unit and unit.rstrip().endswith("WantedBy=multi-user.target")
    assert os.readlink(sim.p(hardware.BOOT_UNIT_LINK)) == hardware.BOOT_UNIT
    # No driver yet: no device nodes and no npu-smi.
    assert not sim.exists("/dev/davinci0")
    assert not sim.exists("/usr/local/sbin/npu-smi")


def test_collection_pci_scanner_reads_the_fake_sysfs(sim):
    sim.hw_init(
        "--model", "910B4", "--cards", "8", "--sysfs-root", "/var/lib/ascend-sim/sys"
    )
    devices = [
        d
        for d in _pci.scan_sysfs(sim.p("/var/lib/ascend-sim/sys"))
        if d["vendor_id"] == "0x19e5"
    ]
    assert len(devices) == 8
    assert {d["device_id"] for d in devices} == {"0xd802"}
    assert {d["subsystem_device_id"] for d in devices} == {"0x3002"}  # Atlas 800I A2


@pytest.mark.parametrize(
    ("model", "cards", "device", "subsystem", "pci_count", "chips"),
    [
        ("910B3", 8, "0xd802", "0x3000", 8, 8),
        ("910ProB", 8, "0xd801", "0x0100", 8, 8),
        ("A3", 8, "0xd803", "0x3000", 16, 16),  # one bus per die
        ("310P3", 2, "0xd500", "0x0100", 2, 2),
        ("300I-Duo", 1, "0xd500", "0x0110", 1, 2),  # two chips behind one bus id
        ("950PR", 8, "0xd806", "0x0100", 8, 8),
        ("310B1", 1, None, None, 0, 1),  # SoC: no PCI device, Bus-Id NA
    ],
)
def test_pci_devices_per_model(sim, model, cards, device, subsystem, pci_count, chips):
    state = sim.hw_init("--model", model, "--cards", str(cards))
    assert len(hardware.chips(state)) == chips
    found = []
    for name in os.listdir(sim.p("/sys/bus/pci/devices")):
        base = "/sys/bus/pci/devices/%s/" % name
        if sim.read(base + "vendor").strip() == "0x19e5":
            found.append(
                (
                    sim.read(base + "device").strip(),
                    sim.read(base + "subsystem_device").strip(),
                )
            )
    assert len(found) == pci_count
    if device:
        assert set(found) == {(device, subsystem)}


def test_lspci_format_matches_the_real_d801_sample(sim):
    """`lspci | grep acce` of a 7-card 910 host (fixtures/npu-smi/lspci-grep-acce-910-d801.txt)."""
    # The copy ends with an empty line after the last device.
    sample = read_fixture("npu-smi", "lspci-grep-acce-910-d801.txt").rstrip("\n") + "\n"
    state = hardware.build_state("910A", 7, sysfs_root="/sys")
    for npu, bus in zip(state["npus"], ["3d", "3e", "60", "b1", "b2", "da", "db"]):
        npu["chips"][0]["bus_id"] = "0000:%s:00.0" % bus.upper()
    hardware.write_sysfs(state, sim.path)
    hardware.save_state(state, sim.path)
    hardware.install_program(sim.path, hardware.LSPCI_SHIM, "lspci")
    result = lspci_out(sim)
    assert result.returncode == 0
    assert (
        "".join(line + "\n" for line in result.stdout.splitlines() if "acce" in line)
        == sample
    )
    assert len(_pci.parse_lspci(result.stdout)) >= 7


def test_lspci_options(sim):
    sim.hw_init("--model", "310P3", "--cards", "2")
    plain = lspci_out(sim).stdout.splitlines()
    assert (
        "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d500 (rev 23)"
        in plain
    )
    assert (
        lspci_out(sim, "-n").stdout.splitlines()[-1]
        == "06:00.0 1200: 19e5:d500 (rev 23)"
    )
    assert (
        lspci_out(sim, "-nn", "-d", "19e5:").stdout
        == "01:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device [19e5:d500] (rev 23)\n"
        "06:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device [19e5:d500] (rev 23)\n"
    )
    assert lspci_out(sim, "-d", "19e5:d802").stdout == ""
    assert len(lspci_out(sim, "-d", ":d500").stdout.splitlines()) == 2
    assert lspci_out(sim, "-D", "-s", "06:00.0").stdout.startswith(
        "0000:06:00.0 Processing accelerators"
    )
    assert "Host bridge" in plain[0]
    bad = lspci_out(sim, "-vvv")
    assert bad.returncode == 2 and "not simulated" in bad.stderr


def test_lspci_uses_the_sysfs_root_of_the_state_or_the_environment(sim):
    sim.hw_init(
        "--model", "910B3", "--cards", "2", "--sysfs-root", "/var/lib/ascend-sim/sys"
    )
    assert len(lspci_out(sim, "-d", "19e5:").stdout.splitlines()) == 2
    rc, out, _err = lspci.run(["-d", "19e5:"])
    assert rc == 0 and len(out.splitlines()) == 2
    env_sysfs = dict(sim.env, ASCEND_SIM_SYSFS_ROOT="/nonexistent")
    result = subprocess.run(
        [sim.p("/usr/local/bin/lspci")],
        capture_output=True,
        text=True,
        env=env_sysfs,
        check=False,
    )
    assert result.returncode == 0 and result.stdout == ""


def test_hw_init_options_and_errors(sim):
    state = sim.hw_init(
        "--model",
        "310P3",
        "--cards",
        "2",
        "--npu-ids",
        "0,64",
        "--no-lspci",
        "--no-kernel-build",
        "--no-boot-unit",
    )
    assert [npu["id"] for npu in state["npus"]] == [0, 64]
    assert not sim.exists("/usr/local/bin/lspci")
    assert not sim.exists(hardware.kernel_build_dir())
    assert not sim.exists(hardware.BOOT_UNIT)
    again = sim.cli("hw-init", "--model", "910B3", "--cards", "8")
    assert again.returncode == 1 and "already initialised as 310P3 x 2" in again.stderr
    assert (
        sim.cli("hw-init", "--model", "910B3", "--cards", "8", "--force").returncode
        == 0
    )
    too_many = sim.cli("hw-init", "--model", "910ProB", "--cards", "9", "--force")
    assert too_many.returncode == 1 and "between 1 and 8" in too_many.stderr
    unknown = sim.cli("hw-init", "--model", "910C", "--cards", "1", "--force")
    assert unknown.returncode == 2 and "invalid choice" in unknown.stderr


def test_hw_init_explains_an_unwritable_sysfs(sim):
    with open(sim.p("/sys"), "w", encoding="utf-8") as handle:
        handle.write("a container's /sys cannot take the fake devices either\n")
    result = sim.cli("hw-init", "--model", "910B3", "--cards", "1")
    assert result.returncode == 1
    assert "cannot create the fake PCI tree under /sys" in result.stderr
    assert "--sysfs-root" in result.stderr
    assert not sim.exists(hardware.STATE_RELPATH)


def test_state_show_and_models(sim):
    sim.hw_init("--model", "A3", "--cards", "8")
    shown = sim.cli("state", "show")
    assert shown.returncode == 0
    assert (
        "A3 (a3, PCI 19e5:d803)" in shown.stdout and "chips:        16" in shown.stdout
    )
    as_json = json.loads(sim.cli("state", "show", "--json").stdout)
    assert as_json["family"] == "a3"
    models = sim.cli("models").stdout
    for model in ("910B3", "910ProB", "A3", "310P3", "300I-Duo", "310B1", "950PR"):
        assert model in models
    assert sim.cli("--root", "/nonexistent-root", "state", "show").returncode == 1


def installed_driver(node):
    result = node.run(
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run",
        "--full",
        "--quiet",
        "--nox11",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return node


def smi(node, *args):
    result = node.npu_smi(*args)
    return result.returncode, result.stdout


def test_fault_alarm_overtemp_and_busy_show_in_npu_smi(node):
    installed_driver(node)
    assert (
        node.cli("fault", "set", "alarm", "--npu", "3", "--chip", "0").returncode == 0
    )
    assert (
        node.cli("fault", "set", "overtemp", "--npu", "5", "--temp", "92").returncode
        == 0
    )
    assert (
        node.cli(
            "fault",
            "set",
            "busy",
            "--npu",
            "1",
            "--pid",
            "777",
            "--process",
            "python3",
            "--memory",
            "1234",
        ).returncode
        == 0
    )
    rc, out = smi(node, "info")
    assert rc == 0
    parsed = _npu_smi.parse_info(out)
    assert parsed["healthy"] is False
    assert parsed["npus"][3]["health"] == "Alarm"
    assert parsed["npus"][5]["chips"][0]["temp_c"] == 92
    assert parsed["processes"] == [
        {
            "npu": 1,
            "chip": 0,
            "pid": 777,
            "name": "python3",
            "memory_mb": 1234,
            "container_pid": None,
        }
    ]
    rc, out = smi(node, "info", "-t", "health", "-i", "3", "-c", "0")
    health = _npu_smi.parse_key_values(out)[0]
    assert health["Health Status"] == "Alarm"
    assert health["Error Code"] == "A4025021 8C03A000 8C084E00"
    listed = node.cli("fault", "list").stdout
    assert "alarm" in listed and "ACTIVE" in listed
    assert node.cli("fault", "clear", "all").returncode == 0
    parsed = _npu_smi.parse_info(smi(node, "info")[1])
    assert parsed["healthy"] is True and parsed["processes"] == []


def test_fault_device_not_started(node):
    installed_driver(node)
    node.cli("fault", "set", "device-not-started")
    for args in (("info",), ("info", "-l"), ("info", "-t", "board", "-i", "0")):
        rc, out = smi(node, *args)
        assert rc == 255
        assert out == "dcmi module initialize failed. ret is -8005\n"
    with pytest.raises(_npu_smi.NpuSmiParseError, match="-8005"):
        _npu_smi.parse_info(smi(node, "info")[1])
    node.cli("fault", "clear", "device-not-started")
    assert smi(node, "info")[0] == 0


def test_fault_npu_smi_hang_and_garbage(node):
    installed_driver(node)
    node.cli("fault", "set", "npu-smi-hang")
    # npu-smi never answers: only a time-out ends it.
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(
            [node.p("/usr/local/sbin/npu-smi"), "info"],
            env=node.env,
            capture_output=True,
            timeout=3,
            check=False,
        )
    node.cli("fault", "clear", "npu-smi-hang")
    node.cli("fault", "set", "npu-smi-garbage")
    rc, out = smi(node, "info")
    assert rc == 0
    assert out.strip()
    with pytest.raises(_npu_smi.NpuSmiParseError):
        _npu_smi.parse_info(out)
    node.cli("fault", "clear", "npu-smi-garbage")
    assert _npu_smi.parse_info(smi(node, "info")[1])["npu_count"] == 8


def test_fault_missing_davinci(node):
    installed_driver(node)
    node.cli("fault", "set", "missing-davinci", "--npu", "2")
    assert not node.exists("/dev/davinci2")
    parsed = _npu_smi.parse_info(smi(node, "info")[1])
    assert [npu["id"] for npu in parsed["npus"]] == [0, 1, 3, 4, 5, 6, 7]
    assert _npu_smi.parse_list(smi(node, "info", "-l")[1])["total_count"] == 7
    # PCI still shows 8 devices: fewer davinci nodes than PCI devices.
    assert len(lspci_out(node, "-d", "19e5:").stdout.splitlines()) == 8
    # A reboot does not bring it back while the fault is set; clearing does.
    assert node.cli("boot").returncode == 0
    assert not node.exists("/dev/davinci2")
    node.cli("fault", "clear", "missing-davinci")
    assert node.exists("/dev/davinci2")


def test_fault_missing_tools_hides_and_restores(node):
    assert node.exists("/usr/local/bin/lspci") and node.exists("/usr/sbin/ifconfig")
    node.cli("fault", "set", "missing-tools")
    assert not node.exists("/usr/local/bin/lspci") and not node.exists(
        "/usr/sbin/ifconfig"
    )
    node.cli("fault", "clear", "missing-tools")
    assert node.exists("/usr/local/bin/lspci") and node.exists("/usr/sbin/ifconfig")


def test_fault_errors(node):
    unknown = node.cli("fault", "set", "melted")
    assert unknown.returncode == 1 and "unknown fault" in unknown.stderr
    no_npu = node.cli("fault", "set", "alarm", "--npu", "9")
    assert no_npu.returncode == 1 and "no NPU 9" in no_npu.stderr
    no_chip = node.cli("fault", "set", "alarm", "--npu", "0", "--chip", "1")
    assert no_chip.returncode == 1 and "has no chip 1" in no_chip.stderr


def test_boot_recreates_device_nodes(node):
    installed_driver(node)
    for name in os.listdir(node.p("/dev")):
        os.unlink(node.p("/dev/" + name))  # a container restart gives a fresh /dev
    assert node.cli("boot").returncode == 0
    assert sorted(os.listdir(node.p("/dev"))) == sorted(
        ["davinci%d" % i for i in range(8)]
        + ["davinci_manager", "devmm_svm", "hisi_hdc"]
    )
