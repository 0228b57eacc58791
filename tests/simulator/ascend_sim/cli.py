# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``ascend-sim``: command line of the simulated Ascend node (see tests/simulator/README.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import artifacts, catalog, hardware


def _csv(values):
    out = []
    for value in values or []:
        out.extend(v for v in value.split(",") if v)
    return out


def _ints(text):
    try:
        return [int(v) for v in text.split(",") if v != ""]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated integers") from None


def cmd_build(args):
    entries = artifacts.build(
        args.out,
        trains=_csv(args.trains) or catalog.DEFAULT_TRAINS,
        arches=_csv(args.arch) or catalog.ARCHES,
        chips=_csv(args.chip) or catalog.CHIPS,
        sign=not args.unsigned,
        docker_runtime_dir=args.docker_runtime_dir,
    )
    for entry in entries:
        print("%s  %s" % (entry["sha256"], entry["file"]))
    print("%d packages, SHA256SUMS and artifacts.json in %s" % (len(entries), args.out))
    return 0


def cmd_hw_init(args):
    if os.path.exists(hardware.state_path()) and not args.force:
        state = hardware.load_state()
        if state.get("model") != args.model or len(state.get("npus", [])) != args.cards:
            raise hardware.SimError(
                "hardware already initialised as %s x %d (use --force to replace it)"
                % (state.get("model"), len(state.get("npus", [])))
            )
    state = hardware.hw_init(
        args.model,
        args.cards,
        sysfs_root=args.sysfs_root,
        npu_ids=args.npu_ids,
        lspci=not args.no_lspci,
        kernel_build=not args.no_kernel_build,
        boot_unit=not args.no_boot_unit,
        factory_fw=args.factory_firmware,
        node_id=args.node_id,
    )
    print(
        "simulated %s x %d (%d chips, PCI %s:%s) in %s; sysfs %s"
        % (
            state["model"],
            len(state["npus"]),
            len(hardware.chips(state)),
            catalog.HUAWEI_VENDOR[2:],
            state["pci_device"],
            hardware.state_path(),
            state["sysfs_root"],
        )
    )
    return 0


def cmd_fault(args):
    if args.action == "list":
        state = hardware.load_state(required=False) or {}
        for name in sorted(hardware.FAULTS):
            active = [f for f in state.get("faults", []) if f["name"] == name]
            flag = "ACTIVE" if active else "-"
            print("%-20s %-7s %s" % (name, flag, hardware.FAULTS[name]))
        return 0
    if args.name is None:
        raise hardware.SimError("fault %s needs a fault name" % args.action)
    if args.action == "set":
        entry = hardware.fault_set(
            args.name,
            npu=args.npu,
            chip=args.chip,
            temp=args.temp,
            codes=_csv(args.code),
            tools=_csv(args.tools),
            pid=args.pid,
            process=args.process,
            memory=args.memory,
            container_pid=args.container_pid,
            seconds=args.seconds,
            address=args.address,
            netmask=args.netmask,
        )
        print("fault set: %s" % json.dumps(entry, sort_keys=True))
        return 0
    dropped = hardware.fault_clear(args.name, npu=args.npu, chip=args.chip)
    print("faults cleared: %d" % len(dropped))
    return 0


def cmd_net(args):
    if args.action == "show":
        state = hardware.load_state()
        for npu in state["npus"]:
            for chip in npu["chips"]:
                print(
                    "npu %d chip %d: %s"
                    % (
                        npu["id"],
                        chip["chip"],
                        json.dumps(chip.get("network") or {}, sort_keys=True),
                    )
                )
        return 0
    if args.npu is None:
        raise hardware.SimError("net %s needs --npu" % args.action)
    if args.action == "clear":
        count = hardware.net_clear(args.npu, chip=args.chip)
        print("network cleared: %d chip(s)" % count)
        return 0
    nets = hardware.net_set(
        args.npu,
        chip=args.chip,
        address=args.address,
        netmask=args.netmask,
        gateway=args.gateway,
        netdetect=args.netdetect,
        link=args.link,
        mtu=args.mtu,
    )
    for net in nets:
        print("network set: %s" % json.dumps(net, sort_keys=True))
    return 0


