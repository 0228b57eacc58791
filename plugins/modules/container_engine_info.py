#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: container_engine_info
short_description: Decide which container engines the Ascend runtime is wired into, from the kubelet's CRI endpoint
version_added: 0.1.0
description:
  - Reads the container-runtime endpoint the kubelet uses - the running kubelet's command line
    (C(--container-runtime-endpoint) in C(/proc/<pid>/cmdline), which overrides the file), else
    C(containerRuntimeEndpoint) of its configuration file, else kubelet's default (containerd's
    socket) when a kubelet runs - and returns the engines to wire the Ascend runtime into.
  - The kubelet's engine always (a containerd socket - containerd; a cri-dockerd socket -
    Docker), plus the engine named by O(engine) when it is another one. Without a kubelet,
    O(engine=auto) is the running engine (Docker first, then containerd).
  - A kubelet that talks to another CRI (CRI-O, iSula) is refused with the endpoint named.
  - With O(check_default=true), also reads the default runtime of the kubelet's engine as the
    engine reads its configuration (C(containerd config dump), C(docker info)) and returns, in
    RV(problem), why it is not O(runtime_name) (troubleshooting row T22), naming Docker's
    C(daemon.json) when only that file has it.
  - Reads only. The decision lives in the collection's private C(module_utils._engines._kubelet_engine).
options:
  engine:
    description: C(ascend_runtime_engine) - C(auto), C(docker) or C(containerd).
    type: str
    choices: [auto, docker, containerd]
    default: auto
  kubelet_config:
    description: The kubelet's configuration file (KubeletConfiguration).
    type: path
    default: /var/lib/kubelet/config.yaml
  running_services:
    description:
      - Names of the running systemd services (C(docker.service), C(containerd.service),
        C(kubelet.service)), as C(ansible.builtin.service_facts) reports them.
    type: list
    elements: str
    default: []
  installed_services:
    description:
      - Names of the systemd services that exist. With O(state=absent) every installed engine
        whose configuration file (O(docker_config), O(containerd_config)) exists is listed in
        RV(engines) too, so that the runtime leaves every engine an earlier run may have wired.
    type: list
    elements: str
    default: []
  state:
    description: C(present) - the engines to wire; C(absent) - the engines to take the runtime out of.
    type: str
    choices: [present, absent]
    default: present
  proc_root:
    description: Where the processes are read (a test hook).
    type: path
    default: /proc
  check_default:
    description: Read the default runtime of the kubelet's engine and report a mismatch in RV(problem).
    type: bool
    default: false
  runtime_name:
    description: The runtime that must be the default (with O(check_default)).
    type: str
    default: ascend
  containerd_config:
    description: containerd's configuration file, given to C(containerd config dump).
    type: path
    default: /etc/containerd/config.toml
  docker_config:
    description: Docker's C(daemon.json), read to name it when only Docker has the runtime as its default.
    type: path
    default: /etc/docker/daemon.json
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - The module only reads, so check mode runs it normally.
  diff_mode:
    support: none
  platform:
    platforms: posix
    support: full
seealso:
  - module: cubestudio.ascend.docker_runtime_config
  - module: cubestudio.ascend.containerd_runtime_config
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read the services of the node
  ansible.builtin.service_facts:

- name: Decide the engines to wire
  cubestudio.ascend.container_engine_info:
    engine: docker
    running_services: "{{ ansible_facts['services'] | dict2items | selectattr('value.state', 'equalto', 'running')
      | map(attribute='key') | list }}"
  register: engines

- name: Check that the kubelet's engine runs the Ascend runtime as its default
  cubestudio.ascend.container_engine_info:
    check_default: true
    runtime_name: ascend
  register: kubelet_engine
  failed_when: kubelet_engine.problem | length > 0
"""

RETURN = r"""
engines:
  description: The engines to wire the runtime into, the kubelet's first; empty when no engine runs.
  returned: always
  type: list
  elements: str
  sample: [containerd, docker]
engine:
  description: The package's install scene - the kubelet's engine, else the only engine; empty when none.
  returned: always
  type: str
  sample: containerd
reason:
  description: Why these engines, in words.
  returned: always
  type: str
  sample: the kubelet talks to containerd at unix:///run/containerd/containerd.sock (from its configuration file)
