# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_device_plugin_plan: runs on the controller only.

Documentation: plugins/modules/ascend_device_plugin_plan.py. Logic: plugins/module_utils/_mindcluster.py.
"""

from __future__ import annotations

import os

import yaml
from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._mindcluster import (
    ARGUMENT_SPEC,
    PlanError,
    plan,
    validate_catalogue,
)

DEFAULT_CATALOGUE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "data",
    "mindcluster.yml",
)


def load_catalogue(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as error:
        raise AnsibleActionFail(
            f"cannot read the MindCluster catalogue {path}: {error.strerror}"
        ) from None
    except yaml.YAMLError as error:
        raise AnsibleActionFail(
            f"the MindCluster catalogue {path} is not valid YAML: {error}"
        ) from None
    try:
        return validate_catalogue(data)
    except PlanError as error:
        raise AnsibleActionFail(f"{path}: {error}") from None


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        catalogue = load_catalogue(params.get("catalogue_file") or DEFAULT_CATALOGUE)
        try:
            the_plan = plan(catalogue, params)
        except PlanError as error:
            raise AnsibleActionFail(str(error)) from None
        result["changed"] = False
        result["plan"] = the_plan
        result["ansible_facts"] = {"ascend_device_plugin_plan": the_plan}
        if the_plan["warnings"]:
            result["warnings"] = list(the_plan["warnings"])
        return result
