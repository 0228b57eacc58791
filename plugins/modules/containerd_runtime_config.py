#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: containerd_runtime_config
short_description: Manage the Ascend runtime in containerd's config.toml (config versions 1, 2 and 3)
version_added: 0.1.0
description:
  - Adds, updates or removes one CRI runtime (by default C(ascend), running the Ascend Docker
    Runtime through the runc shim) in containerd's C(config.toml), and on request makes it the
    C(default_runtime_name).
  - Works for config version 2 (containerd 1.x, plugin C(io.containerd.grpc.v1.cri)), version 3
    (containerd 2.x, plugin C(io.containerd.cri.v1.runtime)) and the old version 1 (plugin
    C(cri)).
  - The file is edited in place, line by line. Only the lines that must change are touched;
    comments, blank lines, the order of tables and every unrelated table stay byte-for-byte as
    they were. A new runtime is written as a block of two tables (the runtime and its
    C(options)) right after the C(runc) runtime's tables, with the same indentation and the
    same quoting (the single quotes of containerd 2.x, the double quotes of 1.x). Without a
    C(runc) runtime in the file the block goes after the last runtime, or at the end of the CRI
    containerd section.
  - When the runtime already exists only the keys whose value differs are rewritten, so a second
    run changes nothing and leaves the file byte-identical.
  - Before the edited text is used it is read back and compared with the intended data; any
    difference fails the task and nothing is written.
  - A file that is not valid TOML fails the task with the line and column of the error and is
    left untouched.
