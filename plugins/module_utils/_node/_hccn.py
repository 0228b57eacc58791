# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The fleet plan of the hccn role (controller side; netaddr): from each host's request
# (its hccn_* variables and the NPU facts of the node) every RoCE port's address, netmask,
# gateway and detect address by the product's rule (data/hccn.yml), the MTU and the TLS switch;
# and the refusals, each with cause and fix, made before anything changes on any node.

from __future__ import annotations

try:
    import netaddr
except ImportError:  # pragma: no cover - netaddr is in requirements.txt
    netaddr = None


class HccnPlanError(Exception):
    """A plan that must not be applied; the message names the cause and the fix."""


PLAN_ARGUMENT_SPEC = {
    "requests": {"type": "dict"},
    "host": {"type": "str", "required": True},
    "data_file": {"type": "path"},
}

TLS_VALUES = {"enable": 1, "disable": 0, "keep": None}


def validate_data(data) -> dict:
    """data/hccn.yml as read from YAML, checked for the keys the plan uses."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise HccnPlanError("the hccn data file must be a mapping with schema: 1")
    for key in (
        "products",
        "no_roce_families",
        "no_roce_models",
        "forbidden_networks",
        "mtu",
    ):
        if key not in data:
            raise HccnPlanError("the hccn data file has no %r" % key)
    for name, product in data["products"].items():
        for key in ("rule", "subnets", "max_ports", "name"):
            if key not in product:
                raise HccnPlanError(
                    "the hccn data file's product %s has no %r" % (name, key)
                )
        if product["rule"] not in ("single", "paired", "dies"):
            raise HccnPlanError(
                "the hccn data file's product %s has an unknown rule %r"
                % (name, product["rule"])
            )
    return data


def _need_netaddr():
    if netaddr is None:
        raise HccnPlanError(
            "the Python library netaddr is missing on the controller; fix: pip install "
            "netaddr (it is in the collection's requirements.txt)"
        )


def _network(text, host, what):
    try:
        net = netaddr.IPNetwork(str(text))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise HccnPlanError(
            "%s: %s %r is not an IPv4 network; fix: write it as a.b.c.d/len, e.g. 10.20.0.0/24"
            % (host, what, text)
        ) from None
    if net.version != 4:
        raise HccnPlanError(
            "%s: %s %s is IPv6; the role plans IPv4 only; fix: use an IPv4 subnet"
            % (host, what, text)
        )
    if net.ip != net.network:
        raise HccnPlanError(
            "%s: %s %s has host bits set; fix: write the network, %s"
            % (host, what, text, net.cidr)
        )
    return net


def _address(text, host, what):
    try:
        addr = netaddr.IPAddress(str(text))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise HccnPlanError(
            "%s: %s %r is not an IPv4 address; fix: write a dotted quad"
            % (host, what, text)
        ) from None
    if addr.version != 4:
        raise HccnPlanError("%s: %s %s is IPv6; fix: use IPv4" % (host, what, text))
    return addr


def port_subnet_index(rule, port):
    """Index into hccn_subnets of a port (physical id) by the product's rule."""
    if rule == "single":
        return 0
    if rule == "paired":
        return port % 4
    return port % 2  # dies: die 0 of NPU k is 2k, die 1 is 2k+1


def _inside(addr, net):
    """addr is a usable host address of net (not its network or broadcast address)."""
    if addr not in net:
        return False
    if net.prefixlen >= 31:
        return True
    return addr not in (net.network, net.broadcast)


def _aligned(values, subnets, host, name):
    values = list(values or [])
    if values and len(values) != len(subnets):
        raise HccnPlanError(
            "%s: hccn_%s has %d entries for %d subnets; fix: give one per hccn_subnets entry "
            "(in the same order) or none" % (host, name, len(values), len(subnets))
        )
    return values


