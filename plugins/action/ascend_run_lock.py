# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_run_lock: the owner of this run, and its liveness.

Documentation: plugins/modules/ascend_run_lock.py. Logic: plugins/module_utils/_run_lock.py.
The module on the node reads and writes the lock file; this side adds what only the controller
knows - who this run is (host, ansible-playbook pid, user) and whether the process of a lock
taken from this controller still exists - and words the refusal.
"""

from __future__ import annotations

import getpass
import os
import socket
import uuid

from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._run_lock import (
    held_message,
    owner_gone,
)

MODULE = "cubestudio.ascend.ascend_run_lock"
OPTIONS = frozenset(("state", "path", "what", "ttl"))


def pid_alive(pid: int) -> bool:
    """Whether a process of this controller exists (signal 0: a permission error means yes)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def this_run() -> dict:
    """The owner record of this run. Workers are forked from ansible-playbook: its pid is ours'
    parent."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return {
        "controller": socket.gethostname(),
        "pid": os.getppid(),
        "user": user,
        "token": uuid.uuid4().hex,
    }


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = OPTIONS

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        args = {k: v for k, v in self._task.args.items() if k in OPTIONS}
        owner = this_run()
        args["owner"] = owner
        answer = self._execute_module(MODULE, module_args=args, task_vars=task_vars)
        holder = answer.get("holder")
        if (
            answer.get("lock") == "held by another run"
            and holder
            and owner_gone(holder, owner["controller"], pid_alive)
        ):
            args["break_token"] = holder["token"]
            answer = self._execute_module(MODULE, module_args=args, task_vars=task_vars)
        result.update(answer)
        if answer.get("lock") == "held by another run":
            host = (task_vars or {}).get("inventory_hostname", "the node")
            result["failed"] = True
            result["msg"] = held_message(
                answer.get("path", args.get("path", "the lock file")),
                host,
                holder,
                answer.get("reason", ""),
                int(args.get("ttl") or 14400),
            )
        return result