def cmd_state(args):
    if args.action == "refresh":
        hardware.refresh()
        return 0
    state = hardware.load_state()
    if args.json:
        print(json.dumps(state, indent=2, sort_keys=True))
        return 0
    print(
        "model:        %s (%s, PCI 19e5:%s)"
        % (state["model"], state["family"], state["pci_device"])
    )
    print("npus:         %s" % ", ".join(str(n["id"]) for n in state["npus"]))
    print("chips:        %d" % len(hardware.chips(state)))
    print("sysfs root:   %s" % state["sysfs_root"])
    print(
        "driver:       %s"
        % ("installed" if hardware.driver_installed() else "not installed")
    )
    print("firmware:     %s (active)" % state.get("firmware_active"))
    pending = state.get("pending_reboot") or {}
    print(
        "reboot:       %s"
        % (", ".join("%s %s" % kv for kv in sorted(pending.items())) or "not needed")
    )
    print(
        "faults:       %s"
        % (", ".join(f["name"] for f in state.get("faults", [])) or "none")
    )
    return 0


def cmd_kernel(args):
    if args.action == "set":
        if args.cmdline is None and args.sriov_numvfs is None:
            raise hardware.SimError("kernel set needs --cmdline or --sriov-numvfs")
        state = hardware.kernel_set(
            cmdline=args.cmdline, numvfs=args.sriov_numvfs, npu=args.npu
        )
    elif args.action == "reset":
        state = hardware.kernel_set(
            cmdline=hardware.DEFAULT_CMDLINE, numvfs=0, npu=None
        )
    else:
        state = hardware.load_state()
    print(
        "cmdline:      %s" % (state.get("kernel_cmdline") or hardware.DEFAULT_CMDLINE)
    )
    vfs = state.get("sriov_numvfs") or {}
    print(
        "sriov_numvfs: %s"
        % (", ".join("%s=%d" % kv for kv in sorted(vfs.items())) or "0 on every NPU")
    )
    return 0


def cmd_boot(_args):
    state = hardware.boot()
    print(
        "booted: firmware %s active, %s"
        % (
            state.get("firmware_active"),
            "device nodes created"
            if "devices" in state and hardware.driver_installed()
            else "no driver loaded",
        )
    )
    return 0


def cmd_renumber(args):
    if len(args.npus) != 2:
        raise hardware.SimError("--npus takes two NPU ids, e.g. --npus 0,3")
    first, second = args.npus
    hardware.renumber(first, second, now=args.now)
    print(
        "NPUs %d and %d trade their numbers %s: each card keeps its bus id"
        % (first, second, "now" if args.now else "at the next boot (ascend-sim boot)")
    )
    return 0


def cmd_models(_args):
    for key in sorted(catalog.MODELS):
        mdl = catalog.MODELS[key]
        print(
            "%-12s family=%-5s pci=19e5:%s subsystem=%s chips/npu=%d max_cards=%d %s"
            % (
                key,
                mdl.family,
                mdl.pci_device,
                mdl.subsystem_device,
                mdl.chips_per_npu,
                mdl.max_cards,
                mdl.guess,
            )
        )
    return 0


