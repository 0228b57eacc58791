# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_device_plugin_plan: runs on the controller only.

Documentation: plugins/modules/ascend_device_plugin_plan.py. Logic: plugins/module_utils/_k8s/_mindcluster.py.
"""

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    ARGUMENT_SPEC as PLAN_SPEC,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    PlanError,
    plan,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import PlanAction


class ActionModule(PlanAction):
    _VALID_ARGS = frozenset(PLAN_SPEC)
    ARGUMENT_SPEC = PLAN_SPEC
    PLAN = staticmethod(plan)
    VALIDATE = staticmethod(validate_catalogue)
    ERRORS = PlanError
    CATALOGUE = "mindcluster.yml"
    FACT = "ascend_device_plugin_plan"
