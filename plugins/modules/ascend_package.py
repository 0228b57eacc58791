#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: ascend_package
short_description: Run a Huawei Ascend C(.run) package (driver, firmware, CANN, Ascend Docker Runtime)
version_added: 0.1.0
description:
  - Runs one Huawei Ascend C(.run) package non-interactively with the flags its installer
    understands (C(--full), C(--install), C(--upgrade), C(--uninstall), C(--check),
    C(--install-for-all), C(--install-path=), C(--install-username=), C(--install-usergroup=),
    C(--install-scene=), C(--whitelist=)).
  - Answers the licence prompt of newer packages on standard input, and stops a package that
    still waits for input after O(timeout) seconds instead of hanging the play.
  - Treats the exit codes as the installers mean them (O(success_rc)), tells whether the host
    must be rebooted, and on failure explains the cause and the fix from the installer's own
    messages and the lines it appended to its log files during this run.
  - A package that makeself refuses as damaged (C(Error in SHA256 checksums), C(Unexpected
    archive size)) fails whatever its exit code, because makeself exits 2 for it, the code that
    the driver and firmware packages use for success.
  - This module runs the package every time it is called; whether a package must run is the
    caller's decision, taken from the facts of M(cubestudio.ascend.ascend_facts).
author:
  - cubestudio maintainers (@cubestudio)