def parser():
    top = argparse.ArgumentParser(prog="ascend-sim", description=__doc__)
    top.add_argument("--root", help="simulator root (default: $ASCEND_SIM_ROOT or /)")
    sub = top.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build-artifacts", help="write the simulated .run packages")
    build.add_argument("--out", required=True)
    build.add_argument(
        "--trains", action="append", help="e.g. 24.1.0,26.1.0 (default: all)"
    )
    build.add_argument(
        "--arch", action="append", help="x86_64 and/or aarch64 (default: both)"
    )
    build.add_argument(
        "--chip", action="append", help="910b, 910, 310p, a3 (default: all)"
    )
    build.add_argument(
        "--unsigned",
        action="store_true",
        help="no .cms/.crl beside the packages and no test CA in pki/",
    )
    build.add_argument(
        "--docker-runtime-dir",
        help="Huawei's real Ascend-docker-runtime_<ver>_linux-<arch>.run packages (make "
        "docker-runtime: .build/mindcluster/docker-runtime), used instead of the simulated ones",
    )
    build.set_defaults(func=cmd_build)

    init = sub.add_parser("hw-init", help="create the simulated hardware")
    init.add_argument("--model", required=True, choices=sorted(catalog.MODELS))
    init.add_argument("--cards", type=int, required=True)
    init.add_argument("--sysfs-root", default="/sys")
    init.add_argument("--npu-ids", type=_ints)
    init.add_argument(
        "--no-lspci", action="store_true", help="do not install the lspci shim"
    )
    init.add_argument(
        "--no-kernel-build", action="store_true", help="no fake kernel headers"
    )
    init.add_argument(
        "--no-boot-unit", action="store_true", help="no systemd boot unit"
    )
    init.add_argument("--factory-firmware", help="firmware the cards ship with")
    init.add_argument("--force", action="store_true", help="replace existing hardware")
    init.add_argument(
        "--node-id", help="name in the hccn fabric registry (default: the host name)"
    )
    init.set_defaults(func=cmd_hw_init)

    fault = sub.add_parser("fault", help="set, clear or list fault knobs")
    fault.add_argument("action", choices=("set", "clear", "list"))
    fault.add_argument("name", nargs="?")
    fault.add_argument("--npu", type=int)
    fault.add_argument("--chip", type=int)
    fault.add_argument("--temp", type=int)
    fault.add_argument("--code", action="append")
    fault.add_argument("--tools", action="append")
    fault.add_argument("--pid", type=int)
    fault.add_argument("--process")
    fault.add_argument("--memory", type=int)
    fault.add_argument("--container-pid", type=int)
    fault.add_argument("--address", help="ip-conflict: the duplicated address")
    fault.add_argument("--netmask", help="ip-conflict: its netmask (255.255.255.0)")
    fault.add_argument(
        "--seconds", type=int, help="slow-install: the pause (default 30)"
    )
    fault.set_defaults(func=cmd_fault)

    net = sub.add_parser(
        "net",
        help="set, clear or show an NPU port's network (what hccn_tool -ip/-netdetect/-link -s set)",
    )
    net.add_argument("action", choices=("set", "clear", "show"))
    net.add_argument("--npu", type=int)
    net.add_argument(
        "--chip", type=int, help="one chip (default: every chip of the NPU)"
    )
    net.add_argument("--address")
    net.add_argument("--netmask")
    net.add_argument("--gateway")
    net.add_argument("--netdetect")
    net.add_argument("--link", choices=("UP", "DOWN", "up", "down"))
    net.add_argument("--mtu", type=int)
    net.set_defaults(func=cmd_net)

    state = sub.add_parser("state", help="show the simulated hardware")
    state.add_argument(
        "action",
        choices=("show", "refresh"),
        help="refresh: rewrite the views derived from the state (hccn_tool runs it)",
    )
    state.add_argument("--json", action="store_true")
    state.set_defaults(func=cmd_state)

    kernel = sub.add_parser(
        "kernel",
        help="set or show the kernel command line and the NPUs' SR-IOV virtual functions",
    )
    kernel.add_argument(
        "action",
        choices=("set", "show", "reset"),
        help="reset: the default command line, no virtual functions",
    )
    kernel.add_argument(
        "--cmdline", help="the whole kernel command line (/proc/cmdline)"
    )
    kernel.add_argument(
        "--sriov-numvfs",
        type=int,
        help="virtual functions on the NPU functions (0 removes them)",
    )
    kernel.add_argument("--npu", type=int, help="one NPU (default: every NPU)")
    kernel.set_defaults(func=cmd_kernel)

    boot = sub.add_parser(
        "boot", help="what a reboot does (device nodes, firmware activation)"
    )
    boot.set_defaults(func=cmd_boot)

    renumber = sub.add_parser(
        "renumber",
        help="device numbering drift: two NPUs trade their numbers (NPU id, /dev/davinci<N>)"
        " at the next boot, each card keeping its PCI bus id",
    )
    renumber.add_argument(
        "--npus",
        type=_ints,
        default=[0, 1],
        help="the two NPU ids that trade numbers (default: 0,1)",
    )
    renumber.add_argument(
        "--now", action="store_true", help="now instead of at the next boot"
    )
    renumber.set_defaults(func=cmd_renumber)

    models = sub.add_parser("models", help="list the NPU models hw-init knows")
    models.set_defaults(func=cmd_models)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    if args.root:
        os.environ["ASCEND_SIM_ROOT"] = args.root
    try:
        return args.func(args)
    except (hardware.SimError, KeyError, ValueError) as err:
        sys.stderr.write("ascend-sim: %s\n" % (err.args[0] if err.args else err))
        return 1


if __name__ == "__main__":
    sys.exit(main())
