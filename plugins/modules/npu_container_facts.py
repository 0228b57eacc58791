#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: npu_container_facts
short_description: Find the running containers that use Ascend NPU devices (Docker and containerd)
version_added: 0.1.0
description:
  - Asks Docker (C(docker ps), C(docker inspect)) and containerd (C(ctr), every namespace, so
    Kubernetes pods in C(k8s.io) and Docker's own C(moby) containers too) for their running
    containers, and sets the fact C(ascend_npu_containers) with those that use the devices of
    the Ascend driver - C(/dev/davinci<N>), C(/dev/davinci_manager), C(/dev/devmm_svm),
    C(/dev/hisi_hdc).
  - A container counts when it maps one of these devices (C(--device), a device plugin), binds
    one of them or the whole C(/dev), is privileged, or sets C(ASCEND_VISIBLE_DEVICES) (the
    Ascend Docker Runtime maps the devices it names).
  - This is the check Huawei's own deployer makes before it touches the driver; the
    C(npu_driver) role refuses to change the driver or the firmware while such a container runs.
  - An engine whose program is not installed, or whose daemon is not running, has no running
    containers and is not an error. A daemon that runs but cannot be asked is an error, because
    then nothing can be said about its containers.
options:
  engines:
    description: The engines to ask. Each is asked only when its program is installed.
    type: list
    elements: str
    choices: [docker, containerd]
    default: [docker, containerd]
  containerd_address:
    description: Socket of containerd. When it does not exist, containerd is not running.
    type: path
    default: /run/containerd/containerd.sock
  timeout:
    description: Seconds each C(docker) or C(ctr) call may take.
    type: int
    default: 30
  fail_on_error:
    description:
      - Fail when a running engine cannot be asked. With V(false) the reason is in
        RV(ansible_facts.ascend_npu_containers.errors) and the task succeeds.
    type: bool
    default: true
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.facts_module
notes:
  - Run it as root (C(become)); the engines' sockets are not readable by other users.
  - Parsing lives in the collection's private C(module_utils._engines._containers) and is unit-tested on
    real C(docker inspect) and C(ctr containers info) output.
  - A container that sets C(ASCEND_VISIBLE_DEVICES) but runs with plain C(runc) is counted too;
    the variable alone cannot tell which runtime will read it.
seealso:
  - module: cubestudio.ascend.npu_smi_facts
  - module: cubestudio.ascend.ascend_facts
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Find the containers that use the NPUs
  cubestudio.ascend.npu_container_facts:

- name: Refuse to touch the driver while a container uses the NPUs
  ansible.builtin.assert:
    that: ansible_facts['ascend_npu_containers']['containers'] | length == 0
    fail_msg: >-
      Containers use the NPUs: {{ ansible_facts['ascend_npu_containers']['containers']
      | map(attribute='name') | join(', ') }}. Stop them first.

- name: Ask containerd only, and do not fail when it cannot be asked
  cubestudio.ascend.npu_container_facts:
    engines: [containerd]
    fail_on_error: false
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    ascend_npu_containers:
      description: The running containers that use Ascend devices, and what each engine said.
      returned: always
      type: dict
      contains:
        containers:
          description: Running containers that use Ascend devices (one entry per container,
            a Docker container seen through containerd's C(moby) namespace too is listed once).
          type: list
          elements: dict
          contains:
            engine:
              description: C(docker) or C(containerd).
              type: str
            namespace:
              description: containerd namespace (C(k8s.io) for Kubernetes); null for Docker.
              type: str
            id:
              description: Container id.
              type: str
            name:
              description: Container name (Docker), Kubernetes container name, else the id.
              type: str
            pod:
              description: C(<namespace>/<pod>) of a Kubernetes container, else null.
              type: str
            image:
              description: Image reference.
              type: str
            runtime:
              description: Runtime the engine recorded (C(runc), C(ascend), C(io.containerd.runc.v2)).
              type: str
            devices:
              description: Ascend device nodes the container maps, sorted.
              type: list
              elements: str
              sample: [/dev/davinci0, /dev/davinci_manager]
            all_devices:
              description: The container sees every host device (privileged, or C(/dev) bound).
              type: bool
            privileged:
              description: The container is privileged.
              type: bool
            visible_devices:
              description: Its C(ASCEND_VISIBLE_DEVICES), null when not set.
              type: str
              sample: "0-3"
            reasons:
              description: Why it counts - C(devices), C(dev_mount), C(privileged), C(env).
              type: list
              elements: str
            env:
              description:
                - The container's C(ASCEND_*) and C(LD_LIBRARY_PATH) variables as the engine runs it (the
                  image's C(ENV) with the run's or the pod's on top); no other variable is returned.
                - The doctor holds them against what CANN needs (row T49).
              type: dict
              sample: {ASCEND_TOOLKIT_HOME: /usr/local/Ascend/ascend-toolkit/latest}
            labels:
              description:
                - The container's labels under C(cubestudio.ascend/), which hold the image's (Docker and
                  the CRI copy an image's labels into its containers'), such as
                  C(cubestudio.ascend/cann-version); no other label is returned.
              type: dict
              sample: {cubestudio.ascend/cann-version: 8.5.0}
            running:
              description: Always true (only running containers are listed).
              type: bool
            uses_npu:
              description: Always true (only such containers are listed).
              type: bool
        engines:
          description: What was found per engine.
          type: dict
          contains:
            docker:
              description: C(present) (the CLI is installed), C(running) (the daemon answered),
                C(containers) (running containers seen), C(error) (null or why it could not
                be asked).
              type: dict
              sample: {present: true, running: true, containers: 3, error: null}
            containerd:
              description: The same for containerd, plus C(namespaces).
              type: dict
              sample: {present: true, running: true, containers: 12, namespaces: [k8s.io, moby], error: null}
        errors:
          description: Why an engine could not be asked; empty when every running engine answered.
          type: list
          elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._containers import (
    ContainersParseError,
    containerd_usage,
    docker_is_down,
    docker_usage,
    live_tasks,
    parse_ctr_tasks,
    parse_ids,
    parse_json,
)


def _excerpt(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


class Runner:
    def __init__(self, module: AnsibleModule) -> None:
        self.module = module
        self.timeout = module.params["timeout"]
        self.timeout_bin = module.get_bin_path("timeout")

    def __call__(self, argv: list):
        if self.timeout_bin:
            argv = [self.timeout_bin, "--kill-after=5", str(self.timeout)] + argv
        return self.module.run_command(
            argv, check_rc=False, environ_update={"LC_ALL": "C"}
        )


def ask_docker(module: AnsibleModule, run: Runner):
    state = {"present": False, "running": False, "containers": 0, "error": None}
    docker = module.get_bin_path("docker")
    if not docker:
        return state, []
    state["present"] = True
    rc, out, err = run([docker, "ps", "-q", "--no-trunc"])
    if rc != 0:
        if docker_is_down(out + "\n" + err):
            return state, []
        state["error"] = "docker ps failed with exit code %d: %s" % (
            rc,
            _excerpt(err or out),
        )
        return state, []
    state["running"] = True
    ids = parse_ids(out)
    state["containers"] = len(ids)
    if not ids:
        return state, []
    rc, out, err = run([docker, "inspect"] + ids)
    # A container that stops between `ps` and `inspect` makes inspect exit 1 after printing
    # the others: read what it printed.
    try:
        records = parse_json(out, "docker inspect")
        if not isinstance(records, list):
            raise ContainersParseError("docker inspect did not print a list")
        usages = [docker_usage(record) for record in records]
    except ContainersParseError as error:
        state["error"] = "%s (exit code %d: %s)" % (error, rc, _excerpt(err))
        return state, []
    return state, [u for u in usages if u["running"] and u["uses_npu"]]


def ask_containerd(module: AnsibleModule, run: Runner):
    state = {
        "present": False,
        "running": False,
        "containers": 0,
        "namespaces": [],
        "error": None,
    }
    ctr = module.get_bin_path("ctr")
    if not ctr:
        return state, []
    state["present"] = True
    address = module.params["containerd_address"]
    if not os.path.exists(address):
        return state, []
    base = [ctr, "--address", address]
    rc, out, err = run(base + ["namespaces", "list", "-q"])
    if rc != 0:
        state["error"] = (
            "containerd's socket %s exists but ctr namespaces list failed with exit code %d: %s"
            % (address, rc, _excerpt(err or out))
        )
        return state, []
    state["running"] = True
    state["namespaces"] = parse_ids(out)
    usages = []
    try:
        for namespace in state["namespaces"]:
            rc, out, err = run(base + ["--namespace", namespace, "tasks", "list"])
            if rc != 0:
                raise ContainersParseError(
                    "ctr tasks list in namespace %s failed with exit code %d: %s"
                    % (namespace, rc, _excerpt(err or out))
                )
            for task_id in live_tasks(parse_ctr_tasks(out)):
                state["containers"] += 1
                rc, out, err = run(
                    base + ["--namespace", namespace, "containers", "info", task_id]
                )
                if rc != 0:
                    # Gone since the task list was read: no longer running.
                    continue
                info = parse_json(out, "ctr containers info %s" % task_id)
                usage = containerd_usage(info, namespace)
                if usage["uses_npu"]:
                    usages.append(usage)
    except ContainersParseError as error:
        state["error"] = str(error)
        return state, []
    return state, usages


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "engines": {
                "type": "list",
                "elements": "str",
                "choices": ["docker", "containerd"],
                "default": ["docker", "containerd"],
            },
            "containerd_address": {
                "type": "path",
                "default": "/run/containerd/containerd.sock",
            },
            "timeout": {"type": "int", "default": 30},
            "fail_on_error": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    if module.params["timeout"] <= 0:
        module.fail_json(
            msg="timeout must be a positive number of seconds, got %d"
            % module.params["timeout"]
        )
    run = Runner(module)
    engines = {}
    containers = []
    seen = set()
    askers = (("docker", ask_docker), ("containerd", ask_containerd))
    for name, ask in askers:
        if name not in module.params["engines"]:
            continue
        state, usages = ask(module, run)
        engines[name] = state
        for usage in usages:
            if usage["id"] in seen:
                continue
            seen.add(usage["id"])
            containers.append(usage)
    errors = [
        "%s: %s" % (name, state["error"])
        for name, state in engines.items()
        if state["error"]
    ]
    fact = {"containers": containers, "engines": engines, "errors": errors}
    result = {"changed": False, "ansible_facts": {"ascend_npu_containers": fact}}
    if errors and module.params["fail_on_error"]:
        module.fail_json(
            msg="cannot tell which containers use the NPUs: %s" % "; ".join(errors),
            **result,
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