def host_ports(data, host, request):
    """(skip message or None, ports, settings) of one host, every per-host refusal raised."""
    family = request.get("family")
    subnets_in = list(request.get("subnets") or [])
    if not subnets_in and not request.get("addresses"):
        return (
            "%s: no hccn_subnets: the parameter plane is not managed here" % host,
            [],
            {},
        )
    if family in data["no_roce_families"]:
        return (
            "%s: skipped, NPU family %s has no parameter-plane port (%s)"
            % (host, family, data["no_roce_families"][family]),
            [],
            {},
        )
    model = request.get("model") or ""
    for name in data["no_roce_models"]:
        if name in model:
            return "%s: skipped, %s has no parameter-plane port" % (host, model), [], {}
    product = data["products"].get(family)
    if product is None:
        return (
            "%s: skipped, no NPU with a parameter-plane port found (NPU family %s)"
            % (host, family or "none"),
            [],
            {},
        )
    count = int(request.get("ports") or 0)
    if count < 1:
        return "%s: skipped, the node shows no NPU chip" % host, [], {}
    if count > product["max_ports"]:
        raise HccnPlanError(
            "%s: the node shows %d chips, a %s has at most %d; fix: check the facts of the node"
            % (host, count, product["name"], product["max_ports"])
        )
    subnets = [_network(s, host, "hccn_subnets entry") for s in subnets_in]
    for net in subnets:
        for bad in data["forbidden_networks"]:
            if net in netaddr.IPNetwork(bad) or netaddr.IPNetwork(bad) in net:
                raise HccnPlanError(
                    "%s: subnet %s overlaps %s, the NPU's virtual NIC host net that hccn_tool "
                    "refuses (The ip address configured is conflicted!); fix: choose another "
                    "subnet" % (host, net, bad)
                )
    if subnets and len(subnets) != product["subnets"]:
        raise HccnPlanError(
            "%s: a %s (rule %s) needs %d subnet(s) in hccn_subnets, %d given; fix: %s"
            % (
                host,
                product["name"],
                product["rule"],
                product["subnets"],
                len(subnets),
                {
                    "single": "one subnet for all ports of the node",
                    "paired": "four subnets, for the port pairs 0/4, 1/5, 2/6 and 3/7",
                    "dies": "two subnets, one for die 0 and one for die 1 of every NPU",
                }[product["rule"]],
            )
        )
    gateways = [
        _address(g, host, "gateway")
        for g in _aligned(request.get("gateways"), subnets, host, "gateways")
    ]
    detects = [
        _address(d, host, "detect address")
        for d in _aligned(request.get("netdetect"), subnets, host, "netdetect")
    ] or list(gateways)
    for index, gateway in enumerate(gateways):
        if not _inside(gateway, subnets[index]):
            raise HccnPlanError(
                "%s: gateway %s is not in its subnet %s (hccn_tool refuses it: The segment of "
                "configured gateway doesn't match ...); fix: a gateway inside %s"
                % (host, gateway, subnets[index], subnets[index])
            )

    explicit = list(request.get("addresses") or [])
    if explicit:
        if len(explicit) > count:
            raise HccnPlanError(
                "%s: %d addresses in hccn_addresses but the node has %d ports; fix: one "
                "address per port (physical ids 0..%d)"
                % (host, len(explicit), count, count - 1)
            )
        if len(explicit) < count:
            raise HccnPlanError(
                "%s: %d addresses in hccn_addresses for %d ports; fix: give one per port"
                % (host, len(explicit), count)
            )
        addresses = [_address(a, host, "hccn_addresses entry") for a in explicit]
    else:
        offset = int(request.get("host_offset") or 0)
        if offset < 1:
            raise HccnPlanError(
                "%s: neither hccn_addresses nor hccn_host_offset is set; fix: set "
                "hccn_host_offset (a different one per node, e.g. 10, 20, ...) or the addresses"
                % host
            )
        used = [0] * len(subnets)
        addresses = []
        for port in range(count):
            index = port_subnet_index(product["rule"], port)
            addresses.append(
                netaddr.IPAddress(int(subnets[index].network) + offset + used[index])
            )
            used[index] += 1

    ports = []
    for port, addr in enumerate(addresses):
        for bad in data["forbidden_networks"]:
            if addr in netaddr.IPNetwork(bad):
                raise HccnPlanError(
                    "%s: port %d address %s is in %s, which hccn_tool refuses; fix: another "
                    "subnet" % (host, port, addr, bad)
                )
        if subnets:
            index = port_subnet_index(product["rule"], port)
            net = subnets[index]
            if not _inside(addr, net):
                raise HccnPlanError(
                    "%s: port %d address %s is outside its subnet %s (%s rule of a %s); fix: %s"
                    % (
                        host,
                        port,
                        addr,
                        net,
                        product["rule"],
                        product["name"],
                        "a smaller hccn_host_offset or a larger subnet"
                        if not explicit
                        else "an address inside %s for port %d" % (net, port),
                    )
                )
        else:
            raise HccnPlanError(
                "%s: hccn_addresses without hccn_subnets; fix: list the subnets (they give the "
                "netmask and the product's pairing is checked against them)" % host
            )
        ports.append(
            {
                "id": port,
                "address": str(addr),
                "netmask": str(net.netmask),
                "subnet": str(net.cidr),
                "gateway": str(gateways[index]) if gateways else "",
                "netdetect": str(detects[index]) if detects else "",
            }
        )
        if gateways and gateways[index] == addr:
            raise HccnPlanError(
                "%s: port %d address %s is the gateway of %s; fix: another address"
                % (host, port, addr, net)
            )
    _check_pairing(product, ports, host)

    mtu = int(request.get("mtu") or 0)
    if mtu and not data["mtu"]["min"] <= mtu <= data["mtu"]["max"]:
        raise HccnPlanError(
            "%s: hccn_mtu %d is outside %d..%d (hccn_tool -mtu range); fix: e.g. 9000 or 0 to "
            "leave it" % (host, mtu, data["mtu"]["min"], data["mtu"]["max"])
        )
    tls = request.get("tls") or "keep"
    if tls not in TLS_VALUES:
        raise HccnPlanError(
            "%s: hccn_tls %r is not one of enable, disable, keep" % (host, tls)
        )
    return None, ports, {"mtu": mtu or None, "tls": tls}


