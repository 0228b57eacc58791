#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: docker_runtime_config
short_description: Manage one OCI runtime (the Ascend Docker Runtime) in Docker's daemon.json
version_added: 0.1.0
description:
  - Adds, updates or removes one entry of C(runtimes) in Docker's C(daemon.json) and, on
    request, makes it the C(default-runtime). This is what the Ascend Docker Runtime installer
    does to the file, without its drawbacks.
  - Every other key of the file (C(registry-mirrors), C(log-opts), other runtimes, keys this
    module does not know) keeps its value, and the keys keep their order. When the file has to
    change it is written again with the indentation the file uses (tabs or the number of spaces
    found), arrays of plain values that the file writes on one line stay on one line.
  - When nothing has to change the file is not written at all, so it stays byte-identical.
  - A missing file is created. An empty file is read as C({}).
  - A file that is not valid JSON, or whose top level is not an object, fails the task with the
    line and column of the error; the file is left untouched. (Docker itself refuses to start
    with such a file.)
  - The new file replaces the old one atomically, after the optional O(validate) command has
    accepted it.
options:
  path:
    description: Path of Docker's daemon configuration file.
    type: path
    default: /etc/docker/daemon.json
  name:
    description: Name of the runtime, the key under C(runtimes) (C(docker run --runtime=<name>)).
    type: str
    default: ascend
  runtime_path:
    description: The runtime binary, written as C(runtimes.<name>.path).
    type: path
    default: /usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime
  runtime_args:
    description:
      - Arguments Docker passes to the runtime, written as C(runtimes.<name>.runtimeArgs).
      - The module owns this list; a different list in the file is replaced.
    type: list
    elements: str
    default: []
  default:
    description:
      - V(true) sets C(default-runtime) to O(name), so every container uses this runtime.
      - V(false) leaves C(default-runtime) alone, B(except) when it equals O(name); then the key
        is removed and Docker falls back to C(runc).
      - The default V(true) is what the vendor installer does, and what Kubernetes on Docker
        needs, since Docker has no RuntimeClass.
    type: bool
    default: true
  state:
    description:
      - V(present) adds or updates the runtime.
      - V(absent) removes C(runtimes.<name>) (and C(runtimes) when it becomes empty) and removes
        C(default-runtime) only if it equals O(name), as the vendor's uninstaller does.
    type: str
    choices: [present, absent]
    default: present
  backup:
    description:
      - Copy the file to a timestamped backup next to it before changing it. The backup's path is
        returned as RV(backup_file).
    type: bool
    default: true
  original_record:
    description:
      - A file (outside the engine's directory) where the module keeps the content of O(path)
        from before the runtime was first added, so that removing the runtime puts the user's
        own file back, byte for byte, and removes a file that did not exist before.
      - With O(state=present) it is written when the module changes a file that holds nothing
        of the runtime (the first install), and kept up to date on later changes. It is not
        written for a file that already had the runtime without a record, and it is dropped
        when the file was changed by someone else after the module wrote it.
      - With O(state=absent) the original comes back when O(path) is still what the module
        wrote; when it was changed since, only the runtime's entries are removed (a warning
        says so) so that no later edit is lost. The record is removed afterwards.
      - Unset, O(state=absent) removes the runtime's entries only.
      - Nothing is written or removed in check mode.
    type: path
  validate:
    description:
      - A command that checks the new file before it replaces the old one; C(%s) is replaced by
        the path of a temporary file holding the new content. A non-zero exit fails the task and
        leaves the file untouched.
      - Docker 23.0 and later have C(dockerd --validate --config-file=%s). Older Docker (for
        example the 20.10 of Debian 12) has no such option; leave this unset there, or use
        another checker such as C(python3 -m json.tool %s).
      - Not run in check mode.
    type: str
extends_documentation_fragment:
  - ansible.builtin.files
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - The result, the diff and the actions are computed as in a normal run; nothing is
        written and O(validate) is not run.
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
notes:
  - Docker reads C(daemon.json) only when it starts or on C(SIGHUP) (runtimes and
    C(default-runtime) are reloadable); restarting or reloading Docker is the caller's job, for
    example a handler notified when this module reports a change.
  - JSON has no comments, so there are none to keep. Numbers are written as Python reads them
    (C(1e3) becomes C(1000.0)); the value does not change.
seealso:
  - module: cubestudio.ascend.containerd_runtime_config
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Add the Ascend runtime to Docker and make it the default
  cubestudio.ascend.docker_runtime_config:
  register: ascend_docker
  notify: Restart docker (ascend_runtime)

- name: Show what was done
  ansible.builtin.debug:
    msg: "{{ ascend_docker.actions }} (backup: {{ ascend_docker.backup_file | default('none') }})"

- name: Add the runtime but keep runc as the default, checking the file with dockerd >= 23
  cubestudio.ascend.docker_runtime_config:
    name: ascend
    runtime_path: /opt/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime
    default: false
    validate: dockerd --validate --config-file=%s
    mode: "0600"

