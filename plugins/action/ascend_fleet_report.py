# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_fleet_report: runs on the controller only.

Documentation: plugins/modules/ascend_fleet_report.py. Logic: plugins/module_utils/_checks/_fleet_report.py.
"""

from __future__ import annotations

import os

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._fleet_report import (
    ARGUMENT_SPEC as REPORT_SPEC,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._fleet_report import (
    ReportError,
    build,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    MatrixError,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    DATA_DIR,
    RecordAction,
    load_data,
)


class ActionModule(RecordAction):
    _VALID_ARGS = frozenset(REPORT_SPEC)
    ARGUMENT_SPEC = REPORT_SPEC
    BUILD = staticmethod(build)
    ERRORS = ReportError
    RESULT = "report"
    FACT = "ascend_fleet_report"

    def compute(self, params: dict) -> dict:
        # The matrix judges the images running on the nodes (their CANN against the driver).
        matrix = load_data(
            params.get("matrix_file") or os.path.join(DATA_DIR, "version_matrix.yml"),
            "version matrix",
            validate_matrix,
            MatrixError,
        )
        return build(params, matrix)
