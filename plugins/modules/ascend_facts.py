#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_facts
short_description: Report the Ascend hardware and software installed on a node
version_added: 0.1.0
description:
  - In one round trip, reads what is on the node and sets the fact C(ascend) - Ascend PCI devices
    and NPU family, C(/dev/davinci*) and the management device nodes, C(npu-smi), the NPU driver
    and firmware with their compatibility ranges, every installed CANN package (toolkit, nnae,
    nnrt, old and 8.5.0 layouts), the Ascend Docker Runtime, the C(HwHiAiUser) account,
    C(/etc/ascend_install.info) and the reboot the P(cubestudio.ascend.npu_driver#role) role
    recorded as pending.
  - It only reads files; it runs no command, so it also works before the driver is installed.
  - Anything absent is null (or false, or an empty list), never an error.
  - The install path is C(Driver_Install_Path_Param) of C(/etc/ascend_install.info) when that file
    exists, else C(/usr/local/Ascend); O(install_path) overrides both. The firmware is looked up
    under C(Firmware_Install_Path_Param) likewise.
options:
  root:
    description:
      - Root of the file system to read. Every path (C(/etc), C(/dev), C(/usr/local)) is looked up
        below it.
      - A test hook, and a way to inspect a mounted image or a container's root file system.
    type: path
    default: /
  sysfs_root:
    description:
      - Where sysfs is mounted; PCI devices are read from C(<sysfs_root>/bus/pci/devices).
      - Independent of O(root). A test hook (a container cannot create devices under C(/sys)),
        see the collection variable C(ascend_sysfs_root).
    type: path
    default: /sys
  proc_root:
    description:
      - Where procfs is mounted; the kernel command line is read from C(<proc_root>/cmdline).
      - Independent of O(root). A test hook (a container cannot change C(/proc/cmdline)), see
        the collection variable C(ascend_proc_root).
    type: path
    default: /proc
  state_dir:
    description: Folder of the collection's state on the node, below O(root) (the layer records of RV(ansible_facts.ascend.layers)).
    type: path
    default: /var/lib/cubestudio-ascend
  install_path:
    description:
      - Huawei's install root (C(--install-path) of the installers) as seen on the node.
      - Default is read from C(/etc/ascend_install.info), else C(/usr/local/Ascend).
    type: path
  reuse:
    description:
      - Answer from the facts this same run of C(ansible-playbook) already read with O(reuse=true)
        and the same O(root), O(sysfs_root), O(proc_root), O(state_dir) and O(install_path), without asking
        the node again. A read without O(reuse) in between (every full run of a layer role reads
        the node at its start and its end) clears that, as do facts of another run (a fact
        cache); then the node is read.
      - For reads where nothing changed the node since the last one, such as the layer roles'
        fast re-run checks, one after the other. Handled on the controller by the action
        plugin; C(reused) in the result says whether the node was asked.
    type: bool
    default: false
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.facts_module
attributes:
  action:
    description: Runs as an action plugin on the controller (O(reuse)), which runs the module on the node.
    support: full
notes:
  - The C(latest) CANN package of a kind is the one the C(latest) link (old layout, for example
    C(ascend-toolkit/latest)) or the C(cann) link (CANN 8.5.0 and later) points at; without such
    a link it is the newest installed version.
  - C(/etc/passwd) and C(/etc/group) below O(root) are read for C(HwHiAiUser); with O(root=/) the
    name service (LDAP, SSSD) is asked too.
seealso:
  - module: cubestudio.ascend.npu_smi_facts
  - module: cubestudio.ascend.ascend_compat
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read what is installed
  cubestudio.ascend.ascend_facts:

- name: Install the driver only where it is missing or incomplete
  ansible.builtin.debug:
    msg: >-
      {{ ansible_facts['ascend']['npu_family'] }} node,
      driver {{ ansible_facts['ascend']['driver']['version'] | default('none', true) }}
  when: ansible_facts['ascend']['driver'] is none or not ansible_facts['ascend']['driver']['complete']

- name: Inspect a mounted image with a fake sysfs tree
  cubestudio.ascend.ascend_facts:
    root: /mnt/image
    sysfs_root: /srv/fake-sysfs
"""

RETURN = r"""
reused:
  description: True when the facts came from an earlier read of this run (O(reuse)), false when the node was read.
  returned: success
  type: bool
  sample: false
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    ascend:
      description: What is on the node.
      returned: always
      type: dict
      contains:
        root:
          description: The O(root) that was read.
          type: str
          sample: /
        sysfs_root:
          description: The O(sysfs_root) that was read.
          type: str
          sample: /sys
        kernel_cmdline:
          description: The kernel command line (C(<proc_root>/cmdline)), stripped; null when it cannot be read.
          type: str
          sample: BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=0b5f0c3e-8a7e-4c1a-9d1e-2f6b1c1e4a10 ro quiet
        read:
          description:
            - With O(reuse=true), the run and the options of the read, which a later read with
              O(reuse=true) compares; null after a read without it.
          type: dict
          sample:
            run: "ops-01:81723:5512345"
            options: {"root": "/", "sysfs_root": "/sys", "proc_root": "/proc", "state_dir": "/var/lib/cubestudio-ascend", "install_path": null}
        install_path:
          description: Install root used for the driver, CANN and the docker runtime.
          type: str
          sample: /usr/local/Ascend
        install_info:
          description: C(/etc/ascend_install.info) as a dict of its C(KEY=VALUE) lines; null when absent.
          type: dict
          sample: {"UserName": "HwHiAiUser", "Driver_Install_Path_Param": "/usr/local/Ascend", "Driver_Install_For_All": "yes"}
        pci_devices:
          description: Ascend PCI functions (vendor C(0x19e5), a known NPU device id or class C(0x1200)), sorted by bus id.
          type: list
          elements: dict
          contains:
            bus_id:
              description: PCI address, lower case.
              type: str
              sample: "0000:c1:00.0"
            vendor_id:
              description: Always C(0x19e5).
              type: str
            device_id:
              description: PCI device id.
              type: str
              sample: "0xd802"
            subsystem_vendor_id:
              description: PCI subsystem vendor id.
              type: str
              sample: "0x19e5"
            subsystem_device_id:
              description: PCI subsystem device id.
              type: str
              sample: "0x3003"
            class_id:
              description: PCI class as sysfs prints it.
              type: str
              sample: "0x120000"
            numa_node:
              description: NUMA node, null when unknown.
              type: int
            driver:
              description: Kernel driver bound to the function, null when none.
              type: str
            sriov_numvfs:
              description: SR-IOV virtual functions enabled on the function (C(sriov_numvfs) in sysfs); null when it has no SR-IOV capability.
              type: int
            sriov_totalvfs:
              description: SR-IOV virtual functions the function can have (C(sriov_totalvfs)); null when it has no SR-IOV capability.
              type: int
            family:
              description: NPU family from the device id (C(310), C(310B), C(310P), C(910), C(910B), C(A3), C(A5)); null for an unknown accelerator.
              type: str
              sample: 910B
            chip:
              description: Chip name from the device id.
              type: str
              sample: Ascend 910B
            model:
              description: Product where the subsystem id tells it (C(Atlas 300I Duo), C(Atlas 800I A2) ...), else null.
              type: str
              sample: Atlas 800T A2 / Atlas 900 A2 PoD
        npu_families:
          description: Distinct families of RV(ansible_facts.ascend.pci_devices), sorted.
          type: list
          elements: str
          sample: ["910B"]
        npu_family:
          description: The family of most Ascend PCI functions (the only one on a normal node); null without any.
          type: str
          sample: 910B
        npu_model:
          description: The product of most Ascend PCI functions where known, else null.
          type: str
        pci_npu_count:
          description: Number of Ascend PCI functions (one per chip; 16 on an 8-NPU A3 node).
          type: int
          sample: 8
        davinci_devices:
          description: Number of C(/dev/davinci<N>) nodes.
          type: int
          sample: 8
        davinci_ids:
          description: The N of every C(/dev/davinci<N>), sorted.
          type: list
          elements: int
          sample: [0, 1, 2, 3, 4, 5, 6, 7]
        device_nodes:
          description: Presence of the management device nodes.
          type: dict
          contains:
            davinci_manager:
              description: C(/dev/davinci_manager) exists.
              type: bool
            devmm_svm:
              description: C(/dev/devmm_svm) exists.
              type: bool
            hisi_hdc:
              description: C(/dev/hisi_hdc) exists.
              type: bool
        npu_smi:
          description: The C(npu-smi) program the driver installs.
          type: dict
          contains:
            path:
              description: Always C(/usr/local/sbin/npu-smi).
              type: str
            present:
              description: It exists as a file.
              type: bool
            is_directory:
              description: It is a directory (a wrong container mapping; remove it).
              type: bool
            alt_path:
              description: Always C(/usr/local/bin/npu-smi) (the place many containers map it to).
              type: str
            alt_present:
              description: That file exists.
              type: bool
        driver:
          description: The NPU driver; null when C(<install_path>/driver) does not exist.
          type: dict
          contains:
            version:
              description: C(Version) of C(driver/version.info); null when the file is missing.
              type: str
              sample: "23.0.7"
            package_version:
              description: C(package_version) of version.info (absent in older drivers).
              type: str
            innerversion:
              description: C(Innerversion) of version.info.
              type: str
              sample: V100R001C15SPC012B220
            compatible_firmware:
              description: >-
                C(compatible_version_fw), the firmware range the driver accepts, as written; pass it
                to P(cubestudio.ascend.ascend_compat#module) option C(driver_compatible_firmware).
              type: str
              sample: "[7.0.0,7.1.99]"
            compatible_firmware_ranges:
              description: The same as a list of C({min, max}); null when absent or unreadable.
              type: list
              elements: dict
              sample: [{"min": "7.0.0", "max": "7.1.99"}]
            compatible_innerversions:
              description: C(compatible_version), the CANN inner versions the driver accepts.
              type: list
              elements: str
              sample: ["V100R001C29", "V100R001C30", "V100R001C13", "V100R001C15"]
            install_path:
              description: Driver directory.
              type: str
              sample: /usr/local/Ascend/driver
            version_file:
              description: Path of version.info, null when missing.
              type: str
            upgrade_tool:
              description: C(driver/tools/upgrade-tool) exists.
              type: bool
            unfinished:
              description: >-
                C(/etc/ascend_install.info) records a driver install (C(Driver_Install_Type)) without
                C(Driver_Install_Status=complete), which the installer writes last: an install that
                stopped half-way.
              type: bool
            complete:
              description: >-
                The driver is installed completely (version.info with a version, upgrade-tool, and
                no unfinished install). Huawei's own deployer refuses to go on when this is false.
              type: bool
            info:
              description: Every line of version.info; null when missing.
              type: dict
        firmware:
          description: The NPU firmware package; null without C(<install_path>/firmware/version.info).
          type: dict
          contains:
            version:
              description: C(Version) of C(firmware/version.info).
              type: str
              sample: "7.1.0.11.220"
            package_version:
              description: The HDK release the firmware shipped with.
              type: str
              sample: "23.0.7"
            compatible_driver:
              description: >-
                C(compatible_version_drv), the driver ranges the firmware accepts, as written; pass
                it to P(cubestudio.ascend.ascend_compat#module) option
                C(firmware_compatible_driver).
              type: str
              sample: "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"
            compatible_driver_ranges:
              description: The same as a list of C({min, max}); null when absent or unreadable.
              type: list
              elements: dict
            install_path:
              description: Firmware directory.
              type: str
            version_file:
              description: Path of version.info.
              type: str
            info:
              description: Every line of version.info.
              type: dict
        cann:
          description: Installed CANN packages; null when there is none.
          type: dict
          contains:
            version:
              description: Version of the default CANN - the latest toolkit, else the latest nnae, else the latest nnrt.
              type: str
              sample: 8.1.RC1
            latest:
              description: The latest package of each kind (C(toolkit), C(nnae), C(nnrt) always present, null when not installed).
              type: dict
              sample: {"toolkit": {"version": "8.1.RC1"}, "nnae": null, "nnrt": null}
            packages:
              description: Every installed package.
              type: list
              elements: dict
              contains:
                kind:
                  description: From the info file name C(ascend_<kind>_install.info) - C(toolkit), C(nnae), C(nnrt) ...
                  type: str
                  sample: toolkit
                package_name:
                  description: C(package_name) of the info file.
                  type: str
                  sample: Ascend-cann-toolkit
                version:
                  description: C(version) of the info file.
                  type: str
                  sample: 8.1.RC1
                innerversion:
                  description: C(innerversion) of the info file.
                  type: str
                arch:
                  description: C(arch) of the info file.
                  type: str
                  sample: aarch64
                path:
                  description: C(path) of the info file (where the installer put the package).
                  type: str
                  sample: /usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux
                directory:
                  description: The version directory that holds the info file.
                  type: str
                  sample: /usr/local/Ascend/ascend-toolkit/8.1.RC1
                info_file:
                  description: Path of the info file.
                  type: str
                layout:
                  description: C(classic) (C(<product>/<version>), CANN up to 8.3) or C(cann) (C(cann-<version>), CANN 8.5.0 and later).
                  type: str
                  choices: [classic, cann]
                latest:
                  description: The product's C(latest) link, or the C(cann) link, points here.
                  type: bool
        docker_runtime:
          description: The Ascend Docker Runtime; null without its C(ascend_docker_runtime_install.info).
          type: dict
          contains:
            version:
              description: Version without the leading C(v) the installer writes.
              type: str
              sample: "7.3.0"
            version_raw:
              description: Version as written.
              type: str
              sample: v7.3.0
            install_scene:
              description: C(docker), C(containerd), C(isula) or C(crio); null for installers before 7.x that do not record it.
              type: str
            install_path:
              description: Install directory.
              type: str
              sample: /usr/local/Ascend/Ascend-Docker-Runtime
            binary:
              description: Path of C(ascend-docker-runtime).
              type: str
            binary_present:
              description: That file exists.
              type: bool
            arch:
              description: C(arch) of the info file.
              type: str
            build:
              description: C(build) of the info file.
              type: str
            config_file_path:
              description: C(config-file-path) of the info file (engine config it edited), null when not recorded.
              type: str
            injection_mode:
              description: C(injection-mode) (C(cdi) or C(legacy)), null when not recorded.
              type: str
            info_file:
              description: Path of the info file.
              type: str
            info:
              description: Every line of the info file.
              type: dict
        hwhiaiuser:
          description: The C(HwHiAiUser) account the driver runs as; null when it does not exist.
          type: dict
          contains:
            name:
              description: Always C(HwHiAiUser).
              type: str
            uid:
              description: User id (Huawei expects the same id on every host and in containers, usually 1000).
              type: int
              sample: 1000
            gid:
              description: Primary group id.
              type: int
              sample: 1000
            group_gid:
              description: Id of the group C(HwHiAiUser), null when that group does not exist.
              type: int
              sample: 1000
            home:
              description: Home directory.
              type: str
            shell:
              description: Login shell.
              type: str
        layers:
          description:
            - The records the layer roles wrote after their last complete run
              (P(cubestudio.ascend.ascend_layer_record#module)), by layer; empty when there is none.
            - Each holds C(record) (the record as written, null when it cannot be read), C(error)
              (why it cannot be read) and C(files) (the current state of every file the record
              lists - C(sha256:<hex>), C(link:<target>), C(dir), or null when absent).
          type: dict
          sample: {npu_driver: {record: {layer: npu_driver, fingerprint: 3f2c..., files: {}, facts: {}}, error: null, files: {}}}
        reboot:
          description: >-
            The reboot the P(cubestudio.ascend.npu_driver#role) role recorded as pending (its marker
            C(/run/cubestudio-ascend/reboot-required), one reason a line; C(/run) is a tmpfs, so a
            reboot clears it).
          type: dict
          contains:
            pending:
              description: A reboot is pending (the marker exists).
              type: bool
              sample: true
            reasons:
              description: Why, one entry per line of the marker, duplicates dropped.
              type: list
              elements: str
              sample: ["npu_driver: firmware 7.8.0.5.216 was flashed"]
            marker:
              description: Path of the marker on the node.
              type: str
              sample: /run/cubestudio-ascend/reboot-required
        installers_running:
          description:
            - Processes running a Huawei C(.run) package (C(Ascend-*.run), C(Atlas-*.run)) now, read
              from C(/proc); empty when none. An installer left going by a run that lost its
              connection shows here.
          type: list
          elements: dict
          sample: [{pid: 48213, package: Ascend-hdk-910b-npu-driver_25.5.0_linux-x86_64.run}]
          contains:
            pid:
              description: Process id.
              type: int
            package:
              description: File name of the package.
              type: str
"""

import os
from collections import Counter

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers import (
    _ascend_files as files,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._layer_state import (
    read_layers,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._pci import (
    scan_sysfs,
)


def _most_common(values: list):
    present = [value for value in values if value]
    if not present:
        return None
    counts = Counter(present)
    return sorted(counts, key=lambda value: (-counts[value], value))[0]


def _cmdline(proc_root: str):
    try:
        with open(
            os.path.join(proc_root, "cmdline"), encoding="utf-8", errors="replace"
        ) as handle:
            return handle.read().replace("\x00", " ").strip()
    except OSError:
        return None


def gather(
    root: str,
    sysfs_root: str,
    install_path: str | None,
    state_dir: str = "/var/lib/cubestudio-ascend",
    proc_root: str = "/proc",
) -> dict:
    """The ``ascend`` fact for the file system below ``root`` and the sysfs at ``sysfs_root``."""
    install_info = files.install_info(root)
    paths = files.install_paths(install_info, install_path)
    devices = scan_sysfs(sysfs_root)
    nodes = files.device_nodes(root)
    cann = files.cann_packages(root, paths["driver"])
    return {
        "root": root,
        "sysfs_root": sysfs_root,
        "kernel_cmdline": _cmdline(proc_root),
        "install_path": paths["driver"],
        "install_info": install_info,
        "pci_devices": devices,
        "npu_families": sorted({d["family"] for d in devices if d["family"]}),
        "npu_family": _most_common([d["family"] for d in devices]),
        "npu_model": _most_common([d["model"] for d in devices]),
        "pci_npu_count": len(devices),
        "davinci_devices": nodes["davinci_devices"],
        "davinci_ids": nodes["davinci_ids"],
        "device_nodes": nodes["management"],
        "npu_smi": nodes["npu_smi"],
        "driver": files.driver(root, paths["driver"], install_info),
        "firmware": files.firmware(root, paths["firmware"]),
        "cann": cann if cann["packages"] else None,
        "docker_runtime": files.docker_runtime(root, paths["driver"]),
        "hwhiaiuser": files.user(root, "HwHiAiUser"),
        "layers": read_layers(state_dir, root),
        "reboot": files.reboot_marker(root),
        "installers_running": files.running_installers(root),
    }


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "root": {"type": "path", "default": "/"},
            "sysfs_root": {"type": "path", "default": "/sys"},
            "proc_root": {"type": "path", "default": "/proc"},
            "install_path": {"type": "path"},
            "state_dir": {"type": "path", "default": "/var/lib/cubestudio-ascend"},
            # Handled by the action plugin on the controller.
            "reuse": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    params = module.params
    install_path = params["install_path"]
    if install_path is not None and not install_path.startswith("/"):
        module.fail_json(
            msg=f"install_path must be absolute (as seen on the node), got {install_path}"
        )
    facts = gather(
        params["root"],
        params["sysfs_root"],
        install_path,
        params["state_dir"],
        params["proc_root"],
    )
    module.exit_json(changed=False, ansible_facts={"ascend": facts})


if __name__ == "__main__":
    main()