def _check_pairing(product, ports, host):
    by_port = {p["id"]: p["subnet"] for p in ports}
    rule = product["rule"]
    if rule == "single" and len(set(by_port.values())) > 1:
        raise HccnPlanError(
            "%s: the ports of a %s must share one subnet, found %s; fix: addresses in one "
            "subnet" % (host, product["name"], ", ".join(sorted(set(by_port.values()))))
        )
    if rule == "paired":
        for port, subnet in by_port.items():
            if port < 4 and port + 4 in by_port and by_port[port + 4] != subnet:
                raise HccnPlanError(
                    "%s: ports %d and %d of a %s must share a subnet (%s vs %s); fix: pair "
                    "NPU0/4, 1/5, 2/6, 3/7"
                    % (host, port, port + 4, product["name"], subnet, by_port[port + 4])
                )
        first = [by_port[p] for p in range(4) if p in by_port]
        if len(set(first)) != len(first):
            raise HccnPlanError(
                "%s: ports 0-3 of a %s must be in four different subnets; fix: one subnet per "
                "pair" % (host, product["name"])
            )
    if rule == "dies":
        for port, subnet in by_port.items():
            if port % 2 == 0 and port + 1 in by_port and by_port[port + 1] == subnet:
                raise HccnPlanError(
                    "%s: the two dies of NPU %d (ports %d and %d) are both in %s; a %s needs them "
                    "in different subnets (same subnet: hccn_tool ping fails); fix: die 0 and die "
                    "1 in different subnets"
                    % (host, port // 2, port, port + 1, subnet, product["name"])
                )


def fleet_plan(data: dict, params: dict) -> dict:
    """The plan of params['host'] after checking the whole fleet (params['requests'])."""
    _need_netaddr()
    requests = params.get("requests") or {}
    me = params["host"]
    if me not in requests:
        raise HccnPlanError(
            "%s: no hccn request for this host; fix: run the role's gather on it" % me
        )
    plans, messages = {}, []
    for host in sorted(requests):
        skip, ports, settings = host_ports(data, host, requests[host] or {})
        if skip:
            messages.append(skip)
        plans[host] = {"skip": skip, "ports": ports, **settings}
    owners = {}
    for host, plan in sorted(plans.items()):
        for port in plan["ports"]:
            key = port["address"]
            if key in owners:
                raise HccnPlanError(
                    "duplicate address %s: %s port %d and %s port %d; fix: a different "
                    "hccn_host_offset per node (or other hccn_addresses); nothing was changed"
                    % (key, owners[key][0], owners[key][1], host, port["id"])
                )
            owners[key] = (host, port["id"])
    for host, plan in sorted(plans.items()):
        for port in plan["ports"]:
            for what in ("gateway", "netdetect"):
                if port[what] and port[what] in owners:
                    raise HccnPlanError(
                        "the %s %s of %s port %d is the address of %s port %d; fix: a %s that "
                        "no NPU port uses"
                        % (
                            what,
                            port[what],
                            host,
                            port["id"],
                            owners[port[what]][0],
                            owners[port[what]][1],
                            what,
                        )
                    )
    tls = {
        host: plan["tls"]
        for host, plan in plans.items()
        if plan["ports"] and plan.get("tls")
    }
    if len(set(tls.values())) > 1:
        groups = {}
        for host, value in sorted(tls.items()):
            groups.setdefault(value, []).append(host)
        raise HccnPlanError(
            "hccn_tls differs between the nodes (%s); HCCL refuses ranks whose TLS switch "
            "differs (Some ranks tlsStatus are inconsistent); fix: one hccn_tls for the whole "
            "fleet (disable is Huawei's advice)"
            % "; ".join("%s: %s" % (v, ", ".join(h)) for v, h in sorted(groups.items()))
        )
    mine = plans[me]
    peer = None
    if mine["ports"]:
        first = mine["ports"][0]
        subnet = netaddr.IPNetwork(first["subnet"])
        for host, plan in sorted(plans.items()):
            if host == me:
                continue
            for port in plan["ports"]:
                if netaddr.IPAddress(port["address"]) in subnet:
                    peer = {
                        "host": host,
                        "port": port["id"],
                        "address": port["address"],
                    }
                    break
            if peer:
                break
    return {
        "skip": mine["skip"],
        "ports": mine["ports"],
        "mtu": mine.get("mtu"),
        "tls": TLS_VALUES.get(mine.get("tls") or "keep"),
        "ping": (
            {"port": mine["ports"][0]["id"], **peer} if peer and mine["ports"] else None
        ),
        "messages": messages,
        "fleet": {host: len(plan["ports"]) for host, plan in sorted(plans.items())},
    }
