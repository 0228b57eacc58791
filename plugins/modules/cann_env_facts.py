#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: cann_env_facts
short_description: Read the environment a CANN C(set_env.sh) exports
version_added: 0.1.0
description:
  - Sources a CANN C(set_env.sh) (or any script that exports variables) in a clean C(bash) - no
    profile, no rc file, only C(PATH) set to O(base_path) and C(HOME) - and sets the fact
    C(ascend_cann_env) with the variables the script set or changed, fully expanded.
  - The script decides what it exports (CANN 8.0's script calls C($(arch)), the 8.5.0 one finds its
    own directory), so the values are the ones a login shell that sources it gets, not a guess
    from its text.
  - Variables whose name ends in C(PATH) are C(:) lists; empty elements (which mean the current
    directory, left by C($LD_LIBRARY_PATH) of an unset variable) and repeated elements are removed.
  - The fact also carries the sorted C(KEY=VALUE) lines for an env file that C(docker run --env-file)
    and C(kubectl create configmap --from-env-file) read (neither expands variables, so every value
    is complete, C(PATH) included).
options:
  path:
    description: The script to source, for example C(/usr/local/Ascend/cann-8.5.0/set_env.sh).
    type: path
    required: true
  base_path:
    description:
      - C(PATH) before the script runs. The script prepends its directories to it, and the
        resulting C(PATH) replaces the one of a container that uses the env file, so this should be
        the standard C(PATH) of the images.
    type: str
    default: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  shell:
    description: The shell that sources the script. CANN's scripts are written for bash.
    type: path
    default: /bin/bash
extends_documentation_fragment:
  - cubestudio.ascend.attributes
  - cubestudio.ascend.attributes.facts_module
notes:
  - The script runs as the user of the task (root with C(become)), exactly as it does when a login
    shell sources it from C(/etc/profile.d); it should only export variables.
seealso:
  - module: cubestudio.ascend.ascend_facts
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Read the environment of CANN 8.5.0
  cubestudio.ascend.cann_env_facts:
    path: /usr/local/Ascend/cann-8.5.0/set_env.sh

- name: Write an env file for docker run --env-file and Kubernetes ConfigMaps
  ansible.builtin.copy:
    dest: /etc/ascend/cann.env
    content: "{{ ansible_facts['ascend_cann_env']['lines'] | join('\n') }}\n"
    mode: "0644"
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to the host's facts.
  returned: always
  type: dict
  contains:
    ascend_cann_env:
      description: The environment the script exports.
      returned: always
      type: dict
      contains:
        script:
          description: The script that was sourced.
          type: str
          sample: /usr/local/Ascend/cann-8.5.0/set_env.sh
        variables:
          description: Every variable the script set or changed, with its complete value.
          type: dict
          sample:
            ASCEND_HOME_PATH: /usr/local/Ascend/cann-8.5.0
            ASCEND_OPP_PATH: /usr/local/Ascend/cann-8.5.0/opp
            ASCEND_TOOLKIT_HOME: /usr/local/Ascend/cann-8.5.0
            LD_LIBRARY_PATH: /usr/local/Ascend/cann-8.5.0/lib64:/usr/local/Ascend/driver/lib64
            PATH: /usr/local/Ascend/cann-8.5.0/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        lines:
          description: C(KEY=VALUE) lines of an env file, sorted by name.
          type: list
          elements: str
        skipped:
          description: Variables left out of C(lines) because their value spans several lines.
          type: list
          elements: str
        rc:
          description: Exit status of the C(.) command that sourced the script.
          type: int
        stderr:
          description: What the script printed on standard error.
          type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._env_script import (
    SCRIPT,
    EnvDumpError,
    changes,
    env_file_lines,
    parse_dump,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            base_path=dict(
                type="str",
                default="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            ),
            shell=dict(type="path", default="/bin/bash"),
        ),
        supports_check_mode=True,
    )
    path = module.params["path"]
    shell = module.params["shell"]
    if not os.path.isfile(path):
        module.fail_json(
            msg="%s does not exist, so there is no environment to read: install the CANN package "
            "that provides it first" % path
        )
    if not os.access(shell, os.X_OK):
        module.fail_json(
            msg="%s is not an executable shell: install bash, which CANN's set_env.sh needs, "
            "or name another shell with the shell option" % shell
        )
    env_bin = module.get_bin_path("env", required=True)
    argv = [
        env_bin,
        "-i",
        "PATH=%s" % module.params["base_path"],
        "HOME=%s" % os.environ.get("HOME", "/"),
        shell,
        "--noprofile",
        "--norc",
        "-c",
        SCRIPT,
        "cann_env_facts",
        path,
    ]
    rc, out, err = module.run_command(argv, encoding=None, cwd="/")
    stderr = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
    try:
        before, after, source_rc = parse_dump(out)
    except EnvDumpError as exc:
        module.fail_json(
            msg="sourcing %s gave no environment: %s (shell exit code %s). Standard error: %s"
            % (path, exc, rc, stderr.strip()[-1000:] or "-"),
            rc=rc,
            stderr=stderr,
        )
    variables = changes(before, after)
    if not variables:
        module.fail_json(
            msg="%s exports no variable (exit code %s), so it is not a CANN environment script. "
            "Standard error: %s" % (path, source_rc, stderr.strip()[-1000:] or "-"),
            rc=rc,
            stderr=stderr,
        )
    lines, skipped = env_file_lines(variables)
    for name in skipped:
        module.warn(
            "%s sets %s to a value of several lines; it is left out of the env file lines"
            % (path, name)
        )
    module.exit_json(
        changed=False,
        ansible_facts={
            "ascend_cann_env": {
                "script": path,
                "variables": variables,
                "lines": lines,
                "skipped": skipped,
                "rc": source_rc,
                "stderr": stderr,
            }
        },
    )


if __name__ == "__main__":
    main()