kubelet:
  description: The kubelet's endpoint; null when no kubelet runs and its configuration names none.
  returned: always
  type: dict
  contains:
    endpoint:
      description: The container-runtime endpoint.
      type: str
      sample: unix:///run/containerd/containerd.sock
    source:
      description: C(command line), C(configuration file) or C(kubelet default).
      type: str
    running:
      description: A kubelet process or C(kubelet.service) runs.
      type: bool
    engine:
      description: C(containerd) or C(docker).
      type: str
default_runtime:
  description: The default runtime of the kubelet's engine (with O(check_default) and a kubelet), else null.
  returned: always
  type: str
  sample: runc
problem:
  description: Why the kubelet's engine does not run O(runtime_name) as its default, with the fix; empty when it does.
  returned: always
  type: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._kubelet_engine import (
    EngineRefusal,
    containerd_default_runtime,
    decide_engines,
    default_runtime_problem,
    kubelet_endpoint,
)


def kubelet_cmdlines(proc_root):
    """argv of every running process whose program is named kubelet."""
    found = []
    try:
        pids = [name for name in os.listdir(proc_root) if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            with open(os.path.join(proc_root, pid, "cmdline"), "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
        if argv and os.path.basename(argv[0]) == "kubelet":
            found.append(argv)
    return found


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def read_default(module, engine, params):
    """The engine's default runtime as the engine reads its configuration."""
    if engine == "containerd":
        argv = [
            module.get_bin_path("containerd", required=True),
            "--config",
            params["containerd_config"],
            "config",
            "dump",
        ]
        rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
        if rc != 0:
            module.fail_json(
                msg="`%s` failed (rc %d): %s" % (" ".join(argv), rc, err.strip())
            )
        try:
            return containerd_default_runtime(out)
        except ValueError as exc:
            module.fail_json(msg=str(exc))
    argv = [
        module.get_bin_path("docker", required=True),
        "info",
        "--format",
        "{{json .DefaultRuntime}}",
    ]
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
    if rc != 0:
        module.fail_json(
            msg="`%s` failed (rc %d): %s" % (" ".join(argv), rc, err.strip())
        )
    try:
        return json.loads(out)
    except ValueError:
        return out.strip()


def docker_default(path):
    text = read_text(path)
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data.get("default-runtime") if isinstance(data, dict) else None


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "engine": {
                "type": "str",
                "choices": ["auto", "docker", "containerd"],
                "default": "auto",
            },
            "kubelet_config": {
                "type": "path",
                "default": "/var/lib/kubelet/config.yaml",
            },
            "running_services": {"type": "list", "elements": "str", "default": []},
            "installed_services": {"type": "list", "elements": "str", "default": []},
            "state": {
                "type": "str",
                "choices": ["present", "absent"],
                "default": "present",
            },
            "proc_root": {"type": "path", "default": "/proc"},
            "check_default": {"type": "bool", "default": False},
            "runtime_name": {"type": "str", "default": "ascend"},
            "containerd_config": {
                "type": "path",
                "default": "/etc/containerd/config.toml",
            },
            "docker_config": {"type": "path", "default": "/etc/docker/daemon.json"},
        },
        supports_check_mode=True,
    )
    params = module.params
    running = params["running_services"]
    kubelet = kubelet_endpoint(
        kubelet_cmdlines(params["proc_root"]),
        read_text(params["kubelet_config"]),
        "kubelet.service" in running,
    )
    result = {
        "changed": False,
        "kubelet": kubelet,
        "engines": [],
        "engine": "",
        "reason": "",
        "default_runtime": None,
        "problem": "",
    }
    config_files = {
        "docker.service": params["docker_config"],
        "containerd.service": params["containerd_config"],
    }
    installed = [
        service
        for service in params["installed_services"]
        if service not in config_files or os.path.exists(config_files[service])
    ]
    try:
        decision = decide_engines(
            params["engine"], kubelet, running, installed, params["state"]
        )
    except EngineRefusal as exc:
        module.fail_json(msg=str(exc), **result)
    if kubelet is not None:
        kubelet["engine"] = decision["kubelet_engine"]
    result.update(
        engines=decision["engines"],
        engine=decision["engine"],
        reason=decision["reason"],
    )
    if params["check_default"] and kubelet is not None:
        engine = decision["kubelet_engine"]
        default = read_default(module, engine, params)
        result["default_runtime"] = default
        result["problem"] = default_runtime_problem(
            kubelet,
            engine,
            default,
            params["runtime_name"],
            docker_default(params["docker_config"]),
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
