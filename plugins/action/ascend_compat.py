# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_compat: runs on the controller, nothing on the target.

Documentation: plugins/modules/ascend_compat.py. Logic: plugins/module_utils/_compat/.
"""

from __future__ import annotations

import os

from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._evaluation import (
    ARGUMENT_SPEC,
    evaluate,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    MatrixError,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    DATA_DIR,
    load_data,
)

DEFAULT_MATRIX = os.path.join(DATA_DIR, "version_matrix.yml")


def load_matrix(path: str) -> dict:
    """Read and validate a matrix file; AnsibleActionFail with a clear reason otherwise."""
    return load_data(path, "version matrix", validate_matrix, MatrixError)


def summary(findings: list) -> str:
    errors = [f for f in findings if f["severity"] == "error"]
    lines = [f"{len(errors)} Ascend version compatibility error(s):"]
    lines.extend(f"- [{f['rule']}] {f['message']}. Fix: {f['fix']}" for f in errors)
    return "\n".join(lines)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        matrix_file = params.get("matrix_file") or DEFAULT_MATRIX
        matrix = load_matrix(matrix_file)
        verdict = evaluate(matrix, params)
        verdict["matrix_file"] = matrix_file
        result["changed"] = False
        result["ansible_facts"] = {"ascend_compat": verdict}
        result["ascend_compat"] = verdict
        if params["fail_on_error"] and not verdict["ok"]:
            result["failed"] = True
            result["msg"] = summary(verdict["findings"])
        else:
            warnings = [
                f"[{f['rule']}] {f['message']}"
                for f in verdict["findings"]
                if f["severity"] == "warning"
            ]
            if warnings:
                result["warnings"] = warnings
        return result
