# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_doctor: runs on the controller only.

Documentation: plugins/modules/ascend_doctor.py. Logic: plugins/module_utils/_checks/_doctor.py.
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
    ARGUMENT_SPEC,
    DoctorError,
    diagnose,
    format_line,
    temperature_threshold,
    validate_rows,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    ImageRulesError,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    validate_rules as validate_image_rules,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    MatrixError,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    IommuError,
    validate_rules,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    PlanError,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    DATA_DIR,
    load_data,
)

DEFAULT_ROWS = os.path.join(DATA_DIR, "troubleshooting.yml")
DEFAULT_CATALOGUE = os.path.join(DATA_DIR, "catalogue.yml")
DEFAULT_IOMMU = os.path.join(DATA_DIR, "iommu.yml")
DEFAULT_MATRIX = os.path.join(DATA_DIR, "version_matrix.yml")
DEFAULT_IMAGES = os.path.join(DATA_DIR, "container_images.yml")
DEFAULT_RULES = os.path.join(
    os.path.dirname(DATA_DIR), "roles", "exporter", "files", "ascend-npu.rules.yml"
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        rows_file = params.get("rows_file") or DEFAULT_ROWS
        table = load_data(
            rows_file, "troubleshooting table", validate_rows, DoctorError
        )
        catalogue = load_data(
            params.get("catalogue_file") or DEFAULT_CATALOGUE,
            "catalogue of Huawei facts",
            validate_catalogue,
            PlanError,
        )
        if params.get("temperature_threshold") is None:
            rules_file = params.get("rules_file") or DEFAULT_RULES
            params["temperature_threshold"] = load_data(
                rules_file, "exporter rules file", temperature_threshold, DoctorError
            )
        iommu_rules = load_data(
            DEFAULT_IOMMU, "IOMMU and SR-IOV rules", validate_rules, IommuError
        )
        images = {
            "matrix": load_data(
                params.get("matrix_file") or DEFAULT_MATRIX,
                "version matrix",
                validate_matrix,
                MatrixError,
            ),
            "rules": load_data(
                DEFAULT_IMAGES,
                "container image rules",
                validate_image_rules,
                ImageRulesError,
            ),
        }
        try:
            findings = diagnose(table, params, catalogue, iommu_rules, images)
        except DoctorError as error:
            raise AnsibleActionFail(str(error)) from None
        # A relative folder is taken from the directory ansible-playbook runs in (the
        # controller process's working directory), never from the playbook's folder.
        output_dir = os.path.abspath(params["output_dir"])
        host = params["host"] or task_vars.get("inventory_hostname", "")
        result["changed"] = False
        result["output_dir"] = output_dir
        result["report_path"] = os.path.join(output_dir, host + ".json")
        result["findings"] = findings
        result["lines"] = [format_line(finding) for finding in findings]
        result["temperature_threshold"] = params["temperature_threshold"]
        result["ansible_facts"] = {
            "ascend_doctor": {
                "findings": findings,
                "lines": result["lines"],
                "output_dir": output_dir,
                "report_path": result["report_path"],
                "rows_file": rows_file,
                "temperature_threshold": params["temperature_threshold"],
            }
        }
        return result
