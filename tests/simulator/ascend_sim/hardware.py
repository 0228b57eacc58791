# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated hardware: state file, fake PCI sysfs, device nodes, fault knobs, boot.

Every path is below the simulator root ($ASCEND_SIM_ROOT, default ``/``) so the tests can
run on the host against a temporary directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import ipaddress
import json
import os
import re
import shutil
import socket
import stat

from . import catalog, dcmi, hccn_tool

STATE_RELPATH = "/var/lib/ascend-sim/state.json"
STATE_LOCK_RELPATH = "/var/lib/ascend-sim/state.lock"  # the hccn_tool takes it too
SIM_DIR = "/var/lib/ascend-sim"
HIDDEN_DIR = SIM_DIR + "/hidden"
LSPCI_SHIM = "/usr/local/bin/lspci"
BOOT_UNIT = "/etc/systemd/system/ascend-sim-boot.service"
BOOT_UNIT_LINK = "/etc/systemd/system/multi-user.target.wants/ascend-sim-boot.service"
MANAGEMENT_DEVICES = ("davinci_manager", "devmm_svm", "hisi_hdc")
# Directories searched for the installer's required tools (and hidden by missing-tools).
TOOL_DIRS = (
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
)
DEFAULT_FACTORY_FIRMWARE = "7.1.0.11.220"  # GUESS: what the cards shipped with

# Real Docker device cgroups only let a container create nodes for a few device numbers; the
# simulated NPUs therefore reuse the numbers of /dev/null (1:3). Programs only look at paths.
DEVICE_MAJOR = 1
DEVICE_MINOR = 3

FAULTS = {
    "alarm": "chip health Alarm with error codes (npu-smi table and -t health); --npu/--chip, --code",
    "overtemp": "chip temperature above 80 C (--temp, default 85); health unchanged",
    "device-not-started": "every npu-smi info command prints the -8005 error and exits 255",
    "missing-davinci": "removes /dev/davinci<N> of --npu (default: the last NPU); fewer nodes than PCI devices",
    "missing-tools": "hides installed tools (--tools, default lspci,ifconfig); the driver installer fails",
    "no-kernel-headers": "hides /lib/modules/$(uname -r)/build; the driver's DKMS build fails",
    "partial-driver": "removes driver/tools/upgrade-tool now, and the next driver install stops after version.info",
    "busy": "adds a process row to npu-smi (--npu/--chip, --pid, --process, --memory)",
    "install-interrupted": "the next driver install stops after version.info and exits 1 (partial-driver, nothing hidden now)",
    "hot-reset-fails": "the driver installer's hot reset fails: it exits 2, a reboot is needed",
    "slow-install": "the driver installer pauses --seconds (default 30) once the install is under way",
    "npu-smi-hang": "every npu-smi info command hangs (a DCMI call that never returns) until it is killed",
    "npu-smi-garbage": "every npu-smi info command prints text that is no npu-smi table and exits 0",
    "link-down": "the RoCE port of --npu/--chip (default: all) is DOWN (link status: DOWN, net health Fault)",
    "detect-unreachable": "the detect address of --npu/--chip (default: all) does not answer (Receive timeout)",
    "ip-conflict": "another node of the fabric also has --address (a phantom entry in the registry)",
    "hccn-busy": "every hccn_tool command prints 'hccn_tool is busy, please try again.' and exits 11",
}
UDEVADM_STUB = "/usr/local/bin/udevadm"


class SimError(Exception):
    pass


# ----------------------------------------------------------------------------- paths


def sim_root(root=None):
    return root or os.environ.get("ASCEND_SIM_ROOT") or "/"


def rooted(root, path):
    return os.path.join(sim_root(root), path.lstrip("/"))


def kernel_release():
    return os.environ.get("ASCEND_SIM_KERNEL_RELEASE") or os.uname().release


def kernel_build_dir():
    return "/lib/modules/%s/build" % kernel_release()


def atomic_write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- state


def state_path(root=None):
    return rooted(root, STATE_RELPATH)


