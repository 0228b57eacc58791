#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: hccn_config
short_description: Make the NPU parameter-plane (RoCE) ports as planned, with hccn_tool, only where they differ
version_added: 0.1.0
description:
  - Reads every planned port back with C(hccn_tool -i N -ip -g), C(-gateway -g), C(-netdetect -g) (and
    C(-mtu -g), and C(-tls -g) where C(/etc/hccn.conf) already records the switch) and runs, one after the
    other, only the set commands that make the port as planned. A port that agrees gets no command; a re-run
    sends no set command and reports no change.
  - C(hccn_tool) itself writes C(/etc/hccn.conf) (C(address_N), C(netmask_N), C(gateway_N), C(netdetect_N),
    C(mtu_N), C(tls_enable_N)); every other key of the file is kept. A new address in another subnet makes
    C(hccn_tool) drop the gateway, so the gateway is set again after it.
  - O(state=absent) removes the keys of O(remove_ports) from C(/etc/hccn.conf) (every other line kept), so
    that the next device boot (the driver's C(hccn_tool -cfg recovery)) leaves those ports unconfigured;
    C(hccn_tool) has no command that removes a live address.
  - C(hccn_tool is busy, please try again.) (exit 11) is retried O(busy_retries) times, a second apart.
options:
  ports:
    description: The planned ports (RV(cubestudio.ascend.ascend_hccn_plan#module:plan.ports)).
    type: list
    elements: dict
    default: []
  mtu:
    description: MTU of every planned port; 0 leaves it.
    type: int
    default: 0
  tls:
    description: TLS switch of every planned port (0 or 1); empty leaves it.
    type: int
  state:
    description: C(present) applies the plan, C(absent) removes keys from C(/etc/hccn.conf).
    type: str
    choices: [present, absent]
    default: present
  remove_ports:
    description: With O(state=absent), the physical ids whose keys are removed.
    type: list
    elements: int
    default: []
  remove_settings:
    description: With O(state=absent), also remove C(mtu_N) and C(tls_enable_N).
    type: bool
    default: false
  executable:
    description: Path of C(hccn_tool) (MindCluster runs this path and refuses a symlink).
    type: path
    default: /usr/local/Ascend/driver/tools/hccn_tool
  conf:
    description: The configuration file C(hccn_tool) writes.
    type: path
    default: /etc/hccn.conf
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
      - Reads the ports and reports the commands it would run; runs no set command and writes nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
author: cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
- name: Address the RoCE ports
  cubestudio.ascend.hccn_config:
    ports: "{{ hccn_plan.ports }}"
    mtu: 9000
    tls: 0
"""

RETURN = r"""
commands:
  description: The hccn_tool commands run (in check mode, that would run), each as its argument list.
  returned: always
  type: list
  elements: list
  sample: [["-i", "0", "-ip", "-s", "address", "10.20.0.10", "netmask", "255.255.255.0"]]
before:
  description: What each planned port had before, by physical id.
  returned: always
  type: dict
  sample: {"0": {"address": "10.20.0.10", "netmask": "255.255.255.0", "gateway": "10.20.0.1", "netdetect": "10.20.0.1"}}
removed:
  description: With O(state=absent), the keys removed from the configuration file.
  returned: always
  type: list
  elements: str
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._hccn_tool import (
    BUSY_RC,
    NO_GATEWAY_RC,
    NO_IP_RC,
    HccnToolError,
    conf_keys,
    parse_gateway,
    parse_ip,
    parse_mtu,
    parse_netdetect,
    parse_tls,
    port_commands,
    port_conf_keys,
    remove_keys,
    setting_commands,
)

PORT_FIELDS = ("id", "address", "netmask")


def tool(module, argv, ok=(0,)):
    """(rc, stdout) of one hccn_tool call; busy retried; other failures fail the task."""
    executable = module.params["executable"]
    for attempt in range(module.params["busy_retries"] + 1):
        rc, out, err = module.run_command([executable, *argv])
        if rc != BUSY_RC:
            break
        if attempt < module.params["busy_retries"]:
            time.sleep(1)
    if rc not in ok:
        module.fail_json(
            msg="hccn_tool %s failed (exit %d): %s"
            % (" ".join(argv), rc, (err or out).strip()),
            rc=rc,
            stdout=out,
            stderr=err,
        )
    return rc, out


def read_conf(module):
    try:
        with open(module.params["conf"], encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        module.fail_json(
            msg="cannot read %s: %s" % (module.params["conf"], error.strerror)
        )
    return None


def read_port(module, dev, conf):
    rc, out = tool(module, ["-i", str(dev), "-ip", "-g"], ok=(0, NO_IP_RC))
    current = parse_ip(rc, out)
    rc, out = tool(module, ["-i", str(dev), "-gateway", "-g"], ok=(0, NO_GATEWAY_RC))
    current["gateway"] = parse_gateway(rc, out)
    current["netdetect"] = parse_netdetect(
        tool(module, ["-i", str(dev), "-netdetect", "-g"])[1]
    )
    if module.params["mtu"]:
        current["mtu"] = parse_mtu(tool(module, ["-i", str(dev), "-mtu", "-g"])[1])
    if module.params["tls"] is not None and "tls_enable_%d" % dev in conf:
        # the first -tls -g writes tls_enable_N: read only where the file has it already
        current["tls"] = parse_tls(tool(module, ["-i", str(dev), "-tls", "-g"])[1])
    return current


def present(module, result):
    conf_text = read_conf(module)
    if conf_text is None:
        module.fail_json(
            msg="%s does not exist: hccn_tool refuses every set command without it (the driver "
            "install creates it); fix: reinstall the driver or create it empty, mode 0644"
            % module.params["conf"]
        )
    conf = conf_keys(conf_text)
    before, commands = {}, []
    for port in module.params["ports"]:
        missing = [f for f in PORT_FIELDS if port.get(f) in (None, "")]
        if missing:
            module.fail_json(
                msg="a port of the plan has no %s: %r" % (", ".join(missing), port)
            )
        dev = int(port["id"])
        current = read_port(module, dev, conf)
        before[str(dev)] = current
        commands += port_commands(port, current)
        commands += setting_commands(
            dev, current, module.params["mtu"], module.params["tls"]
        )
    result["before"] = before
    result["commands"] = commands
    if commands:
        result["changed"] = True
        result["diff"] = {
            "before": "".join("hccn_tool %s\n" % " ".join(c[:3]) for c in commands),
            "after": "".join("hccn_tool %s\n" % " ".join(c) for c in commands),
        }
    if module.check_mode:
        return
    for command in commands:
        out = tool(module, command)[1]
        if "Cmd executed successfully!" not in out:
            module.fail_json(
                msg="hccn_tool %s did not confirm: %s"
                % (" ".join(command), out.strip())
            )


def absent(module, result):
    text = read_conf(module)
    result["before"], result["commands"] = {}, []
    if text is None:
        result["removed"] = []
        return
    keys = port_conf_keys(
        module.params["remove_ports"],
        mtu=module.params["remove_settings"],
        tls=module.params["remove_settings"],
    )
    present_keys = conf_keys(text)
    result["removed"] = [k for k in keys if k in present_keys]
    if not result["removed"]:
        return
    new = remove_keys(text, keys)
    result["changed"] = True
    result["diff"] = {"before": text, "after": new}
    if module.check_mode:
        return
    path = module.params["conf"]
    tmp = "%s.cubestudio.%d" % (path, os.getpid())
    info = os.stat(path)
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(new)
    os.chmod(tmp, info.st_mode & 0o7777)
    os.chown(tmp, info.st_uid, info.st_gid)
    os.replace(tmp, path)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "ports": {"type": "list", "elements": "dict", "default": []},
            "mtu": {"type": "int", "default": 0},
            "tls": {"type": "int"},
            "state": {
                "type": "str",
                "choices": ["present", "absent"],
                "default": "present",
            },
            "remove_ports": {"type": "list", "elements": "int", "default": []},
            "remove_settings": {"type": "bool", "default": False},
            "executable": {
                "type": "path",
                "default": "/usr/local/Ascend/driver/tools/hccn_tool",
            },
            "conf": {"type": "path", "default": "/etc/hccn.conf"},
            "busy_retries": {"type": "int", "default": 10},
        },
        supports_check_mode=True,
    )
    if module.params["tls"] not in (None, 0, 1):
        module.fail_json(msg="tls must be 0 or 1, got %r" % module.params["tls"])
    result = {"changed": False, "commands": [], "before": {}, "removed": []}
    if module.params["state"] == "present":
        if not os.path.isfile(module.params["executable"]):
            module.fail_json(
                msg="%s is missing: the NPU driver installs it; fix: install the driver first"
                % module.params["executable"]
            )
        try:
            present(module, result)
        except HccnToolError as error:
            module.fail_json(msg=str(error))
    else:
        absent(module, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
