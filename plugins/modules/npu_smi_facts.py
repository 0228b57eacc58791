#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: npu_smi_facts
short_description: Read NPUs, chips, health and NPU processes from C(npu-smi info)
version_added: 0.1.0
description:
  - Runs C(npu-smi info) on the target and sets the fact C(ascend_npu_smi) from its device table
    and process table.
  - Every layout seen in the field is understood, for Ascend 310, 310B, 310P (300I Pro, 300I Duo),
    910, 910B and A3 hosts, from npu-smi 21.0 to the 116-column layout of npu-smi 26.0.
  - Where one NPU id has several two-line blocks in the table (Atlas 300I Duo, A3) they become
    several chips of that NPU. On a single-chip NPU the chip carries the values of the NPU's row.
  - A non-zero exit, a DCMI error such as C(-8005), or text the parser does not understand fails
    the task with the reason and a short excerpt of the output. Nothing is guessed.
  - The health of an NPU is the worst health of its chips, in the order C(OK) < C(Warning) <
    C(Alarm) < C(Critical) < any other string (reported as printed). C(0K), a typo found only in
    hand-pasted output, is read as C(OK).
options:
  executable:
    description:
      - Path of the C(npu-smi) binary.
      - By default C(npu-smi) on E(PATH) (and the usual sbin directories), else
        C(/usr/local/sbin/npu-smi), else C(/usr/local/bin/npu-smi).
    type: path
  board:
    description:
      - Also run C(npu-smi info -t board -i <id>) for every NPU and add its result as C(board)
        to each entry of RV(ansible_facts.ascend_npu_smi.npus).
    type: bool
    default: false
  timeout:
    description:
      - Seconds each C(npu-smi) call may take. A call still running then is stopped (SIGTERM, then
        SIGKILL 5 seconds later) and the task fails with a message saying that npu-smi hangs.
      - C(npu-smi info) answers within a few seconds on a healthy node; it hangs when the driver
        or a card does not answer a DCMI call.
      - Runs under coreutils C(timeout), which must be installed.
    type: int
    default: 60
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.facts_module
requirements:
  - The Ascend NPU driver, which installs C(npu-smi).
notes:
  - A hanging C(npu-smi) fails the task after O(timeout) seconds instead of hanging the play.
  - C(npu-smi) needs the devices C(/dev/davinci_manager), C(/dev/devmm_svm) and C(/dev/hisi_hdc);
    run the module as root (C(become)) on hosts where they are not readable by the remote user.
  - Parsing lives in the collection's private C(module_utils._node._npu_smi) and is unit-tested on real
    outputs.
seealso:
  - module: cubestudio.ascend.ascend_facts
  - module: cubestudio.ascend.ascend_compat
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read the NPUs
  cubestudio.ascend.npu_smi_facts:

- name: Refuse to touch the driver while NPUs are in use
  ansible.builtin.assert:
    that:
      - ansible_facts['ascend_npu_smi']['processes'] | length == 0
      - ansible_facts['ascend_npu_smi']['healthy']
    fail_msg: >-
      {{ ansible_facts['ascend_npu_smi']['processes'] | length }} processes use the NPUs, or an NPU is
      not healthy; stop the workloads first.

- name: Read board ids and firmware versions too, giving each npu-smi call 30 seconds
  cubestudio.ascend.npu_smi_facts:
    executable: /usr/local/bin/npu-smi
    board: true
    timeout: 30

- name: Show the firmware of NPU 0
  ansible.builtin.debug:
    msg: "{{ ansible_facts['ascend_npu_smi']['npus'][0]['board']['firmware_version'] }}"
"""

RETURN = r"""
executable:
  description: The C(npu-smi) that was run.
  returned: success
  type: str
  sample: /usr/local/sbin/npu-smi
timed_out:
  description: Whether C(npu-smi) was stopped after O(timeout) seconds.
  returned: when npu-smi did not answer in time (the task failed)
  type: bool
  sample: true
