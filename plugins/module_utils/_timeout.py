# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""Commands under coreutils timeout: the argv to run and whether a result was a time-out.

A tool that hangs (npu-smi waiting on a DCMI call that never returns, an installer waiting for
an answer) must end the task with a message, not hang the play. The modules run such a tool as
``timeout --kill-after=K T argv...``: after T seconds it gets SIGTERM, K seconds later SIGKILL.
Exit code 124 is the SIGTERM case. For SIGKILL, timeout kills its whole process group, itself
included: the caller sees -9 (killed by signal 9; a shell reports 137, 128 + 9). A tool can exit
124 or 137 by itself, so a result only counts as a time-out if the time has really passed.
"""

from __future__ import annotations

TIMEOUT_RCS = (124, 137, -9)
KILL_AFTER = 5


def timed_argv(
    timeout_bin: str, argv: list, timeout: int, kill_after: int = KILL_AFTER
) -> list:
    """The argv that runs ``argv`` for at most ``timeout`` seconds (then SIGTERM, SIGKILL)."""
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        raise ValueError(
            f"timeout must be a positive number of seconds, got {timeout!r}"
        )
    if not argv:
        raise ValueError("nothing to run: argv is empty")
    return [timeout_bin, f"--kill-after={kill_after}", str(timeout)] + list(argv)


def timed_out(rc: int, elapsed: float, timeout: int) -> bool:
    """Whether a command run by :func:`timed_argv` was stopped by the time-out."""
    return rc in TIMEOUT_RCS and elapsed >= timeout
