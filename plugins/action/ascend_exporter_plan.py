# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_exporter_plan: runs on the controller only.

Documentation: plugins/modules/ascend_exporter_plan.py. Logic: plugins/module_utils/_mindcluster.py.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.action.ascend_device_plugin_plan import (
    DEFAULT_CATALOGUE,
    load_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._mindcluster import (
    EXPORTER_ARGUMENT_SPEC,
    PlanError,
    exporter_plan,
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(EXPORTER_ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(
            argument_spec=EXPORTER_ARGUMENT_SPEC
        )
        catalogue = load_catalogue(params.get("catalogue_file") or DEFAULT_CATALOGUE)
        try:
            the_plan = exporter_plan(catalogue, params)
        except PlanError as error:
            raise AnsibleActionFail(str(error)) from None
        result["changed"] = False
        result["plan"] = the_plan
        result["ansible_facts"] = {"ascend_exporter_plan": the_plan}
        return result
