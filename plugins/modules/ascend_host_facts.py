#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_host_facts
short_description: Report what the Huawei Ascend installers need from the host
version_added: 0.1.0
description:
  - Sets the fact C(ascend_host) with what the C(.run) installers of the NPU driver, the firmware
    and CANN need from the host itself - free space where they install and unpack, the programs
    they look up on the C(PATH) (the driver installer refuses to run without C(lspci) and
    C(ifconfig)), and the headers of the running kernel that the driver's DKMS build compiles
    against.
  - It only reads (C(statvfs), C(/proc/self/mountinfo), the C(PATH) directories, C(/lib/modules));
    it runs no command.
  - Free space is read from the file system that holds the path, or, when the path does not exist
    yet (C(/usr/local/Ascend) before the first install), from its nearest existing parent. Unlike
    Ansible's mount facts this also covers tmpfs and overlay file systems (a tmpfs C(/tmp), the
    root file system of a container).
options:
  paths:
    description: Paths whose free space is reported.
    type: list
    elements: path
    default: [/usr/local/Ascend, /tmp]
  programs:
    description: Programs looked up on the C(PATH) of the session the module runs in, the same one a
      C(.run) package started by M(cubestudio.ascend.ascend_package) sees.
    type: list
    elements: str
    default: [lspci, ifconfig, dkms, gcc, make, docker, containerd]
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.facts_module
seealso:
  - module: cubestudio.ascend.ascend_facts
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read free space, programs and kernel headers
  cubestudio.ascend.ascend_host_facts:

- name: Refuse a node whose install path has less than 20 GB free
  ansible.builtin.assert:
    that: ansible_facts['ascend_host']['space']['/usr/local/Ascend']['free_gb'] >= 20
    fail_msg: >-
      only {{ ansible_facts['ascend_host']['space']['/usr/local/Ascend']['free_gb'] }} GB free
      on {{ ansible_facts['ascend_host']['space']['/usr/local/Ascend']['mount'] }}
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    ascend_host:
      description: What the installers need from the host.
      returned: always
      type: dict
      contains:
        space:
          description: Free space per path of O(paths), keyed by the path as given.
          type: dict
          sample:
            /usr/local/Ascend:
              path: /usr/local/Ascend
              exists: false
              checked_path: /usr/local
              mount: /
              fstype: xfs
              size_bytes: 214643507200
              free_bytes: 170311151616
              free_gb: 158.6
          contains:
            path:
              description: The path as given.
              type: str
            exists:
              description: The path exists.
              type: bool
            checked_path:
              description: The path whose file system was read (the path, or its nearest existing parent).
              type: str
            mount:
              description: Mount point of that file system; null when C(/proc/self/mountinfo) is unreadable.
              type: str
            fstype:
              description: Its file system type (C(xfs), C(ext4), C(tmpfs), C(overlay) ...).
              type: str
            size_bytes:
              description: Size of the file system; null when it cannot be read.
              type: int
            free_bytes:
              description: Space available to unprivileged writers, as C(df) reports it; null when it cannot be read.
              type: int
            free_gb:
              description: The same in GiB, rounded to one decimal.
              type: float
        programs:
          description: Path of each program of O(programs) on the C(PATH), null when not found.
          type: dict
          sample: {lspci: /usr/bin/lspci, ifconfig: null, dkms: null, docker: /usr/bin/docker}
        path_env:
          description: The C(PATH) the programs were looked up on.
          type: str
        kernel:
          description: The running kernel and its headers.
          type: dict
          contains:
            release:
              description: Release of the running kernel (C(uname -r)).
              type: str
              sample: 5.15.0-105-generic
            build_dir:
              description: C(/lib/modules/<release>/build), the tree DKMS builds kernel modules against.
              type: str
            headers:
              description: That directory exists (the kernel headers or kernel-devel package of the running kernel is installed).
              type: bool
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._host import (
    find_program,
    kernel_headers,
    parse_mountinfo,
    space,
)

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def gather(paths, programs, environ=None):
    environ = os.environ if environ is None else environ
    text = _read("/proc/self/mountinfo") or _read("/proc/mounts")
    mounts = parse_mountinfo(text)
    search_path = environ.get("PATH") or DEFAULT_PATH
    return {
        "space": {path: space(path, mounts) for path in paths},
        "programs": {name: find_program(name, search_path) for name in programs},
        "path_env": search_path,
        "kernel": kernel_headers(os.uname()[2]),
    }


def main():
    module = AnsibleModule(
        argument_spec=dict(
            paths=dict(
                type="list", elements="path", default=["/usr/local/Ascend", "/tmp"]
            ),
            programs=dict(
                type="list",
                elements="str",
                default=[
                    "lspci",
                    "ifconfig",
                    "dkms",
                    "gcc",
                    "make",
                    "docker",
                    "containerd",
                ],
            ),
        ),
        supports_check_mode=True,
    )
    relative = [path for path in module.params["paths"] if not path.startswith("/")]
    if relative:
        module.fail_json(msg="paths must be absolute, got %s" % ", ".join(relative))
    facts = gather(module.params["paths"], module.params["programs"])
    module.exit_json(changed=False, ansible_facts={"ascend_host": facts})


if __name__ == "__main__":
    main()
