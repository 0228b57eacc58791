#!/bin/sh
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Minimal simulated hccn_tool (installed by the simulated driver as <driver>/tools/hccn_tool):
# answers the queries Huawei's device plugin and npu-exporter run (MindCluster
# ascend-common/devmanager/hccn/hccn_tool.go), in the exact output format they parse, plus a few
# other reads. It reads the NPU port settings from the DCMI device view next to the simulated
# libdcmi.so (<driver>/lib64/driver/ascend-sim-dcmi.view, keys phy= ip= mask= gw= detect= link=
# mtu= nethealth= speed=), so it works wherever the driver folder is mounted (pods included).
# POSIX sh with builtins only: the device plugin image has no python. On the node itself (python3
# and the simulator's state), the faithful tool beside it (hccn_tool.py: every command,
# /etc/hccn.conf, the locks) answers instead.
# Setting anything (-s) is not simulated here.

set -f
# The driver's tools folder is where this file is, not where $0 points: the driver links
# /usr/bin/hccn_tool to it (host_servers_setup.sh bin_config, hccn.md 1.1), and called by the
# bare name or through that link $0 is the link. Follow each link (readlink only then: the
# device plugin's image calls the absolute path of the file itself).
self=$0
case $self in
*/*) ;;
*) self=$(command -v -- "$self") || self=./$0 ;;
esac
while [ -L "$self" ]; do
    target=$(readlink -- "$self") || break
    case $target in
    /*) self=$target ;;
    *) self=${self%/*}/$target ;;
    esac
done
here=${self%/*}
# The faithful tool needs the simulator's state (the node itself); in a pod only the view is
# there. It knows every command but the counters (-speed, -stat, -link_stat, -bandwidth), which
# only this part answers, from the view.
counters=
for arg in "$@"; do
    case $arg in -speed | -stat | -link_stat | -bandwidth) counters=1 ;; esac
done
if [ -z "$counters" ] && [ -f "$here/hccn_tool.py" ] && command -v python3 >/dev/null 2>&1 &&
    [ -f "${ASCEND_SIM_ROOT:-}/var/lib/ascend-sim/state.json" ]; then
    exec python3 "$here/hccn_tool.py" "$@"
fi
view="$here/../lib64/driver/ascend-sim-dcmi.view"

fail() {
    echo "$1" >&2
    exit "${2:-1}"
}

dev=
attr=
get=
while [ $# -gt 0 ]; do
    case $1 in
    -i)
        shift
        dev=$1
        ;;
    -g) get=1 ;;
    -*) [ -z "$attr" ] && attr=${1#-} ;;
    esac
    shift
done
[ -n "$dev" ] || fail "hccn_tool: -i devid is required (ascend-sim answers only -i <id> -<attr> -g)"
[ -n "$get" ] || fail "hccn_tool: ascend-sim simulates only queries (-g) here"
[ -r "$view" ] || fail "Get device info failed, the device may not be started!" 3

found=
while IFS= read -r line; do
    case $line in
    "chip "*) ;;
    *) continue ;;
    esac
    phy='' ip='' mask='' gw='' detect='' link='' mtu='' nethealth='' speed=''
    for token in $line; do
        case $token in
        phy=*) phy=${token#phy=} ;;
        ip=*) ip=${token#ip=} ;;
        mask=*) mask=${token#mask=} ;;
        gw=*) gw=${token#gw=} ;;
        detect=*) detect=${token#detect=} ;;
        link=*) link=${token#link=} ;;
        mtu=*) mtu=${token#mtu=} ;;
        nethealth=*) nethealth=${token#nethealth=} ;;
        speed=*) speed=${token#speed=} ;;
        esac
    done
    if [ "$phy" = "$dev" ]; then
        found=1
        break
    fi
done <"$view"
[ -n "$found" ] || fail "Invalid device id: $dev" 10

case $attr in
link)
    echo "link status: $link"
    ;;
speed)
    if [ "$link" = UP ] && [ "$speed" != - ]; then
        echo "Speed: $speed Mb/s"
    else
        echo "Speed: Unknown!"
    fi
    ;;
link_stat)
    downs=0
    [ "$link" = UP ] || downs=1
    echo "[devid $dev]current time        : $(date 2>/dev/null)"
    echo "[devid $dev]link up count       : 1"
    echo "[devid $dev]link down count     : $downs"
    echo "[devid $dev]link change records :"
    ;;
stat)
    echo "packet statistics:"
    for key in mac_rx_mac_pause_num mac_tx_mac_pause_num mac_rx_pfc_pkt_num mac_tx_pfc_pkt_num \
        mac_rx_bad_pkt_num mac_tx_bad_pkt_num mac_rx_bad_oct_num mac_tx_bad_oct_num \
        mac_rx_fcs_err_pkt_num roce_rx_all_pkt_num roce_tx_all_pkt_num roce_rx_err_pkt_num \
        roce_tx_err_pkt_num roce_rx_cnp_pkt_num roce_tx_cnp_pkt_num roce_unexpected_ack_num \
        roce_out_of_order_num roce_verification_err_num roce_qp_status_err_num \
        roce_new_pkt_rty_num roce_ecn_db_num; do
        echo "$key:0"
    done
    ;;
bandwidth)
    echo "Bandwidth TX: 0.00 MB/sec"
    echo "Bandwidth RX: 0.00 MB/sec"
    ;;
ip)
    [ "$ip" != - ] || fail "Get ipconf failed, because no ip was preset there!" 13
    echo "ipaddr:$ip"
    echo "netmask:$mask"
    ;;
gateway)
    [ "$gw" != - ] || fail "Get gateway failed, because no gateway was preset there!" 13
    echo "default gateway:$gw, Iface:eth$dev"
    ;;
netdetect)
    [ "$detect" != - ] || detect=0.0.0.0 # UNCONFIRMED output when never set (hccn.md)
    echo "netdetect addr: $detect"
    ;;
mtu)
    echo "mtu:$mtu"
    ;;
net_health)
    case $nethealth in
    0) name=Success ;;
    1) name="Socket fail" ;;
    2) name="Receive timeout" ;;
    3) name=Unreachable ;;
    4) name="Time exceeded" ;;
    5) name=Fault ;;
    6) name=Init ;;
    7) name="Thread error" ;;
    8) name="Detect ip set" ;;
    *) name=Unknown ;;
    esac
    echo "net health status: $name"
    ;;
*)
    fail "hccn_tool: -$attr is not simulated by ascend-sim" 1
    ;;
esac
exit 0
