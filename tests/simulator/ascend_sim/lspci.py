# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``lspci`` shim over the simulator's fake sysfs (standalone: no simulator imports).

Reads ``<sysfs_root>/bus/pci/devices/*/{vendor,device,class,revision}`` and prints what
pciutils prints for them: ``c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd.
Device d802 (rev 20)``. Supported options: -n, -nn, -D, -d [vendor]:[device][:class],
-s [[domain:]bus:][slot][.func]; anything else exits 2 with a message (not simulated).
The sysfs root is $ASCEND_SIM_SYSFS_ROOT, else the ``sysfs_root`` of the simulator state,
else /sys (all below $ASCEND_SIM_ROOT).
"""

from __future__ import annotations

import json
import os
import re
import sys

STATE_RELPATH = "var/lib/ascend-sim/state.json"

CLASS_NAMES = {
    "0600": "Host bridge",
    "0601": "ISA bridge",
    "0604": "PCI bridge",
    "0200": "Ethernet controller",
    "0300": "VGA compatible controller",
    "0106": "SATA controller",
    "0108": "Non-Volatile memory controller",
    "1200": "Processing accelerators",
}
VENDOR_NAMES = {
    "19e5": "Huawei Technologies Co., Ltd.",
    "8086": "Intel Corporation",
    "1af4": "Red Hat, Inc.",
}
# pci.ids has no names for the Ascend device ids, so lspci prints "Device d802".
DEVICE_NAMES = {
    ("8086", "1237"): "440FX - 82441FX PMC [Natoma]",
    ("8086", "7000"): "82371SB PIIX3 ISA [Natoma/Triton II]",
    ("1af4", "1000"): "Virtio network device",
}


def rooted(root, path):
    return os.path.join(root, path.lstrip("/"))


def sysfs_root():
    root = os.environ.get("ASCEND_SIM_ROOT") or "/"
    explicit = os.environ.get("ASCEND_SIM_SYSFS_ROOT")
    if explicit:
        return rooted(root, explicit)
    try:
        with open(rooted(root, STATE_RELPATH), encoding="utf-8") as handle:
            configured = json.load(handle).get("sysfs_root")
    except (OSError, ValueError):
        configured = None
    return rooted(root, configured or "/sys")


def _read(path, default=""):
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return default


def _hex(value, width):
    value = value.lower()
    if value.startswith("0x"):
        value = value[2:]
    return value.rjust(width, "0")[-width:]


def devices(root):
    base = os.path.join(root, "bus", "pci", "devices")
    try:
        names = os.listdir(base)
    except OSError:
        return []
    out = []
    for name in names:
        match = re.fullmatch(
            r"([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])", name
        )
        if not match:
            continue
        path = os.path.join(base, name)
        out.append(
            {
                "domain": match.group(1).lower(),
                "bus": match.group(2).lower(),
                "slot": match.group(3).lower(),
                "func": match.group(4),
                "vendor": _hex(_read(os.path.join(path, "vendor"), "0"), 4),
                "device": _hex(_read(os.path.join(path, "device"), "0"), 4),
                "class": _hex(_read(os.path.join(path, "class"), "0"), 6),
                "revision": _hex(_read(os.path.join(path, "revision"), "0x00"), 2),
            }
        )
    out.sort(
        key=lambda d: (
            int(d["domain"], 16),
            int(d["bus"], 16),
            int(d["slot"], 16),
            int(d["func"]),
        )
    )
    return out


def _match_filter(dev, spec):
    parts = spec.split(":")
    if len(parts) > 3:
        raise ValueError("-d: invalid filter %r" % spec)
    parts += [""] * (3 - len(parts))
    vendor, device, klass = (p.lower() for p in parts)
    for value, have in ((vendor, dev["vendor"]), (device, dev["device"])):
        if value and value != "*" and _hex(value, 4) != have:
            return False
    return not (klass and klass != "*" and _hex(klass, 4) != dev["class"][:4])


def _match_slot(dev, spec):
    match = re.fullmatch(
        r"(?:(?:([0-9a-fA-F]*):)?([0-9a-fA-F]*):)?([0-9a-fA-F]*)(?:\.([0-7*]?))?", spec
    )
    if not match:
        raise ValueError("-s: invalid slot %r" % spec)
    domain, bus, slot, func = match.groups()
    for value, have, width in (
        (domain, dev["domain"], 4),
        (bus, dev["bus"], 2),
        (slot, dev["slot"], 2),
    ):
        if value and value != "*" and _hex(value, width) != have:
            return False
    return not (func and func != "*" and func != dev["func"])


def render(dev, numeric, show_domain):
    address = "%s:%s.%s" % (dev["bus"], dev["slot"], dev["func"])
    if show_domain or dev["domain"] != "0000":
        address = dev["domain"] + ":" + address
    klass = dev["class"][:4]
    rev = "" if dev["revision"] == "00" else " (rev %s)" % dev["revision"]
    if numeric == 1:
        return "%s %s: %s:%s%s" % (address, klass, dev["vendor"], dev["device"], rev)
    class_name = CLASS_NAMES.get(klass, "Class %s" % klass)
    vendor_name = VENDOR_NAMES.get(dev["vendor"], "Device %s" % dev["vendor"])
    known = DEVICE_NAMES.get((dev["vendor"], dev["device"]))
    device_name = known or "Device %s" % dev["device"]
    if numeric == 2:
        device_name = known or "Device"
        return "%s %s [%s]: %s %s [%s:%s]%s" % (
            address,
            class_name,
            klass,
            vendor_name,
            device_name,
            dev["vendor"],
            dev["device"],
            rev,
        )
    return "%s %s: %s %s%s" % (address, class_name, vendor_name, device_name, rev)


def run(argv):
    """Return (rc, stdout, stderr)."""
    numeric = 0
    show_domain = False
    filters = []
    slots = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "-n":
            numeric += 1
        elif arg == "-nn":
            numeric += 2
        elif arg == "-D":
            show_domain = True
        elif arg in ("-d", "-s"):
            if not args:
                return 2, "", "lspci: option requires an argument -- '%s'\n" % arg[1]
            (filters if arg == "-d" else slots).append(args.pop(0))
        elif arg.startswith(("-d", "-s")):
            (filters if arg.startswith("-d") else slots).append(arg[2:])
        else:
            return (
                2,
                "",
                "lspci: option %s is not simulated (ascend-sim lspci shim supports "
                "-n, -nn, -D, -d, -s)\n" % arg,
            )
    numeric = min(numeric, 2)
    try:
        lines = [
            render(dev, numeric, show_domain)
            for dev in devices(sysfs_root())
            if all(_match_filter(dev, f) for f in filters)
            and all(_match_slot(dev, s) for s in slots)
        ]
    except ValueError as err:
        return 2, "", "lspci: %s\n" % err
    return 0, "".join(line + "\n" for line in lines), ""


def main(argv=None):
    rc, out, err = run(sys.argv[1:] if argv is None else argv)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return rc


if __name__ == "__main__":
    sys.exit(main())
