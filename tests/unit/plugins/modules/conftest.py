# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helper for module tests: run a module's main() with arguments and fake commands.

``module_runner(main, args, commands=...)`` returns ``(result, calls)``: ``result`` is the
dict given to exit_json or fail_json (``result["failed"]`` is True for fail_json) and
``calls`` lists the argv of every run_command call. ``commands`` is a list of
``(rc, stdout, stderr)`` tuples answered in order, or a callable ``argv -> (rc, out, err)``.
It patches nothing else, so it can also run inside hypothesis examples.
"""

from __future__ import annotations

import contextlib
from unittest import mock

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args


class _Exited(Exception):
    def __init__(self, result: dict) -> None:
        super().__init__(result)
        self.result = result


def _exit_json(self, **kwargs):
    kwargs.setdefault("changed", False)
    raise _Exited(kwargs)


def _fail_json(self, msg, **kwargs):
    kwargs["failed"] = True
    kwargs["msg"] = msg
    raise _Exited(kwargs)


def run_module(main, args: dict, commands=None):
    calls: list = []

    def fake_run_command(self, argv, *unused_args, **unused_kwargs):
        calls.append(list(argv))
        if callable(commands):
            return commands(list(argv))
        if not commands:
            raise AssertionError(f"unexpected command {argv}")
        return commands.pop(0)

    with contextlib.ExitStack() as stack:
        stack.enter_context(patch_module_args(args))
        stack.enter_context(
            mock.patch.object(basic.AnsibleModule, "exit_json", _exit_json)
        )
        stack.enter_context(
            mock.patch.object(basic.AnsibleModule, "fail_json", _fail_json)
        )
        stack.enter_context(
            mock.patch.object(basic.AnsibleModule, "run_command", fake_run_command)
        )
        try:
            main()
        except _Exited as exited:
            return exited.result, calls
    raise AssertionError("the module returned without exit_json or fail_json")


@pytest.fixture
def module_runner():
    return run_module
