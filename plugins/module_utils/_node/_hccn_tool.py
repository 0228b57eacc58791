# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The node side of the hccn role, pure: hccn_tool's output read back (its formats from
# the driver's source, github.com/hicann/driver@ef377e9, src/custom/network/hccn), the commands
# that make a port as planned (only what differs), the problems verify reports, and the removal
# of keys from /etc/hccn.conf. Runs on the node: Python 3.8, standard library only.

from __future__ import annotations

import re

TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"
BUSY_RC = 11  # hccn_tool is busy, please try again. (0x300B & 0xFF)
NO_IP_RC = 13  # Get ipconf failed, because no ip was preset there!
NO_GATEWAY_RC = 2  # Get gateway failed, because no gateway was preset there!
HEALTHY = ("Success", "Init")  # MindCluster GetNetworkHealthy
PORT_KEYS = ("address", "netmask", "gateway", "netdetect")


class HccnToolError(Exception):
    """Output of hccn_tool that is not what the facts file says it prints."""


def _line(text, pattern, what):
    match = re.search(pattern, text or "", re.M)
    if not match:
        raise HccnToolError("unexpected %s output: %r" % (what, (text or "")[:200]))
    return match


def parse_ip(rc, stdout):
    """``-ip -g``: {address, netmask}; {} when no address was preset (exit 13)."""
    if rc == NO_IP_RC:
        return {}
    address = _line(stdout, r"^ipaddr:(\S+)\s*$", "-ip -g").group(1)
    netmask = _line(stdout, r"^netmask:(\S+)\s*$", "-ip -g").group(1)
    return {"address": address, "netmask": netmask}


def parse_gateway(rc, stdout):
    """``-gateway -g``: the gateway, "" when none was preset (exit 2)."""
    if rc == NO_GATEWAY_RC:
        return ""
    return _line(stdout, r"^default gateway:([^,\s]+), Iface:", "-gateway -g").group(1)


def parse_netdetect(stdout):
    """``-netdetect -g``: the detect address; "" for none (0.0.0.0)."""
    value = _line(stdout, r"^netdetect addr: ?(\S+)\s*$", "-netdetect -g").group(1)
    return "" if value == "0.0.0.0" else value


def parse_mtu(stdout):
    return int(_line(stdout, r"^mtu:(\d+)\s*$", "-mtu -g").group(1))


def parse_link(stdout):
    """``-link -g``: UP or DOWN (MindCluster splits on single spaces: 3 tokens)."""
    return _line(stdout, r"^link status: (UP|DOWN)\s*$", "-link -g").group(1)


def parse_health(stdout):
    return _line(stdout, r"^net health status: (.+?)\s*$", "-net_health -g").group(1)


def parse_tls(stdout):
    """``-tls -g``: the switch, 0 or 1."""
    return int(_line(stdout, r"tls switch\[(\d)\]", "-tls -g").group(1))


def parse_ping(stdout):
    """(transmitted, received) of ``-ping -g``."""
    match = _line(stdout, r"^(\d+) packets transmitted, (\d+) received", "-ping -g")
    return int(match.group(1)), int(match.group(2))


def conf_keys(text):
    """{key: value} of /etc/hccn.conf (comments skipped; the last line of a key wins)."""
    out = {}
    for line in (text or "").splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def port_commands(port, current):
    """The set commands (argv after the tool) that make ``current`` as ``port`` plans it.

    Nothing when they agree. A new address in another subnet makes hccn_tool drop the
    gateway, so the gateway is set again after it whenever the address changes."""
    dev = str(port["id"])
    commands = []
    ip_changed = (current.get("address"), current.get("netmask")) != (
        port["address"],
        port["netmask"],
    )
    if ip_changed:
        commands.append(
            [
                "-i",
                dev,
                "-ip",
                "-s",
                "address",
                port["address"],
                "netmask",
                port["netmask"],
            ]
        )
    if port.get("gateway") and (
        ip_changed or current.get("gateway") != port["gateway"]
    ):
        commands.append(["-i", dev, "-gateway", "-s", "gateway", port["gateway"]])
    if port.get("netdetect") and current.get("netdetect") != port["netdetect"]:
        commands.append(["-i", dev, "-netdetect", "-s", "address", port["netdetect"]])
    return commands


def setting_commands(dev, current, mtu=None, tls=None):
    commands = []
    if mtu and current.get("mtu") != mtu:
        commands.append(["-i", str(dev), "-mtu", "-s", "size", str(mtu)])
    if tls is not None and current.get("tls") != tls:
        commands.append(["-i", str(dev), "-tls", "-s", "enable", str(tls)])
    return commands


def remove_keys(text, keys):
    """/etc/hccn.conf without the lines of ``keys`` (every other line kept as it was)."""
    wanted = set(keys)
    kept = [
        line
        for line in (text or "").splitlines(True)
        if line.startswith("#")
        or "=" not in line
        or line.split("=", 1)[0].strip() not in wanted
    ]
    return "".join(kept)


def port_conf_keys(ids, mtu=False, tls=False):
    keys = []
    for dev in ids:
        keys += ["%s_%d" % (name, dev) for name in PORT_KEYS]
        if mtu:
            keys.append("mtu_%d" % dev)
        if tls:
            keys.append("tls_enable_%d" % dev)
    return keys


def problems(ports, observed, ping=None):
    """What verify refuses: a link not UP, a detect address whose health is not Success/Init,
    an address that differs from the plan, a ping to another node that got no answer."""
    out = []
    for port in ports:
        seen = observed.get(port["id"], {})
        dev = port["id"]
        if seen.get("address") != port["address"]:
            out.append(
                "port %d has address %s, the plan says %s"
                % (dev, seen.get("address") or "none", port["address"])
            )
        if seen.get("link") != "UP":
            out.append(
                "port %d link status: %s (cable, switch port or optics; see docs/troubleshooting.md)"
                % (dev, seen.get("link"))
            )
        if port.get("netdetect") and seen.get("health") not in HEALTHY:
            out.append(
                "port %d net health status: %s (detect address %s)"
                % (dev, seen.get("health"), port["netdetect"])
            )
    if ping is not None and ping.get("received", 0) < 1:
        lines = (ping.get("output") or "").strip().splitlines()
        out.append(
            "port %d cannot reach %s of %s: %s"
            % (
                ping["port"],
                ping["address"],
                ping["host"],
                lines[-1] if lines else "no answer",
            )
        )
    return out