@contextlib.contextmanager
def state_lock(root=None):
    """Serialises read-modify-write of the state with the simulated hccn_tool."""
    path = rooted(root, STATE_LOCK_RELPATH)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def locked(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with state_lock(kwargs.get("root")):
            return func(*args, **kwargs)

    return wrapper


def load_state(root=None, required=True):
    try:
        with open(state_path(root), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        if required:
            raise SimError(
                "no simulated hardware: %s is missing (run `ascend-sim hw-init` first)"
                % state_path(root)
            ) from None
        return None


def save_state(state, root=None):
    """Write the state, and the device view of the simulated libdcmi.so if a driver is there."""
    atomic_write(
        state_path(root), json.dumps(state, indent=2, sort_keys=True) + "\n", 0o644
    )
    lib_dir = rooted(root, driver_path(root) + "/" + dcmi.LIB_RELPATH)
    if driver_installed(root) and os.path.isdir(lib_dir):
        version = _read_kv(rooted(root, driver_path(root) + "/version.info"))
        atomic_write(
            os.path.join(lib_dir, dcmi.VIEW_NAME),
            dcmi.view_text(state, rooted(root, "/dev"), version.get("Version")),
            0o644,
        )
        # npu-smi's copy of the state, where a container of the Ascend Docker Runtime reads
        # it (the driver's lib64 of base.list; /var/lib/ascend-sim is not on its whitelist).
        atomic_write(
            os.path.join(lib_dir, dcmi.STATE_COPY_NAME),
            json.dumps(state, indent=2, sort_keys=True) + "\n",
            0o644,
        )
    # hccn_tool's pod view and this node's entry in the fabric registry
    hccn_tool.publish(state, sim_root(root))


def build_state(model_key, cards, npu_ids=None, sysfs_root="/sys", factory_fw=None):
    mdl = catalog.model(model_key)
    if cards < 1 or cards > mdl.max_cards:
        raise SimError(
            "--cards must be between 1 and %d for %s" % (mdl.max_cards, model_key)
        )
    ids = list(npu_ids) if npu_ids else list(range(cards))
    if len(ids) != cards or len(set(ids)) != cards:
        raise SimError("--npu-ids must list %d distinct ids" % cards)
    bus_count = cards * (mdl.chips_per_npu if mdl.bus_per_chip else 1)
    buses = catalog.default_buses(mdl, bus_count) if mdl.buses is not None else []
    npus = []
    device = 0
    for index, npu_id in enumerate(ids):
        chips = []
        for chip_no in range(mdl.chips_per_npu):
            bus = None
            if buses:
                bus = buses[
                    index * mdl.chips_per_npu + chip_no if mdl.bus_per_chip else index
                ]
            ddr_total = mdl.ddr_mb[
                (index * mdl.chips_per_npu + chip_no) % len(mdl.ddr_mb)
            ]
            power = mdl.power_w
            if power is not None:
                power = round(power + ((index * 7) % 5) - 2 + 0.1 * (index % 3), 1)
            if mdl.family == "a3" and chip_no > 0:
                power = None  # the second die of an A3 NPU reports "-"
            chips.append(
                {
                    "chip": chip_no,
                    "device": device,
                    "phy_id": device if mdl.family == "a3" else None,
                    "bus_id": "0000:%s:00.0" % bus if bus else None,
                    "health": "OK",
                    "power_w": power,
                    "temp_c": mdl.temp_c + (index % 4) - 1,
                    "hugepages_used": None
                    if mdl.hugepages is None
                    else mdl.hugepages[0],
                    "hugepages_total": None
                    if mdl.hugepages is None
                    else mdl.hugepages[1],
                    "aicore_pct": 0,
                    "memory_used_mb": mdl.ddr_used_mb + 37 * index if ddr_total else 0,
                    "memory_total_mb": ddr_total,
                    "hbm_used_mb": mdl.hbm_used_mb + index if mdl.has_hbm else None,
                    "hbm_total_mb": mdl.hbm_mb,
                }
            )
            device += 1
        npus.append(
            {
                "id": npu_id,
                "name": mdl.smi_name,
                "slot": index,
                "board_id": mdl.board_id,
                "product_name": mdl.product_name,
                "serial": "1025C9048%03d" % (700 + index),
                "chips": chips,
            }
        )
    return {
        "schema": 1,
        "model": model_key,
        "family": mdl.family,
        "pci_device": mdl.pci_device,
        "pci_revision": mdl.revision,
        "subsystem_vendor": mdl.subsystem_vendor,
        "subsystem_device": mdl.subsystem_device,
        "board_id": mdl.board_id,
        "mcu": mdl.mcu,
        "sysfs_root": sysfs_root,
        "proc_root": DEFAULT_PROC_ROOT,
        "kernel_cmdline": DEFAULT_CMDLINE,
        "firmware_active": factory_fw or DEFAULT_FACTORY_FIRMWARE,
        "pending_reboot": {},
        "npu_smi_version": None,
        "layout": None,
        "npus": npus,
        "processes": [],
        "faults": [],
    }


def chips(state):
    return [chip for npu in state["npus"] for chip in npu["chips"]]


# ----------------------------------------------------------------------------- sysfs


# The simulated /proc/cmdline lives here (a container cannot change its own /proc/cmdline); the
# collection reads it through the test hook ascend_proc_root. A plain Debian 12 boot line.
DEFAULT_PROC_ROOT = "/var/lib/ascend-sim/proc"
DEFAULT_CMDLINE = (
    "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 "
    "root=UUID=3e1f6c2a-9b7d-4f0e-8c55-1d2a7b9e0c41 ro quiet"
)
# GUESS: how many virtual functions an NPU function offers. Huawei documents that creating vNPUs
# enables SR-IOV on the chip (MindCluster virtualization rules) but not sriov_totalvfs; 16 is the
# most vNPUs of one training chip there.
SRIOV_TOTALVFS = 16


OTHER_PCI = (  # ordinary devices, so that `lspci | grep d802 | wc -l` means something
    ("0000:00:00.0", "0x8086", "0x1237", "0x060000", "0x02", "0x1af4", "0x1100"),
    ("0000:00:01.0", "0x8086", "0x7000", "0x060100", "0x00", "0x1af4", "0x1100"),
    ("0000:00:03.0", "0x1af4", "0x1000", "0x020000", "0x00", "0x1af4", "0x0001"),
)


def pci_devices(state):
    """(address, vendor, device, class, revision, subsystem_vendor, subsystem_device)."""
    seen = []
    for chip in chips(state):
        bus = chip.get("bus_id")
        if bus and bus.lower() not in [s[0] for s in seen]:
            seen.append(
                (
                    bus.lower(),
                    catalog.HUAWEI_VENDOR,
                    "0x" + state["pci_device"],
                    catalog.PCI_CLASS_ACCELERATOR,
                    state.get("pci_revision", "0x20"),
                    state["subsystem_vendor"],
                    state["subsystem_device"],
                )
            )
    return list(OTHER_PCI) + seen


def write_sysfs(state, root=None):
    base = rooted(root, state["sysfs_root"] + "/bus/pci/devices")
    if os.path.isdir(base):
        for name in os.listdir(base):
            if re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", name):
                shutil.rmtree(os.path.join(base, name))
    try:
        os.makedirs(base, exist_ok=True)
    except OSError as err:
        raise SimError(
            "cannot create the fake PCI tree under %s (%s); pass --sysfs-root, e.g. "
            "/var/lib/ascend-sim/sys (a container's /sys is read-only)"
            % (state["sysfs_root"], err.strerror)
        ) from None
    for address, vendor, device, klass, rev, svendor, sdevice in pci_devices(state):
        path = os.path.join(base, address)
        os.makedirs(path, exist_ok=True)
        for name, value in (
            ("vendor", vendor),
            ("device", device),
            ("class", klass),
            ("revision", rev),
            ("subsystem_vendor", svendor),
            ("subsystem_device", sdevice),
        ):
            with open(os.path.join(path, name), "w", encoding="ascii") as handle:
                handle.write(value + "\n")
        if vendor == catalog.HUAWEI_VENDOR:
            numvfs = (state.get("sriov_numvfs") or {}).get(address, 0)
            for name, value in (
                ("sriov_totalvfs", SRIOV_TOTALVFS),
                ("sriov_numvfs", numvfs),
            ):
                with open(os.path.join(path, name), "w", encoding="ascii") as handle:
                    handle.write("%d\n" % value)
    write_proc(state, root)


def write_proc(state, root=None):
    """The simulated /proc/cmdline, at <proc_root>/cmdline (NUL-free, one line, as the kernel's)."""
    proc = state.get("proc_root") or DEFAULT_PROC_ROOT
    atomic_write(
        rooted(root, proc + "/cmdline"),
        (state.get("kernel_cmdline") or DEFAULT_CMDLINE) + "\n",
        0o444,
    )


@locked
def kernel_set(cmdline=None, numvfs=None, npu=None, root=None):
    """The `kernel` knob: the kernel command line (stands for editing GRUB and rebooting) and
    the SR-IOV virtual functions of NPU functions (what `echo N > sriov_numvfs`, or creating
    vNPUs, does); ``npu`` None: every NPU. Returns the state."""
    state = load_state(root)
    if cmdline is not None:
        if not cmdline.strip() or "\n" in cmdline:
            raise SimError("--cmdline must be one non-empty line")
        state["kernel_cmdline"] = " ".join(cmdline.split())
    if numvfs is not None:
        if numvfs < 0 or numvfs > SRIOV_TOTALVFS:
            raise SimError("--sriov-numvfs must be between 0 and %d" % SRIOV_TOTALVFS)
        npus = [n for n in state["npus"] if npu is None or n["id"] == npu]
        if not npus:
            raise SimError("no NPU with id %s" % npu)
        vfs = dict(state.get("sriov_numvfs") or {})
        for item in npus:
            for chip in item["chips"]:
                if chip.get("bus_id"):
                    vfs[chip["bus_id"].lower()] = numvfs
        state["sriov_numvfs"] = {k: v for k, v in sorted(vfs.items()) if v}
    write_sysfs(state, root)
    save_state(state, root)
    return state


# ----------------------------------------------------------------------------- programs


PROGRAM_SHEBANG = "#!/usr/bin/env python3\n"


def program_text(module, **constants):
    """Source of a standalone module as an executable script, with constants set."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), module + ".py")
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    for name, value in constants.items():
        source, count = re.subn(
            r"^%s = None\b.*$" % re.escape(name),
            "%s = %r" % (name, value),
            source,
            count=1,
            flags=re.M,
        )
        if count != 1:
            raise SimError("%s.py has no '%s = None' line" % (module, name))
    return PROGRAM_SHEBANG + source


def install_program(root, path, module, mode=0o755, **constants):
    atomic_write(rooted(root, path), program_text(module, **constants), mode)


def sim_home():
    """Directory of this copy of the simulator (the one holding bin/ascend-sim)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install_boot_unit(root=None):
    cli = os.path.join(sim_home(), "bin", "ascend-sim")
    unit = (
        "# Written by ascend-sim hw-init: the simulated driver 'loads' at boot (device nodes,\n"
        "# pending firmware becomes active).\n"
        "[Unit]\n"
        "Description=Ascend simulator boot (device nodes, firmware activation)\n"
        "DefaultDependencies=no\n"
        "After=local-fs.target\n"
        "Before=docker.service containerd.service\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        "ExecStart=%s boot\n"
        "RemainAfterExit=yes\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n" % cli
    )
    atomic_write(rooted(root, BOOT_UNIT), unit, 0o644)
    link = rooted(root, BOOT_UNIT_LINK)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(BOOT_UNIT, link)


def hw_init(
    model_key,
    cards,
    root=None,
    sysfs_root="/sys",
    npu_ids=None,
    lspci=True,
    kernel_build=True,
    boot_unit=True,
    factory_fw=None,
    node_id=None,
):
    state = build_state(model_key, cards, npu_ids, sysfs_root, factory_fw)
    # hccn_tool: this node's name in the fabric registry, and where the CLI is (state refresh)
    state["node_id"] = node_id or socket.gethostname()
    state["sim_home"] = sim_home()
    write_sysfs(state, root)
    if lspci:
        install_program(root, LSPCI_SHIM, "lspci")
    if not any(
        os.path.isfile(rooted(root, "%s/udevadm" % d)) for d in TOOL_DIRS
    ):  # the driver installer requires udevadm; a container has no udev
        atomic_write(
            rooted(root, UDEVADM_STUB),
            "#!/bin/sh\n# ascend-sim: stands for udev's udevadm (no udev here)\nexit 0\n",
            0o755,
        )
    if kernel_build:
        build = rooted(root, kernel_build_dir())
        os.makedirs(build, exist_ok=True)
        with open(os.path.join(build, "Makefile"), "w", encoding="ascii") as handle:
            handle.write("# ascend-sim: stands for the kernel headers/devel package\n")
    if boot_unit:
        install_boot_unit(root)
    save_state(state, root)
    return state


# ----------------------------------------------------------------------------- devices


def _make_node(path, group_gid, mode):
    if os.path.lexists(path):
        os.unlink(path)
    try:
        os.mknod(path, stat.S_IFCHR | mode, os.makedev(DEVICE_MAJOR, DEVICE_MINOR))
    except PermissionError:
        with open(path, "w", encoding="ascii"):
            pass
    os.chmod(path, mode)
    try:
        os.chown(path, 0, group_gid)
    except PermissionError:
        pass


def create_devices(state, root=None, group_gid=0, mode=0o660):
    """The driver 'loads': /dev/davinci<device> per chip plus the management devices."""
    dev = rooted(root, "/dev")
    os.makedirs(dev, exist_ok=True)
    missing = missing_devices(state)
    for chip in chips(state):
        if chip["device"] not in missing:
            _make_node(os.path.join(dev, "davinci%d" % chip["device"]), group_gid, mode)
    for name in MANAGEMENT_DEVICES:
        _make_node(os.path.join(dev, name), group_gid, mode)
    state["devices"] = {"gid": group_gid, "mode": mode}


def remove_devices(state, root=None):
    dev = rooted(root, "/dev")
    for chip in chips(state):
        path = os.path.join(dev, "davinci%d" % chip["device"])
        if os.path.lexists(path):
            os.unlink(path)
    for name in MANAGEMENT_DEVICES:
        path = os.path.join(dev, name)
        if os.path.lexists(path):
            os.unlink(path)
    state.pop("devices", None)


def missing_devices(state):
    out = set()
    for fault in state.get("faults", []):
        if fault["name"] == "missing-davinci":
            out.update(fault.get("devices", []))
    return out


@locked
def boot(root=None):
    """What a reboot does: firmware flashed before becomes active, device nodes reappear,
    and the driver's network_cfg_recovery replays /etc/hccn.conf (hccn_tool -cfg recovery)."""
    state = load_state(root)
    pending = state.get("pending_reboot") or {}
    if "firmware" in pending:
        state["firmware_active"] = pending["firmware"]
    state["pending_reboot"] = {}
    if state.get("renumber_at_boot"):
        _swap_numbers(state, *state.pop("renumber_at_boot"))
    if "devices" in state and driver_installed(root):
        create_devices(state, root, state["devices"]["gid"], state["devices"]["mode"])
        hccn_tool.boot_recovery(state, sim_root(root))
    save_state(state, root)
    return state


def _read_kv(path):
    out = {}
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    out[key] = value
    except OSError:
        pass
    return out


def install_info(root=None):
    return _read_kv(rooted(root, "/etc/ascend_install.info"))


def driver_path(root=None):
    base = install_info(root).get("Driver_Install_Path_Param") or "/usr/local/Ascend"
    return base.rstrip("/") + "/driver"


def driver_installed(root=None):
    return os.path.isfile(rooted(root, driver_path(root) + "/version.info"))


# ----------------------------------------------------------------------------- faults


def _hide(root, path, tag):
    """Move ``path`` (below root) to the hidden stash; return the stash path or None."""
    src = rooted(root, path)
    if not os.path.lexists(src):
        return None
    dst = rooted(root, "%s/%s%s" % (HIDDEN_DIR, tag, path))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        if os.path.isdir(dst) and not os.path.islink(dst):
            shutil.rmtree(dst)
        else:
            os.unlink(dst)
    os.rename(src, dst)
    return path


def _unhide(root, path, tag):
    src = rooted(root, "%s/%s%s" % (HIDDEN_DIR, tag, path))
    dst = rooted(root, path)
    if os.path.lexists(src) and not os.path.lexists(dst):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.rename(src, dst)


def _npu(state, npu_id):
    for npu in state["npus"]:
        if npu["id"] == npu_id:
            return npu
    raise SimError(
        "no NPU %s (ids: %s)" % (npu_id, ", ".join(str(n["id"]) for n in state["npus"]))
    )


# The physical side of an NPU: what stays with the card in its slot when the driver numbers
# the NPUs another way (the PCI function, the card's serial and slot).
_PHYSICAL_NPU = ("serial", "slot")
_PHYSICAL_CHIP = ("bus_id",)


def _swap_numbers(state, first, second):
    """NPUs ``first`` and ``second`` trade numbers: each card keeps its bus id, serial and slot
    and takes the other's NPU id, device (/dev/davinci<N>, logic id) and phy id."""
    one, two = _npu(state, first), _npu(state, second)
    if len(one["chips"]) != len(two["chips"]):
        raise SimError(
            "NPUs %s and %s have a different number of chips" % (first, second)
        )
    for key in _PHYSICAL_NPU:
        one[key], two[key] = two.get(key), one.get(key)
    for chip_one, chip_two in zip(one["chips"], two["chips"]):
        for key in _PHYSICAL_CHIP:
            chip_one[key], chip_two[key] = chip_two.get(key), chip_one.get(key)


@locked
def renumber(first, second, now=False, root=None):
    """The `renumber` knob (device numbering drift): at the next boot (or ``now``) the driver
    numbers NPUs ``first`` and ``second`` the other way round: the card at each bus id takes
    the other's NPU id and /dev/davinci<N>. Returns the state."""
    state = load_state(root)
    if first == second:
        raise SimError("renumber needs two different NPU ids")
    _npu(state, first)
    _npu(state, second)
    if now:
        _swap_numbers(state, first, second)
    else:
        state["renumber_at_boot"] = [first, second]
    save_state(state, root)
    return state


def _set_links(state, npu, chip, status):
    for one_npu in state["npus"]:
        for one in one_npu["chips"]:
            if npu in (None, one_npu["id"]) and chip in (None, one["chip"]):
                one.setdefault("network", {})["link"] = status


@locked
def refresh(root=None):
    """Rewrite the state and what derives from it (hccn_tool calls it after a change)."""
    save_state(load_state(root), root)


@locked
def fault_set(name, root=None, npu=None, chip=None, **params):
    if name not in FAULTS:
        raise SimError(
            "unknown fault %r (known: %s)" % (name, ", ".join(sorted(FAULTS)))
        )
    state = load_state(root)
    if npu is not None:
        target = _npu(state, npu)
        if chip is not None and chip not in [c["chip"] for c in target["chips"]]:
            raise SimError("NPU %d has no chip %d" % (npu, chip))
    entry = {"name": name, "npu": npu, "chip": chip}
    if name == "alarm":
        if params.get("codes"):
            entry["codes"] = list(params["codes"])
    elif name == "overtemp":
        entry["temp"] = params.get("temp") or 85
    elif name == "busy":
        entry.update(
            pid=params.get("pid") or 4242,
            process=params.get("process")
            if params.get("process") is not None
            else "python3",
            memory=params.get("memory") or 3072,
            container_pid=params.get("container_pid"),
        )
        if npu is None:
            entry["npu"] = state["npus"][0]["id"]
        if chip is None:
            entry["chip"] = 0
    elif name == "slow-install":
        entry["seconds"] = params.get("seconds") or 30
    elif name == "link-down":
        _set_links(state, npu, chip, "DOWN")
    elif name == "ip-conflict":
        if not params.get("address"):
            raise SimError("fault ip-conflict needs --address (the duplicated address)")
        entry["address"] = params["address"]
        entry["netmask"] = params.get("netmask") or "255.255.255.0"
    elif name == "missing-davinci":
        target = _npu(state, npu) if npu is not None else state["npus"][-1]
        entry["npu"] = target["id"]
        entry["devices"] = [c["device"] for c in target["chips"]]
        for device in entry["devices"]:
            path = rooted(root, "/dev/davinci%d" % device)
            if os.path.lexists(path):
                os.unlink(path)
    elif name == "missing-tools":
        tools = params.get("tools") or ["lspci", "ifconfig"]
        entry["tools"] = list(tools)
        hidden = []
        for tool in tools:
            for directory in TOOL_DIRS:
                real = rooted(root, directory)
                if os.path.islink(real):  # /sbin -> usr/sbin on merged-/usr systems
                    continue
                moved = _hide(root, "%s/%s" % (directory, tool), "tools")
                if moved:
                    hidden.append(moved)
        entry["hidden"] = hidden
    elif name == "no-kernel-headers":
        entry["hidden"] = [p for p in [_hide(root, kernel_build_dir(), "kernel")] if p]
    elif name == "partial-driver":
        tool = driver_path(root) + "/tools/upgrade-tool"
        entry["hidden"] = [p for p in [_hide(root, tool, "driver")] if p]
    state["faults"].append(entry)
    save_state(state, root)
    return entry


@locked
def fault_clear(name, root=None, npu=None, chip=None):
    state = load_state(root)
    keep, dropped = [], []
    for fault in state.get("faults", []):
        match = name in ("all", fault["name"])
        if match and npu is not None and fault.get("npu") not in (None, npu):
            match = False
        if match and chip is not None and fault.get("chip") not in (None, chip):
            match = False
        (dropped if match else keep).append(fault)
    state["faults"] = keep
    for fault in dropped:
        tag = {
            "missing-tools": "tools",
            "no-kernel-headers": "kernel",
            "partial-driver": "driver",
        }
        for path in fault.get("hidden", []):
            _unhide(root, path, tag[fault["name"]])
    for fault in dropped:
        if fault["name"] == "link-down":  # the cable is back: the port comes up
            _set_links(state, fault.get("npu"), fault.get("chip"), "UP")
    davinci = any(f["name"] == "missing-davinci" for f in dropped)
    if davinci and "devices" in state and driver_installed(root):
        create_devices(state, root, state["devices"]["gid"], state["devices"]["mode"])
    save_state(state, root)
    return dropped


def fault_active(state, name):
    return [f for f in (state or {}).get("faults", []) if f["name"] == name]


# ----------------------------------------------------------------------------- NPU network


def _chips_of(state, npu, chip):
    target = _npu(state, npu)
    chosen = [c for c in target["chips"] if chip is None or c["chip"] == chip]
    if not chosen:
        raise SimError("NPU %d has no chip %d" % (npu, chip))
    return chosen


def _checked_network(values):
    out = {}
    for key, value in values.items():
        if value is None:
            continue
        if key in ("address", "netmask", "gateway", "netdetect"):
            try:
                ipaddress.IPv4Address(value)
            except ValueError:
                raise SimError("--%s: %r is no IPv4 address" % (key, value)) from None
            out[key] = value
        elif key == "link":
            if str(value).upper() not in ("UP", "DOWN"):
                raise SimError("--link: UP or DOWN, not %r" % value)
            out[key] = str(value).upper()
        elif key == "mtu":
            if not 68 <= int(value) <= 9702:
                raise SimError("--mtu: 68 to 9702, not %s" % value)
            out[key] = int(value)
        else:
            raise SimError(
                "unknown network setting %r (known: %s)"
                % (key, ", ".join(dcmi.NETWORK_KEYS))
            )
    return out


def net_set(npu, chip=None, root=None, **values):
    """Set an NPU port's network settings directly (chip["network"], the keys hccn_tool sets).

    A test hook: the real way is hccn_tool -i <phy> -ip -s ..., -netdetect -s ..., -link -s.
    Returns the chips' network dicts after the change.
    """
    state = load_state(root)
    changes = _checked_network(values)
    chosen = _chips_of(state, npu, chip)
    for target in chosen:
        target.setdefault("network", {}).update(changes)
    save_state(state, root)
    return [dict(c["network"]) for c in chosen]


def net_clear(npu, chip=None, root=None):
    """Forget the port settings of an NPU (or one chip): not configured again."""
    state = load_state(root)
    chosen = _chips_of(state, npu, chip)
    for target in chosen:
        target.pop("network", None)
    save_state(state, root)
    return len(chosen)
