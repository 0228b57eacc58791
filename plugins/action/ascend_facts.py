# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller side of ascend_facts: with ``reuse``, answer from the facts this run already read
with the same options (module_utils/_node/_facts_reuse.py decides); otherwise run the module on the
node and stamp its facts (``ansible_facts.ascend.read``) when ``reuse`` asked for it."""

from __future__ import annotations

import os
import socket

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._facts_reuse import (
    reusable,
    stamp,
)

MODULE = "cubestudio.ascend.ascend_facts"
OPTIONS = frozenset(
    ("root", "sysfs_root", "proc_root", "state_dir", "install_path", "reuse")
)


def process_start(pid: int) -> str:
    """The start time of a process in clock ticks since boot (Linux), else an empty string:
    with the pid it names one process, even after the pid is used again."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def this_run() -> str:
    """This run of ansible-playbook: workers are forked from it, so it is our parent."""
    parent = os.getppid()
    return f"{socket.gethostname()}:{parent}:{process_start(parent)}"


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = OPTIONS

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        args = dict(self._task.args)
        try:
            reuse = boolean(args.pop("reuse", False), strict=True)
        except TypeError as error:
            raise AnsibleActionFail(f"reuse must be a boolean: {error}") from error
        run = this_run()
        previous = ((task_vars or {}).get("ansible_facts") or {}).get("ascend")
        if reuse and reusable(previous, run, args):
            # The host's ansible_facts.ascend are those facts already: nothing to set.
            result.update(changed=False, reused=True)
            return result
        answer = self._execute_module(MODULE, module_args=args, task_vars=task_vars)
        result.update(answer)
        facts = (answer.get("ansible_facts") or {}).get("ascend")
        if isinstance(facts, dict) and not answer.get("failed"):
            facts["read"] = stamp(run, args) if reuse else None
            result["reused"] = False
        return result
