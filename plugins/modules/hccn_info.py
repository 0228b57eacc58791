#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: hccn_info
short_description: Read the NPU parameter-plane ports back and say what is wrong with them
version_added: 0.1.0
description:
  - For every planned port reads C(hccn_tool -i N -ip -g), C(-link -g) and C(-net_health -g), and, with
    O(ping), pings another node's NPU address from one port (C(-ping -g address A)).
  - Returns what it read and RV(problems) - a link not C(UP), a port with a detect address whose health is
    neither C(Success) nor C(Init) (what MindCluster counts as healthy), an address that differs from the
    plan, a ping that got no answer. Changes nothing (get commands only).
options:
  ports:
    description: The planned ports (RV(cubestudio.ascend.ascend_hccn_plan#module:plan.ports)).
    type: list
    elements: dict
    default: []
  ping:
    description: C({port, address, host}) of the plan (RV(cubestudio.ascend.ascend_hccn_plan#module:plan.ping)); empty for none.
    type: dict
  executable:
    description: Path of C(hccn_tool).
    type: path
    default: /usr/local/Ascend/driver/tools/hccn_tool
  busy_retries:
    description: How often a busy C(hccn_tool) is retried.
    type: int
    default: 10
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - Runs as in a normal run (it only reads).
  diff_mode:
    support: none
  platform:
    platforms: posix
    support: full
author: cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
- name: Read the ports back
  cubestudio.ascend.hccn_info:
    ports: "{{ hccn_plan.ports }}"
    ping: "{{ hccn_plan.ping }}"
  register: hccn_seen
"""

RETURN = r"""
ports:
  description: What each port showed, by physical id.
  returned: always
  type: dict
  sample: {"0": {"address": "10.20.0.10", "netmask": "255.255.255.0", "link": "UP", "health": "Success"}}
ping:
  description: The ping, with C(transmitted), C(received) and C(output); null without O(ping).
  returned: always
  type: dict
problems:
  description: What verify refuses, one sentence each; empty when all is well.
  returned: always
  type: list
  elements: str
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._hccn_tool import (
    BUSY_RC,
    NO_IP_RC,
    HccnToolError,
    parse_health,
    parse_ip,
    parse_link,
    parse_ping,
    problems,
)


def tool(module, argv):
    for attempt in range(module.params["busy_retries"] + 1):
        rc, out, err = module.run_command([module.params["executable"], *argv])
        if rc != BUSY_RC:
            return rc, out, err
        if attempt < module.params["busy_retries"]:
            time.sleep(1)
    return rc, out, err


def must(module, argv, ok=(0,)):
    rc, out, err = tool(module, argv)
    if rc not in ok:
        module.fail_json(
            msg="hccn_tool %s failed (exit %d): %s"
            % (" ".join(argv), rc, (err or out).strip())
        )
    return rc, out


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "ports": {"type": "list", "elements": "dict", "default": []},
            "ping": {"type": "dict"},
            "executable": {
                "type": "path",
                "default": "/usr/local/Ascend/driver/tools/hccn_tool",
            },
            "busy_retries": {"type": "int", "default": 10},
        },
        supports_check_mode=True,
    )
    seen, ping = {}, None
    try:
        for port in module.params["ports"]:
            dev = str(int(port["id"]))
            rc, out = must(module, ["-i", dev, "-ip", "-g"], ok=(0, NO_IP_RC))
            entry = parse_ip(rc, out)
            entry["link"] = parse_link(must(module, ["-i", dev, "-link", "-g"])[1])
            entry["health"] = parse_health(
                must(module, ["-i", dev, "-net_health", "-g"])[1]
            )
            seen[int(dev)] = entry
        want = module.params["ping"]
        if want:
            argv = [
                "-i",
                str(int(want["port"])),
                "-ping",
                "-g",
                "address",
                str(want["address"]),
            ]
            rc, out, err = tool(module, argv)
            try:
                transmitted, received = parse_ping(out)
            except HccnToolError:
                transmitted, received = 0, 0
            ping = dict(
                want,
                transmitted=transmitted,
                received=received,
                rc=rc,
                output=(out + err),
            )
    except (HccnToolError, KeyError, ValueError, TypeError) as error:
        module.fail_json(msg="cannot read the ports: %s" % error)
    found = problems(module.params["ports"], seen, ping)
    module.exit_json(
        changed=False,
        ports={str(k): v for k, v in seen.items()},
        ping=ping,
        problems=found,
    )


if __name__ == "__main__":
    main()