ansible_facts:
  description: Facts to add to the host's facts.
  returned: success
  type: dict
  contains:
    ascend_npu_smi:
      description: What C(npu-smi info) reports.
      returned: success
      type: dict
      contains:
        tool_version:
          description: Version of npu-smi, the C(npu-smi X) of the header.
          returned: success
          type: str
          sample: "23.0.7"
        driver_version:
          description: >-
            Driver version, the C(Version: Y) of the header; it can differ from
            RV(ansible_facts.ascend_npu_smi.tool_version).
          returned: success
          type: str
          sample: "23.0.7"
        npu_count:
          description: Number of distinct NPU ids.
          returned: success
          type: int
          sample: 8
        chip_count:
          description: Number of chips of all NPUs (twice RV(ansible_facts.ascend_npu_smi.npu_count) on Atlas 300I Duo and A3).
          returned: success
          type: int
          sample: 8
        healthy:
          description: Whether the health of every chip is C(OK).
          returned: success
          type: bool
          sample: true
        npus:
          description: The NPUs in the order npu-smi prints them. Ids need not be contiguous (C(0), C(64)).
          returned: success
          type: list
          elements: dict
          contains:
            id:
              description: NPU id, as used by C(npu-smi info -i).
              type: int
              sample: 0
            name:
              description: Chip name printed by npu-smi (C(910B3), C(310P3), C(Ascend910) on A3, C(910ProB) ...).
              type: str
              sample: "910B3"
            health:
              description: Worst health of the NPU's chips (C(OK), C(Warning), C(Alarm), C(Critical) or another string as printed).
              type: str
              sample: "OK"
            board:
              description:
                - Result of C(npu-smi info -t board -i <id>), only with O(board=true).
                - Hexadecimal ids are lower case; values printed as C(NA) are null; C(raw) keeps every line as printed.
              returned: when O(board=true)
              type: dict
              contains:
                npu_id:
                  description: NPU ID.
                  type: int
                chip_id:
                  description: Chip ID (only in chip-level output).
                  type: int
                product_name:
                  description: Product Name.
                  type: str
                model:
                  description: Model.
                  type: str
                manufacturer:
                  description: Manufacturer.
                  type: str
                serial_number:
                  description: Serial Number.
                  type: str
                software_version:
                  description: Software Version (the driver).
                  type: str
                firmware_version:
                  description: Firmware Version.
                  type: str
                  sample: "7.1.0.11.220"
                compatibility:
                  description: Compatibility of driver and firmware as npu-smi judges it.
                  type: str
                  sample: "OK"
                board_id:
                  description: Board ID.
                  type: str
                  sample: "0x60"
                pcb_id:
                  description: PCB ID.
                  type: str
                bom_id:
                  description: BOM ID.
                  type: str
                bus_id:
                  description: PCIe Bus Info.
                  type: str
                slot_id:
                  description: Slot ID.
                  type: int
                class_id:
                  description: Class ID.
                  type: str
                vendor_id:
                  description: PCI Vendor ID.
                  type: str
                  sample: "0x19e5"
                device_id:
                  description: PCI Device ID.
                  type: str
                  sample: "0xd802"
                subsystem_vendor_id:
                  description: Subsystem Vendor ID.
                  type: str
                subsystem_device_id:
                  description: Subsystem Device ID.
                  type: str
                  sample: "0x3003"
                chip_count:
                  description: Chip Count.
                  type: int
                chip_type:
                  description: Chip Type (only in chip-level output).
                  type: str
                chip_name:
                  description: Chip Name (only in chip-level output).
                  type: str
                chip_version:
                  description: Chip Version (only in chip-level output).
                  type: str
                raw:
                  description: "Every C(Key : value) line as printed."
                  type: dict
            chips:
              description: The chips of the NPU (one on most cards, two on Atlas 300I Duo and A3).
              type: list
              elements: dict
              contains:
                chip:
                  description: Chip index within the NPU.
                  type: int
                  sample: 0
                device:
                  description: The C(Device) column (logical device id) where the layout has one, else null.
                  type: int
                phy_id:
                  description: The C(Phy-ID) column (A3), else null.
                  type: int
                health:
                  description: Health of the chip.
                  type: str
                  sample: "OK"
                power_w:
                  description: Power in watts; null where the tool prints C(NA) or C(-).
                  type: float
                  sample: 98.3
                temp_c:
                  description: Temperature in degrees Celsius.
                  type: int
                  sample: 43
                hugepages_used:
                  description: Huge pages in use; null where the layout has no Hugepages column.
                  type: int
                  sample: 0
                hugepages_total:
                  description: Huge pages in total; null where the layout has no Hugepages column.
                  type: int
                  sample: 0
                bus_id:
                  description: PCI bus id as printed; null where the tool prints C(NA) (SoC boards).
                  type: str
                  sample: "0000:C1:00.0"
                aicore_pct:
                  description: AI core use in percent.
                  type: int
                  sample: 0
                memory_used_mb:
                  description: DDR memory in use, MB.
                  type: int
                  sample: 0
                memory_total_mb:
                  description: DDR memory in total, MB.
                  type: int
                  sample: 0
                hbm_used_mb:
                  description: HBM in use, MB; null where the layout has no HBM column (310 family).
                  type: int
                  sample: 59985
                hbm_total_mb:
                  description: HBM in total, MB; null where the layout has no HBM column.
                  type: int
                  sample: 65536
        processes:
          description: Rows of the process table; empty when no process runs or the table is absent.
          returned: success
          type: list
          elements: dict
          contains:
            npu:
              description: NPU id.
              type: int
              sample: 0
            chip:
              description: Chip index within the NPU.
              type: int
              sample: 0
            pid:
              description: Process id (in npu-smi's PID namespace).
              type: int
              sample: 49943
            name:
              description: Process name; empty when the process lives in another PID namespace.
              type: str
              sample: ""
            memory_mb:
              description: NPU memory used by the process, MB.
              type: int
              sample: 56681
            container_pid:
              description: The C(Process id in container) column of npu-smi 25.5 and later, else null.
              type: int
              sample: null
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    NPU_SMI_ERROR_HINTS,
    NpuSmiParseError,
    excerpt,
    npu_smi_error,
    parse_board,
    parse_info,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._timeout import (
    timed_argv,
    timed_out,
)

DEFAULT_LOCATIONS = ("/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi")


def find_npu_smi(module: AnsibleModule) -> str:
    """The npu-smi to run: the option, else PATH (plus sbin dirs), else the usual locations."""
    explicit = module.params["executable"]
    candidates = [explicit] if explicit else []
    if not explicit:
        found = module.get_bin_path("npu-smi")
        if found:
            candidates.append(found)
        candidates.extend(DEFAULT_LOCATIONS)
    for path in candidates:
        if os.path.isdir(path):
            module.fail_json(
                msg=f"{path} is a directory, not the npu-smi program; a container that maps "
                "npu-smi from a host without it creates such a directory: remove it and map "
                "the file",
                executable=path,
            )
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    if explicit:
        module.fail_json(
            msg=f"{explicit} is not an executable file", executable=explicit
        )
    module.fail_json(
        msg="npu-smi not found on PATH nor in /usr/local/sbin or /usr/local/bin; is the Ascend "
        "NPU driver installed? (set executable= to point at it)"
    )
    return ""  # not reached: fail_json exits


def run(module: AnsibleModule, argv: list) -> str:
    """Run npu-smi; fail the task, with the reason and an excerpt, unless it exits 0 in time."""
    timeout = module.params["timeout"]
    timeout_bin = module.get_bin_path("timeout", opt_dirs=["/usr/bin", "/bin"])
    if not timeout_bin:
        module.fail_json(
            msg="coreutils timeout not found on PATH nor in /usr/bin or /bin: install coreutils"
        )
    started = time.monotonic()
    rc, out, err = module.run_command(
        timed_argv(timeout_bin, argv, timeout), check_rc=False
    )
    if timed_out(rc, time.monotonic() - started, timeout):
        text = out if out.strip() else err
        module.fail_json(
            msg=f"'{' '.join(argv)}' did not answer within {timeout} s and was stopped "
            "(timeout): npu-smi hangs when the driver or a card does not answer; look at "
            "dmesg for the davinci driver and restart the device (reboot the node)."
            + (f" Output so far:\n{excerpt(text)}" if text.strip() else ""),
            rc=rc,
            stdout=out,
            stderr=err,
            timed_out=True,
        )
    if rc != 0:
        text = out if out.strip() else err
        code = npu_smi_error(f"{out}\n{err}")
        reason = f"'{' '.join(argv)}' failed with exit code {rc}"
        if code is not None:
            hint = NPU_SMI_ERROR_HINTS.get(
                code, "see Huawei's list of npu-smi error codes"
            )
            reason += f" (error {code}: {hint})"
        module.fail_json(
            msg=f"{reason}. Output:\n{excerpt(text)}",
            rc=rc,
            stdout=out,
            stderr=err,
            excerpt=excerpt(text),
        )
    return out


def parse_or_fail(module: AnsibleModule, parser, argv: list, text: str):
    try:
        return parser(text)
    except NpuSmiParseError as error:
        module.fail_json(
            msg=f"cannot read the output of '{' '.join(argv)}': {error}. Output:\n{error.excerpt}",
            excerpt=error.excerpt,
            stdout=text,
        )
    return None  # not reached: fail_json exits


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "executable": {"type": "path"},
            "board": {"type": "bool", "default": False},
            "timeout": {"type": "int", "default": 60},
        },
        supports_check_mode=True,
    )
    if module.params["timeout"] <= 0:
        module.fail_json(
            msg=f"timeout must be a positive number of seconds, got {module.params['timeout']}"
        )
    executable = find_npu_smi(module)
    argv = [executable, "info"]
    fact = parse_or_fail(module, parse_info, argv, run(module, argv))
    if module.params["board"]:
        for npu in fact["npus"]:
            board_argv = [executable, "info", "-t", "board", "-i", str(npu["id"])]
            npu["board"] = parse_or_fail(
                module, parse_board, board_argv, run(module, board_argv)
            )
    module.exit_json(
        changed=False, executable=executable, ansible_facts={"ascend_npu_smi": fact}
    )


if __name__ == "__main__":
    main()
