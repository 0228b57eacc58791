# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_timeout: the argv under coreutils timeout, and which results are time-outs (real runs)."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._timeout import (
    timed_argv,
    timed_out,
)

TIMEOUT = shutil.which("timeout")


def test_argv():
    assert timed_argv("/usr/bin/timeout", ["npu-smi", "info"], 60) == [
        "/usr/bin/timeout",
        "--kill-after=5",
        "60",
        "npu-smi",
        "info",
    ]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "60"])
def test_bad_timeout(bad):
    with pytest.raises(ValueError, match="positive number of seconds"):
        timed_argv("/usr/bin/timeout", ["true"], bad)


def test_empty_argv():
    with pytest.raises(ValueError, match="argv is empty"):
        timed_argv("/usr/bin/timeout", [], 5)


@pytest.mark.parametrize(
    ("rc", "elapsed", "expected"),
    [
        (124, 60.0, True),
        (137, 65.2, True),
        (124, 3.0, False),
        (1, 90.0, False),
        (0, 61, False),
    ],
)
def test_timed_out(rc, elapsed, expected):
    assert timed_out(rc, elapsed, 60) is expected


def test_a_real_hang_is_stopped_and_recognised():
    started = time.monotonic()
    proc = subprocess.run(timed_argv(TIMEOUT, ["sleep", "30"], 1), check=False)
    elapsed = time.monotonic() - started
    assert elapsed < 10
    assert timed_out(proc.returncode, elapsed, 1)


def test_a_command_ignoring_sigterm_is_killed():
    started = time.monotonic()
    argv = ["sh", "-c", "trap '' TERM; sleep 30"]
    proc = subprocess.run(timed_argv(TIMEOUT, argv, 1, kill_after=1), check=False)
    elapsed = time.monotonic() - started
    # timeout(1) SIGKILLs its process group, itself too: Python sees -9 (a shell 137).
    assert proc.returncode == -9
    assert timed_out(proc.returncode, elapsed, 1)


def test_a_quick_command_is_not_a_timeout():
    started = time.monotonic()
    proc = subprocess.run(
        timed_argv(TIMEOUT, ["sh", "-c", "exit 124"], 30), check=False
    )
    assert proc.returncode == 124
    assert not timed_out(proc.returncode, time.monotonic() - started, 30)