- name: Remove the runtime again (as the vendor's uninstaller does)
  cubestudio.ascend.docker_runtime_config:
    state: absent
"""

RETURN = r"""
changed:
  description: Whether the file was (or, in check mode, would be) changed.
  returned: always
  type: bool
  sample: true
actions:
  description: What was (or would be) done, in words; empty when nothing changes.
  returned: always
  type: list
  elements: str
  sample:
    - "added runtime 'ascend' (path /usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime)"
    - "set default-runtime to 'ascend' (was not set)"
config:
  description: The content of the file after the run, as a dictionary.
  returned: success
  type: dict
  sample:
    registry-mirrors: ["https://mirror.example.com"]
    runtimes:
      ascend:
        path: /usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime
        runtimeArgs: []
    default-runtime: ascend
restored:
  description:
    - How O(state=absent) with O(original_record) left the file - C(original) (the content before the
      runtime was first added, or no file when there was none), C(changed_since) (the file was
      changed after the module wrote it, so only the runtime's entries were removed), C(edited) (no
      record, only the runtime's entries were removed) or C(missing) (no file, nothing to do).
  returned: when O(state=absent) and O(original_record) is set
  type: str
  sample: original
backup_file:
  description: Path of the backup copy of the previous file.
  returned: when O(backup=true), the file existed and was changed (not in check mode)
  type: str
  sample: /etc/docker/daemon.json.12345.2026-12-02@21:30:00~
diff:
  description: The file before and after, as text.
  returned: when run with C(--diff)
  type: dict
  contains:
    before:
      description: The previous content (empty when the file did not exist).
      type: str
    after:
      description: The new content.
      type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._config_file import (
    read_record,
    read_text,
    remove,
    replace,
    stage,
    write_record,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._docker_json import (
    DaemonJsonError,
    edit_daemon_json,
    load,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._engine_original import (
    OriginalRecordError,
    load_record,
    next_record,
    plan_restore,
)

_KEEP = object()


def _same(a, b):
    """Two daemon.json texts that Docker reads the same way."""
    try:
        return load(a) == load(b)
    except DaemonJsonError:
        return False


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", default="/etc/docker/daemon.json"),
            name=dict(type="str", default="ascend"),
            runtime_path=dict(
                type="path",
                default="/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime",
            ),
            runtime_args=dict(type="list", elements="str", default=[]),
            default=dict(type="bool", default=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            backup=dict(type="bool", default=True),
            validate=dict(type="str"),
            original_record=dict(type="path"),
        ),
        add_file_common_args=True,
        supports_check_mode=True,
    )
    p = module.params
    path = p["path"]
    if not p["name"]:
        module.fail_json(msg="name must not be empty")
    if p["validate"] is not None and "%s" not in p["validate"]:
        module.fail_json(
            msg="validate must contain %%s (the file to check), got: %s" % p["validate"]
        )

    before = read_text(module, path, "Docker cannot read it either")
    exists = before is not None
    try:
        after, config, actions, warnings = edit_daemon_json(
            before or "",
            p["name"],
            p["runtime_path"],
            runtime_args=p["runtime_args"],
            default=p["default"],
            state=p["state"],
        )
    except DaemonJsonError as exc:
        module.fail_json(msg="%s %s" % (path, exc))
    for warning in warnings:
        module.warn(warning)

    record_path = p["original_record"]
    record = (
        read_record(module, record_path, load_record, OriginalRecordError)
        if record_path
        else None
    )
    # What becomes of the record: kept as it is, or written (text) or removed (None).
    new_record = _KEEP
    restored = None
    target = after
    if p["state"] == "absent" and record_path:
        target, restored = plan_restore(record, before, after, _same)
        if restored == "original":
            actions = (
                ["put back %s as it was before the runtime was added" % path]
                if target is not None
                else [
                    "removed %s, which did not exist before the runtime was added"
                    % path
                ]
            )
            config = load(target) if target is not None else {}
        elif restored == "changed_since":
            module.warn(
                "%s was changed after the runtime was added, so only the runtime's entries "
                "were removed and the rest stays as it is now" % path
            )
        new_record = None
    changed = target != before
    if not exists and p["state"] == "present":
        actions.insert(0, "created %s" % path)
    if not changed:
        actions = []
    elif p["state"] == "present" and record_path:
        pristine = edit_daemon_json(
            before or "", p["name"], p["runtime_path"], state="absent"
        )[0] == (before or "")
        new_record = next_record(record, path, before, after, pristine)
    result = dict(changed=changed, actions=actions, config=config)
    if restored is not None:
        result["restored"] = restored
    if module._diff:
        result["diff"] = dict(
            before_header=path,
            after_header=path,
            before=before or "",
            after=(target or "") if changed else (before or ""),
        )

    if p["state"] == "present" and new_record is not _KEEP and not module.check_mode:
        # Before the engine file changes: a record that cannot be written stops the module
        # while the file is still as it was.
        write_record(module, record_path, new_record)
    if changed and target is None and not module.check_mode:
        remove(module, path, p["backup"], result)
    elif changed and not module.check_mode:
        tmp = stage(module, path, target)
        if p["validate"]:
            rc, out, err = module.run_command(p["validate"] % tmp)
            if rc != 0:
                os.unlink(tmp)
                module.fail_json(
                    msg="the new %s was refused by %r (rc=%d); the file was left untouched: %s"
                    % (path, p["validate"], rc, (to_text(err) or to_text(out)).strip()),
                    rc=rc,
                    stdout=out,
                    stderr=err,
                    **result,
                )
        replace(module, tmp, path, exists and p["backup"], result)
    if p["state"] == "absent" and new_record is not _KEEP and not module.check_mode:
        # After the file is back: a failed validation keeps the record for the next run.
        write_record(module, record_path, new_record)

    file_args = module.load_file_common_arguments(p)
    if module.check_mode and not exists:
        pass
    elif os.path.exists(path):
        result["changed"] = module.set_fs_attributes_if_different(
            file_args, result["changed"]
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
