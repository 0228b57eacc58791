# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one way the action tests run an action plugin: on the controller, with no connection."""

from __future__ import annotations

from unittest import mock

import pytest


@pytest.fixture
def run_action():
    """run_action(module, args, check_mode=False, task_vars=None) -> the result of
    module.ActionModule.run."""

    def run(module, args: dict, check_mode: bool = False, task_vars=None) -> dict:
        task = mock.MagicMock()
        task.args = args
        task.async_val = 0
        task.check_mode = check_mode
        task.action = "cubestudio.ascend." + module.__name__.rsplit(".", 1)[-1]
        connection = mock.MagicMock()
        connection._shell.tmpdir = None
        action = module.ActionModule(
            task, connection, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None
        )
        return action.run(task_vars=task_vars or {})

    return run