options:
  path:
    description: Path of the C(.run) package on the managed node.
    type: path
    required: true
  action:
    description:
      - What the package is asked to do.
      - V(full) is a fresh driver or firmware install, V(install) a fresh CANN or Ascend Docker
        Runtime install, V(upgrade) an in-place upgrade, V(check) only verifies the package's
        embedded checksum.
    type: str
    required: true
    choices: [check, full, install, upgrade, uninstall]
  quiet:
    description: Pass C(--quiet) (no questions). Not passed for O(action=check).
    type: bool
    default: true
  nox11:
    description:
      - Pass C(--nox11) (the makeself header must not open a terminal window).
      - Set it to V(false) for the Ascend Docker Runtime, whose 26.1.0 and later packages reject
        the flag; earlier ones only warn that it is meaningless.
    type: bool
    default: true
  install_for_all:
    description: Pass C(--install-for-all) so that non-root users and components can use what is installed.
    type: bool
    default: false
  install_path:
    description: Pass C(--install-path=). Omitted when empty (the package's default, C(/usr/local/Ascend)).
    type: path
  install_username:
    description: Pass C(--install-username=), the run user of the package (HwHiAiUser when omitted).
    type: str
  install_usergroup:
    description: Pass C(--install-usergroup=), the run group of the package.
    type: str
  install_scene:
    description: Pass C(--install-scene=) (Ascend Docker Runtime), for example V(docker) or V(containerd).
    type: str
  whitelist:
    description: Pass C(--whitelist=) (CANN), for example V(nnrt).
    type: str
  script:
    description:
      - O(path) is not a C(.run) package but the uninstall script a package left on the node
        (the driver's C(<install_path>/driver/script/uninstall.sh), the firmware's
        C(<install_path>/firmware/script/uninstall.sh), CANN's C(<version>/<arch>-linux/script/uninstall.sh)).
        It runs as C(/bin/bash <path>) with O(extra_args) only; O(action) must be V(uninstall).
      - Huawei's documented way to remove the driver and the firmware; it needs no package file.
    type: bool
    default: false
  extra_args:
    description: More arguments, appended as given.
    type: list
    elements: str
    default: []
  answer:
    description:
      - Text written to the package's standard input, which is then closed. The default accepts
        the licence agreement that CANN and Ascend Docker Runtime 26.1.0 and later ask for.
      - An empty string sends nothing.
    type: str
    default: "y\n"
  success_rc:
    description:
      - Exit codes that mean success. Huawei's own deployer accepts V(0) and V(2) from the driver
        and firmware packages.
    type: list
    elements: int
    default: [0]
  reboot_rc:
    description: Exit codes that mean success with a host reboot still needed.
    type: list
    elements: int
    default: []
  log_files:
    description:
      - Installer logs to read when the package fails. Only the lines appended during this run
        are reported.
    type: list
    elements: path
    default:
      - /var/log/ascend_seclog/ascend_install.log
      - /var/log/ascend-docker-runtime/installer.log
  timeout:
    description: Seconds after which a package that has not finished is stopped and the task fails.
    type: int
    default: 3600
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
    details: In check mode nothing runs and the result says what would run, except O(action=check), which only reads and runs.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: posix
notes:
  - The package runs under C(/bin/bash), as Huawei's documentation and deployer run it, so it
    needs no execute bit. It runs under coreutils C(timeout), which must be installed.
seealso:
  - module: cubestudio.ascend.ascend_facts
"""

EXAMPLES = r"""
- name: Install the NPU driver on a fresh host
  cubestudio.ascend.ascend_package:
    path: /var/cache/ascend/packages/Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run
    action: full
    install_for_all: true
    success_rc: [0, 2]
    reboot_rc: [2]
  register: driver_install

- name: Say when a reboot is pending
  ansible.builtin.debug:
    msg: "Reboot required: {{ driver_install.reboot_required }}"

- name: Install the Ascend Docker Runtime for containerd
  cubestudio.ascend.ascend_package:
    path: /var/cache/ascend/packages/Ascend-docker-runtime_6.0.0_linux-x86_64.run
    action: install
    install_scene: containerd
    quiet: false
    nox11: false
"""

RETURN = r"""
cmd:
  description: The command line that ran (or would run in check mode).
  returned: always
  type: list
  elements: str
  sample: ["/bin/bash", "/var/cache/ascend/packages/Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run", "--nox11", "--full", "--quiet"]
rc:
  description: Exit code of the package; null when it did not run.
  returned: always
  type: int
  sample: 0
stdout:
  description: What the package printed on standard output.
  returned: always
  type: str
stderr:
  description: What the package printed on standard error.
  returned: always
  type: str
outcome:
  description:
    - V(live) when the package succeeded and nothing is pending (the driver's exit code 0,
      installed and the hot reset worked, the new version runs at once), V(reboot) when it
      succeeded but the host must be rebooted (the driver's exit code 2, or the installer's
      words, ANSI colour codes stripped), V(failed) otherwise; null when nothing ran.
  returned: always
  type: str
  sample: live
reboot_required:
  description: True when the exit code (O(reboot_rc)) or the package's own words (ANSI colour codes stripped) say that the host must be rebooted.
  returned: always
  type: bool
  sample: true
log_excerpt:
  description: Error lines appended to O(log_files) during this run (on failure).
  returned: always
  type: list
  elements: str
  sample: ["[Driver] [2025-07-17 10:35:21] [ERROR]The list of missing tools: lspci,ifconfig"]
cause:
  description: The cause of a failure recognised from the installer's messages; null when unknown or on success.
  returned: always
  type: str
  sample: "the installer needs tools that are not installed: lspci,ifconfig"
fix:
  description: What to do about a recognised failure; null when unknown or on success.
  returned: always
  type: str
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._installer import (
    ACTIONS,
    build_command,
    diagnose,
    error_lines,
    outcome,
    strip_ansi,
    tail,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._timeout import (
    timed_out,
)


def _log_offsets(paths):
    offsets = {}
    for path in paths:
        try:
            offsets[path] = os.path.getsize(path)
        except OSError:
            offsets[path] = 0
    return offsets


def _appended(paths, offsets):
    text = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                handle.seek(offsets.get(path, 0))
                text.append(handle.read().decode("utf-8", "replace"))
        except OSError:
            continue
    return "\n".join(text)


def _run(module, argv, answer, timeout):
    """Run argv under coreutils timeout; return (rc, stdout, stderr, timed_out)."""
    timeout_bin = module.get_bin_path("timeout", required=True)
    command = [timeout_bin, "--kill-after=10", str(timeout)]
    environ = {"LC_ALL": "C"}
    if answer:
        # The shell pipes the answer in. Writing it from here (run_command's data) fails
        # with EPIPE when the installer exits before reading it (a refusal, a quick failure)
        # and hides the installer's own exit code and text behind "Error executing command.".
        # The answer travels in the environment (no argv length limit) and is unset before
        # the installer starts.
        script = 'a=$ASCEND_PACKAGE_ANSWER; unset ASCEND_PACKAGE_ANSWER; printf "%s" "$a" | "$0" "$@"'
        command += [argv[0], "-c", script] + argv
        environ["ASCEND_PACKAGE_ANSWER"] = answer
    else:
        # Nothing to say: stdin is /dev/null (closed), never the module's own stdin.
        command += [argv[0], "-c", 'exec "$0" "$@" </dev/null'] + argv
    started = time.monotonic()
    rc, out, err = module.run_command(command, binary_data=True, environ_update=environ)
    # A run killed after --kill-after shows as -9 (timeout(1) kills its process group too).
    return rc, out, err, timed_out(rc, time.monotonic() - started, timeout)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            action=dict(type="str", required=True, choices=list(ACTIONS)),
            quiet=dict(type="bool", default=True),
            nox11=dict(type="bool", default=True),
            install_for_all=dict(type="bool", default=False),
            install_path=dict(type="path"),
            install_username=dict(type="str"),
            install_usergroup=dict(type="str"),
            install_scene=dict(type="str"),
            whitelist=dict(type="str"),
            script=dict(type="bool", default=False),
            extra_args=dict(type="list", elements="str", default=[]),
            answer=dict(type="str", default="y\n"),
            success_rc=dict(type="list", elements="int", default=[0]),
            reboot_rc=dict(type="list", elements="int", default=[]),
            log_files=dict(
                type="list",
                elements="path",
                default=[
                    "/var/log/ascend_seclog/ascend_install.log",
                    "/var/log/ascend-docker-runtime/installer.log",
                ],
            ),
            timeout=dict(type="int", default=3600),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if p["script"] and p["action"] != "uninstall":
        module.fail_json(
            msg="script=true runs an installed uninstall script: action must be uninstall, "
            "got %s" % p["action"]
        )
    argv = build_command(
        p["path"],
        p["action"],
        script=p["script"],
        quiet=p["quiet"],
        nox11=p["nox11"],
        install_for_all=p["install_for_all"],
        install_path=p["install_path"],
        install_username=p["install_username"],
        install_usergroup=p["install_usergroup"],
        install_scene=p["install_scene"],
        whitelist=p["whitelist"],
        extra_args=p["extra_args"],
    )
    result = dict(
        changed=False,
        cmd=argv,
        rc=None,
        stdout="",
        stderr="",
        reboot_required=False,
        outcome=None,
        log_excerpt=[],
        cause=None,
        fix=None,
    )
    mutating = p["action"] != "check"

    if module.check_mode and mutating:
        if not os.path.isfile(p["path"]):
            # In check mode the package may not have been copied yet; say what would run.
            result["msg"] = (
                "would run %s (package not on the node yet in check mode)"
                % " ".join(argv)
            )
        else:
            result["msg"] = "would run %s" % " ".join(argv)
        result["changed"] = True
        # rc is null in check mode: say explicitly that this is not a failure.
        module.exit_json(failed=False, **result)

    if not os.path.isfile(p["path"]):
        module.fail_json(
            msg="package %s does not exist on the node" % p["path"], **result
        )
    if p["timeout"] <= 0:
        module.fail_json(
            msg="timeout must be a positive number of seconds, got %d" % p["timeout"],
            **result,
        )

    offsets = _log_offsets(p["log_files"])
    rc, out, err, timed_out = _run(module, argv, p["answer"], p["timeout"])

    result.update(rc=rc, stdout=out, stderr=err, changed=mutating)
    output = strip_ansi(out + "\n" + err)
    name = (
        p["path"]
        if p["script"]
        else "%s --%s" % (os.path.basename(p["path"]), p["action"])
    )

    if timed_out:
        result["changed"] = mutating
        module.fail_json(
            msg="%s did not finish within %d s and was stopped; it may be waiting for an answer "
            "on standard input (answer=%r). Last output:\n%s"
            % (name, p["timeout"], p["answer"], tail(output)),
            **result,
        )

    result["outcome"] = outcome(rc, output, p["success_rc"], p["reboot_rc"])
    if result["outcome"] == "failed":
        appended = _appended(p["log_files"], offsets)
        result["log_excerpt"] = error_lines(appended)
        found = diagnose(output + "\n" + appended)
        reason = (error_lines(output) or result["log_excerpt"] or [tail(output, 5)])[-1]
        msg = "%s failed with exit code %d: %s" % (name, rc, reason)
        if found:
            result.update(found)
            msg += ". Cause: %s. Fix: %s." % (found["cause"], found["fix"])
        existing = [path for path in p["log_files"] if os.path.exists(path)]
        if existing:
            msg += " Installer log: %s." % ", ".join(existing)
        module.fail_json(msg=msg, **result)

    result["reboot_required"] = mutating and result["outcome"] == "reboot"
    # Ansible treats any result with rc != 0 as failed unless the module says otherwise; a
    # success_rc such as 2 (installed, reboot needed) is a success.
    module.exit_json(failed=False, **result)


if __name__ == "__main__":
    main()
