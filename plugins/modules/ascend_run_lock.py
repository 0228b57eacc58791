#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_run_lock
short_description: Take or release the node's run lock, so that two runs never change one node at once (internal to the roles)
version_added: 0.1.0
description:
  - Two runs of the collection at once on one node (two operators, a scheduled job and a person)
    would run the vendor installers over each other or flash the NPU firmware twice. The roles
    that change a node take this lock first and release it at the end, also when they fail.
  - The lock is a file on the node, O(path), holding a JSON record of its owner - the
    controller host, the pid of C(ansible-playbook) there, the user, O(what), the start time. It
    outlives a dropped connection and a reboot of the node.
  - With O(state=held) the lock is taken; a lock of another run fails the task with a message
    that starts with its troubleshooting row, C([T31]), names that run and says how to go on.
    This run may take its own lock again.
  - A lock is stale and taken over when it is older than O(ttl), or when its run used this same
    controller and its C(ansible-playbook) process no longer exists (a run that was killed or
    lost the node), or when the file is damaged and older than a minute.
  - With O(state=released) the lock is removed if this run holds it; a lock of another run is
    left alone.
  - Runs as an action plugin - the controller side knows the owner and whether a process of the
    controller is still alive - and a module on the node, which reads and writes the file.
options:
  state:
    description:
      - V(held) takes the lock, V(released) gives it back.
    type: str
    choices: [held, released]
    default: held
  path:
    description:
      - The lock file on the node. Its directory is created (mode C(0755)) if missing.
    type: path
    default: /var/lib/cubestudio-ascend/run.lock
  what:
    description:
      - What the run does, shown to a run that finds the lock held (for example the role name).
    type: str
    default: cubestudio.ascend
  ttl:
    description:
      - Seconds after which a lock is stale whoever holds it. Longer than the longest run
        (installers, a reboot), shorter than the time an operator would wait.
    type: int
    default: 14400
  owner:
    description:
      - Set by the action plugin, not by the task - the owner of this run.
    type: dict
  break_token:
    description:
      - Set by the action plugin, not by the task - the token of a lock found stale on the
        controller, which the module may then take over.
    type: str
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  action:
    description: Runs as an action plugin on the controller, which runs the module on the node.
    support: full
  check_mode:
    support: full
    details:
      - In check mode a lock of another run still fails the task; the lock is neither taken nor
        released.
  diff_mode:
    support: N/A
    details:
      - The lock file is bookkeeping; the task never reports a change.
  platform:
    platforms: posix
    support: full
notes:
  - Internal to the roles of cubestudio.ascend, used by the npu_driver and cann_toolkit roles. Its
    options and results follow what they need and may change in any release; it is documented for
    them and for debugging, not as an interface.
  - The task reports C(changed=false) when it takes or releases the lock, so that a second run
    reports zero changes.
  - Taking over a stale lock is not atomic against a third run taking it over at the same
    moment; the lock guards against people and schedules, not against a race of milliseconds.
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Change the node under the lock
  block:
    - name: Take the node's run lock
      cubestudio.ascend.ascend_run_lock:
        what: npu_driver

    - name: Install the driver
      ansible.builtin.include_role:
        name: cubestudio.ascend.npu_driver
  always:
    - name: Release the node's run lock
      cubestudio.ascend.ascend_run_lock:
        state: released
"""

RETURN = r"""
lock:
  description: What the task did with the lock - V(taken), V(taken over), V(already held), V(released), V(not held), V(held by another run).
  returned: always
  type: str
  sample: taken
path:
  description: The lock file.
  returned: always
  type: str
  sample: /var/lib/cubestudio-ascend/run.lock
holder:
  description: The record of the lock file when the task ends (null when there is none).
  returned: always
  type: dict
  sample:
    controller: ops-01
    pid: 81723
    user: ops
    what: npu_driver
    started: 1764840000
    token: 4f1c9c1e2b6a4d0e9a8f3b7c5d2e1f00
reason:
  description: Why the lock was taken over, or why it is held.
  returned: when the lock was taken over or is held by another run
  type: str
  sample: the lock is 15000 s old, older than its time to live (14400 s)
"""

import json
import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._run_lock import (
    LockRecordError,
    decide,
    new_record,
    parse_record,
    same_owner,
)


def read_lock(path: str):
    """(record, error, age of the file in seconds); (None, None, 0) when there is no lock."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        age = time.time() - os.stat(path).st_mtime
    except FileNotFoundError:
        return None, None, 0.0
    try:
        return parse_record(text), None, age
    except LockRecordError as error:
        return None, str(error) or "damaged", age


def create(path: str, record: dict) -> bool:
    """Create the lock file if there is none; False if another run created it first."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    return True


def replace(path: str, record: dict) -> None:
    """Write the record over a stale lock (rename: the file is never half-written)."""
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temp, 0o644)
    os.replace(temp, path)


def hold(module: AnsibleModule, path: str, owner: dict) -> dict:
    params = module.params
    for _attempt in range(3):
        record, error, age = read_lock(path)
        verdict, reason = decide(
            record, owner, time.time(), params["ttl"], params["break_token"], age, error
        )
        if verdict == "ours":
            return {"lock": "already held", "holder": record}
        if verdict == "held":
            return {"lock": "held by another run", "holder": record, "reason": reason}
        if module.check_mode:
            return {"lock": "taken", "holder": None}
        mine = new_record(owner, time.time())
        if verdict == "free":
            if create(path, mine):
                return {"lock": "taken", "holder": mine}
            continue  # another run was quicker: read its record
        replace(path, mine)
        return {"lock": "taken over", "holder": mine, "reason": reason}
    module.fail_json(
        msg=f"the lock {path} changes under this run; try again", path=path
    )
    return {}  # not reached


def release(module: AnsibleModule, path: str, owner: dict) -> dict:
    record, _error, _age = read_lock(path)
    if record is None or not same_owner(record, owner):
        return {"lock": "not held", "holder": record}
    if not module.check_mode:
        os.unlink(path)
    return {"lock": "released", "holder": None}


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "state": {
                "type": "str",
                "choices": ["held", "released"],
                "default": "held",
            },
            "path": {"type": "path", "default": "/var/lib/cubestudio-ascend/run.lock"},
            "what": {"type": "str", "default": "cubestudio.ascend"},
            "ttl": {"type": "int", "default": 14400},
            "owner": {"type": "dict"},
            "break_token": {"type": "str", "no_log": False},
        },
        supports_check_mode=True,
    )
    params = module.params
    owner = params["owner"]
    if (
        not owner
        or not owner.get("controller")
        or not isinstance(owner.get("pid"), int)
    ):
        module.fail_json(
            msg="owner (controller, pid, user, token) is set by the action plugin: run the "
            "module as cubestudio.ascend.ascend_run_lock"
        )
    if params["ttl"] <= 0:
        module.fail_json(
            msg=f"ttl must be a positive number of seconds, got {params['ttl']}"
        )
    owner = dict(owner, what=params["what"])
    path = params["path"]
    directory = os.path.dirname(path) or "."
    try:
        if params["state"] == "held" and not module.check_mode:
            os.makedirs(directory, mode=0o755, exist_ok=True)
        result = (hold if params["state"] == "held" else release)(module, path, owner)
    except OSError as error:
        module.fail_json(msg=f"cannot use the lock {path}: {error}", path=path)
    module.exit_json(changed=False, path=path, **result)


if __name__ == "__main__":
    main()
