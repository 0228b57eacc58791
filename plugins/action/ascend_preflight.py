# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_preflight: runs on the controller only.

Documentation: plugins/modules/ascend_preflight.py. Logic: plugins/module_utils/_checks/_preflight.py.
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._preflight import (
    ARGUMENT_SPEC,
    PreflightError,
    run,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    MatrixError,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
    validate_rules,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    DATA_DIR,
    load_data,
)

DEFAULT_MATRIX = os.path.join(DATA_DIR, "version_matrix.yml")
DEFAULT_IOMMU = os.path.join(DATA_DIR, "iommu.yml")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        params["host"] = params["host"] or task_vars.get("inventory_hostname", "")
        matrix = load_data(
            params.get("matrix_file") or DEFAULT_MATRIX,
            "version matrix",
            validate_matrix,
            MatrixError,
        )
        rules = load_data(
            params.get("iommu_rules_file") or DEFAULT_IOMMU,
            "IOMMU and SR-IOV rules",
            validate_rules,
            IommuError,
        )
        try:
            verdict = run(params, matrix, rules)
        except PreflightError as error:
            raise AnsibleActionFail(f"ascend_preflight: {error}") from None
        result["changed"] = False
        result.update(verdict)
        # `failed` is the role's decision to refuse the node; the task itself always succeeds
        # so that the role can publish preflight_results before it fails.
        result["refuse"] = result.pop("failed")
        result["ansible_facts"] = {
            "ascend_preflight": {
                "results": verdict["results"],
                "findings": verdict["findings"],
            }
        }
        warnings = [
            "[%s] %s" % (f["rule"], f["message"])
            for f in verdict["compat"]["findings"]
            if f["severity"] == "warning"
        ]
        if warnings:
            result["warnings"] = warnings
        return result
