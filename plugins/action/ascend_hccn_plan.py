# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_hccn_plan: runs on the controller only.

Documentation: plugins/modules/ascend_hccn_plan.py. Logic: plugins/module_utils/_node/_hccn.py.
Without ``requests`` it collects the fact ``hccn_request`` of every host of the play
(``ansible_play_hosts_all``) from ``hostvars``: each host's request is set by the role's
gather, so the plan sees the whole fleet.
"""

from __future__ import annotations

import os

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._hccn import (
    PLAN_ARGUMENT_SPEC,
    HccnPlanError,
    fleet_plan,
    validate_data,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    DATA_DIR,
    PlanAction,
    load_data,
)


def fleet_requests(task_vars) -> dict:
    """{host: hccn_request} of the play's hosts that have one."""
    hostvars = task_vars.get("hostvars") or {}
    out = {}
    for host in task_vars.get("ansible_play_hosts_all") or []:
        try:
            request = hostvars[host].get("hccn_request")
        except KeyError:
            request = None
        if request is not None:
            out[host] = request
    return out


class ActionModule(PlanAction):
    _VALID_ARGS = frozenset(PLAN_ARGUMENT_SPEC)
    ARGUMENT_SPEC = PLAN_ARGUMENT_SPEC
    PLAN = staticmethod(fleet_plan)
    VALIDATE = staticmethod(validate_data)
    ERRORS = HccnPlanError
    CATALOGUE = "hccn.yml"
    WHAT = "hccn data file"
    FACT = "hccn_plan"

    def compute(self, params: dict) -> dict:
        data = load_data(
            params.get("data_file") or os.path.join(DATA_DIR, self.CATALOGUE),
            self.WHAT,
            type(self).VALIDATE,
            self.ERRORS,
        )
        if params.get("requests") is None:
            params = dict(params, requests=fleet_requests(self._fleet_vars))
        return type(self).PLAN(data, params)

    def run(self, tmp=None, task_vars=None):
        self._fleet_vars = task_vars or {}
        return super().run(tmp, task_vars)