options:
  path:
    description: Path of containerd's configuration file.
    type: path
    default: /etc/containerd/config.toml
  name:
    description: Name of the runtime (the CRI runtime handler, the C(handler) of a RuntimeClass).
    type: str
    default: ascend
  binary_name:
    description: The runtime binary, written as C(options.BinaryName) of the runtime.
    type: path
    default: /usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime
  runtime_type:
    description: The containerd shim, written as C(runtime_type) of the runtime.
    type: str
    default: io.containerd.runc.v2
  runtime_options:
    description:
      - More keys to set under the runtime's C(options) table, for example C(SystemdCgroup).
      - Values may be strings, integers or booleans. They are enforced on every run.
    type: dict
    default: {}
  default:
    description:
      - V(true) sets C(default_runtime_name) of the CRI containerd table to O(name), so pods
        without a RuntimeClass use this runtime.
      - V(false) leaves C(default_runtime_name) alone, B(except) when it equals O(name); then it
        is set back to C(runc), as the vendor's uninstaller does.
    type: bool
    default: true
  copy_runc_options:
    description:
      - When the runtime is created, copy the C(runc) runtime's settings of the file (for example
        C(SystemdCgroup), C(privileged_without_host_devices)) into it, like the installer of
        MindCluster 26.1.0 does. C(BinaryName) and C(runtime_type) are never copied.
      - Only settings written in the file are copied. Without a C(runc) runtime in the file
        nothing is copied (the vendor then invents C(SystemdCgroup = true), which contradicts
        containerd's own default; set it with O(runtime_options) if you need it).
      - Existing runtimes are not touched by this option.
      - A file that lists no runtime at all (the C(config.toml) of Debian's containerd package)
        relies on containerd's built-in C(runc), which containerd 1.6 stops reading as soon as
        one runtime is written. With O(state=present) the module then also writes C(runc) as
        built in (only C(runtime_type)), so that the C(runc) handler and a
        C(default_runtime_name = "runc") keep working; O(state=absent) removes that C(runc)
        again when nothing else uses the table.
    type: bool
    default: true
  state:
    description:
      - V(present) adds or updates the runtime.
      - V(absent) removes the runtime's tables and sets C(default_runtime_name) back to C(runc)
        if it named the runtime.
    type: str
    choices: [present, absent]
    default: present
  config_version:
    description:
      - V(auto) reads the top-level C(version) key. A file without it is version 1, because that
        is how containerd 1.x and 2.x read it (the vendor installer takes it as version 2 and
        writes a table that containerd then ignores). A warning is given when such a file
        contains full plugin names, which suggests a forgotten C(version = 2).
      - V(1), V(2) or V(3) asserts the version; a file that declares another version fails the
        task. For an empty file the header C(version = N) is written.
      - For an empty file with V(auto), the version of C(<containerd_bin> config default) is
        used.
    type: str
    choices: [auto, "1", "2", "3"]
    default: auto
  create_default:
    description:
      - When the file does not exist, start from the output of C(<containerd_bin> config
        default), as the vendor installer does. V(false) starts from an empty file.
    type: bool
    default: true
  containerd_bin:
    description: The containerd binary used by O(create_default) and O(validate).
    type: path
    default: containerd
  validate:
    description:
      - Check the new file with the real containerd before it replaces the old one; run
        C(<containerd_bin> --config <temporary file> config dump) and make sure that the dump
        lists the runtime with the right C(BinaryName) and C(runtime_type) (and, with
        O(default=true), as the default runtime).
      - This catches what containerd accepts silently but ignores, such as a version 3 file on
        containerd 1.x or a version 1 file on containerd 2.x. On failure containerd's own
        message is returned and the file is left untouched.
      - The dump must also list the default runtime among the runtimes; containerd's CRI plugin
        does not load otherwise (containerd itself starts, kubelet cannot talk to it).
      - The temporary file is written next to O(path), so that relative C(imports) resolve the
        same way. Not run in check mode.
    type: bool
    default: true
  backup:
    description:
      - Copy the file to a timestamped backup next to it before changing it. The path is
        returned as RV(backup_file), so that a play can restore it if containerd does not come
        back.
    type: bool
    default: true
  original_record:
    description:
      - A file (outside containerd's directory) where the module keeps the content of O(path)
        from before the runtime was first added, so that removing the runtime puts the user's
        own file back, byte for byte, and removes a file that did not exist before (one the
        module created from C(containerd config default)).
      - With O(state=present) it is written when the module changes a file that holds nothing
        of the runtime (the first install), and kept up to date on later changes. It is not
        written for a file that already had the runtime without a record, and it is dropped
        when the file was changed by someone else after the module wrote it.
      - With O(state=absent) the original comes back when O(path) is still what the module
        wrote (O(validate) is not run on the user's own file); when it was changed since,
        only the runtime's entries are removed (a warning says so) so that no later edit is
        lost. The record is removed afterwards.
      - Unset, O(state=absent) removes the runtime's entries only.
      - Nothing is written or removed in check mode.
    type: path
extends_documentation_fragment:
  - ansible.builtin.files
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - Everything is computed as in a normal run (including C(config default) for a missing
        file); nothing is written and O(validate) is not run.
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
notes:
  - containerd reads its configuration only when it starts; restarting it (and kubelet) is the
    caller's job, for example a handler notified when this module reports a change.
  - The module never changes other runtimes. If the vendor installer (MindCluster <= 26.0.0)
    already pointed C(runc)'s C(BinaryName) at the Ascend runtime, or set C(runc)'s
    C(runtime_type) to C(io.containerd.runtime.v1.linux), a warning says so and C(runc) is
    left as it is.
  - Files included with C(imports) are not edited. A definition of the runtime in an imported
    file can override this one; O(validate) detects it for C(default_runtime_name),
    C(BinaryName) and C(runtime_type).
  - Dates and times in the file are kept as they are written; the module does not need their
    values.
seealso:
  - module: cubestudio.ascend.docker_runtime_config
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Add the Ascend runtime to containerd and make it the default
  cubestudio.ascend.containerd_runtime_config:
  register: ascend_containerd
  notify: Restart containerd (ascend_runtime)

- name: Keep runc as the default; pods choose the runtime with a RuntimeClass (handler ascend)
  cubestudio.ascend.containerd_runtime_config:
    default: false
    runtime_options:
      SystemdCgroup: true

- name: Use a containerd that is not on PATH, skip the check
  cubestudio.ascend.containerd_runtime_config:
    path: /etc/containerd/config.toml
    containerd_bin: /usr/local/bin/containerd
    validate: false

- name: Restore the previous file when containerd does not come back
  ansible.builtin.copy:
    src: "{{ ascend_containerd.backup_file }}"
    dest: /etc/containerd/config.toml
    remote_src: true
    mode: preserve
  when: ascend_containerd.backup_file is defined and containerd_failed | default(false)

- name: Remove the runtime again
  cubestudio.ascend.containerd_runtime_config:
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
    - added runtime 'ascend' to plugins."io.containerd.grpc.v1.cri".containerd.runtimes (copied from runc
      options.SystemdCgroup)
    - set plugins."io.containerd.grpc.v1.cri".containerd.default_runtime_name to 'ascend' (was 'runc')
config_version:
  description: The config version the file was edited for.
  returned: success
  type: int
  sample: 2
plugin:
  description: The key of the CRI plugin under C(plugins) that holds the runtimes.
  returned: success
  type: str
  sample: io.containerd.grpc.v1.cri
runtime:
  description: The runtime's table after the run (null after O(state=absent)).
  returned: success
  type: dict
  sample:
    runtime_type: io.containerd.runc.v2
    options:
      BinaryName: /usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime
      SystemdCgroup: true
default_runtime_name:
  description:
    - C(default_runtime_name) of the CRI containerd table after the run, as written in the file.
    - Null when the file does not set it (containerd then uses C(runc)).
  returned: success
  type: str
  sample: ascend
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
  sample: /etc/containerd/config.toml.12345.2026-12-02@21:30:00~
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
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._containerd_config import (
    ContainerdConfigError,
    RuntimeSpec,
    check_dump,
    edit_config,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._engine_original import (
    OriginalRecordError,
    load_record,
    next_record,
    plan_restore,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    TomlError,
    loads,
)

_KEEP = object()


def _same(a, b):
    """Two config.toml texts that containerd reads the same way."""
    try:
        return loads(a) == loads(b)
    except TomlError:
        return False


class _Runner:
    def __init__(self, module):
        self.module = module
        self._bin = None

    def binary(self, why, required=True):
        if self._bin is None:
            name = self.module.params["containerd_bin"]
            found = name if os.path.isabs(name) and os.path.exists(name) else None
            if found is None and not os.path.isabs(name):
                found = self.module.get_bin_path(
                    name, required=False, opt_dirs=["/usr/local/bin", "/usr/bin"]
                )
            if found is None and not required:
                return None
            if found is None:
                self.module.fail_json(
                    msg="containerd binary %r not found, needed %s; set containerd_bin (or %s)"
                    % (
                        name,
                        why,
                        "create_default=false"
                        if "default" in why
                        else "validate=false",
                    )
                )
            self._bin = found
        return self._bin

    def config_default(self):
        rc, out, err = self.module.run_command(
            [self.binary("to generate the default config"), "config", "default"]
        )
        if rc != 0:
            self.module.fail_json(
                msg="`containerd config default` failed (rc=%d): %s"
                % (rc, to_text(err).strip()),
                rc=rc,
                stderr=err,
            )
        return to_text(out)

    def default_version(self):
        if self.binary("", required=False) is None:
            return None
        try:
            version = loads(self.config_default()).get("version")
        except TomlError:
            version = None
        return version if version in (1, 2, 3) else None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", default="/etc/containerd/config.toml"),
            name=dict(type="str", default="ascend"),
            binary_name=dict(
                type="path",
                default="/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime",
            ),
            runtime_type=dict(type="str", default="io.containerd.runc.v2"),
            runtime_options=dict(type="dict", default={}),
            default=dict(type="bool", default=True),
            copy_runc_options=dict(type="bool", default=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            config_version=dict(
                type="str", choices=["auto", "1", "2", "3"], default="auto"
            ),
            create_default=dict(type="bool", default=True),
            containerd_bin=dict(type="path", default="containerd"),
            validate=dict(type="bool", default=True),
            backup=dict(type="bool", default=True),
            original_record=dict(type="path"),
        ),
        add_file_common_args=True,
        supports_check_mode=True,
    )
    p = module.params
    path = p["path"]
    runner = _Runner(module)
    if not p["name"]:
        module.fail_json(msg="name must not be empty")
    for key, value in p["runtime_options"].items():
        if not isinstance(value, (str, int, bool)):
            module.fail_json(
                msg="runtime_options.%s must be a string, an integer or a boolean" % key
            )
    spec = RuntimeSpec(
        name=p["name"],
        binary_name=p["binary_name"],
        runtime_type=p["runtime_type"],
        options=p["runtime_options"],
        default=p["default"],
        copy_runc_options=p["copy_runc_options"],
        state=p["state"],
    )

    before = read_text(module, path, "it is not valid TOML and was left untouched")
    exists = before is not None
    record_path = p["original_record"]
    record = (
        read_record(module, record_path, load_record, OriginalRecordError)
        if record_path
        else None
    )
    actions = []
    text = before
    if not exists:
        if p["state"] == "absent":
            if record_path and not module.check_mode:
                write_record(module, record_path, None)
            extra = {"restored": "missing"} if record_path else {}
            module.exit_json(
                changed=False,
                actions=[],
                config_version=None,
                plugin=None,
                runtime=None,
                default_runtime_name=None,
                **extra,
            )
        if p["create_default"]:
            text = runner.config_default()
            actions.append("created %s from `containerd config default`" % path)
        else:
            text = ""
            actions.append("created %s" % path)

    empty_version = None
    if p["config_version"] == "auto" and p["state"] == "present":
        try:
            if not loads(text):
                empty_version = runner.default_version()
        except TomlError:
            pass
    try:
        res = edit_config(
            text, spec, config_version=p["config_version"], empty_version=empty_version
        )
    except ContainerdConfigError as exc:
        module.fail_json(msg="%s: %s; the file was left untouched" % (path, exc))
    for warning in res.warnings:
        module.warn(warning)

    target = res.text
    restored = None
    changed = res.changed or not exists
    actions = (actions + res.actions) if changed else []
    default_runtime_name = res.default_runtime_name
    new_record = _KEEP
    if p["state"] == "absent" and record_path:
        target, restored = plan_restore(record, before, res.text, _same)
        changed = target != before
        if restored == "original":
            actions = (
                ["put back %s as it was before the runtime was added" % path]
                if target is not None
                else [
                    "removed %s, which did not exist before the runtime was added"
                    % path
                ]
            )
            default_runtime_name = None
        elif restored == "changed_since":
            module.warn(
                "%s was changed after the runtime was added, so only the runtime's entries "
                "were removed and the rest stays as it is now" % path
            )
        new_record = None
    elif p["state"] == "present" and record_path and changed:
        pristine = (
            not exists
            or not edit_config(
                before,
                RuntimeSpec(
                    name=p["name"], binary_name=p["binary_name"], state="absent"
                ),
            ).changed
        )
        new_record = next_record(record, path, before, res.text, pristine)
    result = dict(
        changed=changed,
        actions=actions,
        config_version=res.version,
        plugin=res.plugin,
        runtime=res.runtime if restored != "original" else None,
        default_runtime_name=default_runtime_name,
    )
    if restored is not None:
        result["restored"] = restored
    if module._diff:
        result["diff"] = dict(
            before_header=path,
            after_header=path,
            before=before or "",
            after=target or "",
        )

    if p["state"] == "present" and new_record is not _KEEP and not module.check_mode:
        # Before the engine file changes: a record that cannot be written stops the module
        # while the file is still as it was.
        write_record(module, record_path, new_record)
    if changed and target is None and not module.check_mode:
        remove(module, path, p["backup"], result)
    elif changed and not module.check_mode:
        tmp = stage(module, path, target)
        if p["validate"] and restored != "original":
            argv = [
                runner.binary("to validate the file"),
                "--config",
                tmp,
                "config",
                "dump",
            ]
            rc, out, err = module.run_command(argv)
            problems = []
            if rc != 0:
                problems.append(
                    "containerd refused it (rc=%d): %s"
                    % (rc, (to_text(err) or to_text(out)).strip())
                )
            else:
                problems = check_dump(to_text(out), spec)
            if problems:
                os.unlink(tmp)
                module.fail_json(
                    msg="the new %s did not pass `%s`; the file was left untouched: %s"
                    % (
                        path,
                        " ".join(
                            argv[:1] + ["--config", "<new file>", "config", "dump"]
                        ),
                        "; ".join(problems),
                    ),
                    rc=rc,
                    stderr=err,
                    **result,
                )
        replace(module, tmp, path, exists and p["backup"], result)
    if p["state"] == "absent" and new_record is not _KEEP and not module.check_mode:
        # After the file is back: a failed validation keeps the record for the next run.
        write_record(module, record_path, new_record)

    if os.path.exists(path):
        file_args = module.load_file_common_arguments(p)
        result["changed"] = module.set_fs_attributes_if_different(
            file_args, result["changed"]
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
