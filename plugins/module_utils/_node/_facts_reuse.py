# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""When ``ascend_facts`` with ``reuse`` may answer from the facts already read in this run.

The layer roles' fast paths each read the node before they compare it with their layer record.
On a re-run where every layer is skipped, that is the same read four times. A read with
``reuse`` is stamped with the run (the controller, the pid and start of its ``ansible-playbook``)
and the options it was made with; a later read with ``reuse`` in the same run, with the same
options, takes those facts instead of asking the node again. Any read without ``reuse`` (every
full run of a layer reads the node at its start and at its end) leaves no stamp, so after a
layer changed the node the next one reads it again. A stamp of another run (facts kept by a
fact cache) never matches.
"""

from __future__ import annotations

# The options of ascend_facts that change what it reads, with the module's defaults.
READ_OPTIONS = {
    "root": "/",
    "sysfs_root": "/sys",
    "proc_root": "/proc",
    "state_dir": "/var/lib/cubestudio-ascend",
    "install_path": None,
}


def read_options(args: dict) -> dict:
    """The options a read is made with, defaults filled in."""
    return {
        key: (args.get(key) if args.get(key) is not None else default)
        for key, default in READ_OPTIONS.items()
    }


def stamp(run: str, args: dict) -> dict:
    """What a read with ``reuse`` records in ``ansible_facts.ascend.read``."""
    return {"run": run, "options": read_options(args)}


def reusable(previous, run: str, args: dict) -> bool:
    """True when ``previous`` (the host's ``ansible_facts.ascend``, or None) was read with
    ``reuse`` in this same run with the same options, and no read without ``reuse`` came after."""
    if not isinstance(previous, dict) or not run:
        return False
    return previous.get("read") == stamp(run, args)
