# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PRIVATE to the cubestudio.ascend collection: the controller side of its data files.

load_data reads one of the collection's YAML data files (data/version_matrix.yml,
data/mindcluster.yml, or a site copy) and validates it; PlanAction is the action plugin of a
plan module: validate the arguments, load the catalogue, run the plan, return it as a fact;
RecordAction the same without a catalogue (the node record, the fleet report).
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

# Where the data files are and how one is read: plugin_utils._data_files (light, for filters).
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
    load_data,
)


class ControllerAction(ActionBase):
    """An action that runs on the controller only: validate the arguments, compute a value from
    them, return it under RESULT and as the fact FACT (none when FACT is empty). Subclasses set ARGUMENT_SPEC, ERRORS
    (the exceptions that are bad input) and compute(params)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    ARGUMENT_SPEC: dict = {}
    RESULT = ""
    FACT = ""

    def compute(self, params: dict) -> dict:
        raise NotImplementedError

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(
            argument_spec=self.ARGUMENT_SPEC
        )
        try:
            value = self.compute(params)
        except self.ERRORS as error:
            raise AnsibleActionFail(str(error)) from None
        result["changed"] = False
        result[self.RESULT] = value
        if self.FACT:
            result["ansible_facts"] = {self.FACT: value}
        return result


class PlanAction(ControllerAction):
    """Subclasses set ARGUMENT_SPEC, PLAN (catalogue, params) -> plan, ERRORS, VALIDATE,
    CATALOGUE (file name under data/), WHAT (its name in errors) and FACT (the fact the plan is
    returned as). The plan's warnings become the task's."""

    CATALOGUE = ""
    WHAT = "MindCluster catalogue"
    RESULT = "plan"

    def compute(self, params: dict) -> dict:
        catalogue = load_data(
            params.get("catalogue_file") or os.path.join(DATA_DIR, self.CATALOGUE),
            self.WHAT,
            type(self).VALIDATE,
            self.ERRORS,
        )
        return type(self).PLAN(catalogue, params)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        if result[self.RESULT].get("warnings"):
            result["warnings"] = list(result[self.RESULT]["warnings"])
        return result


class RecordAction(ControllerAction):
    """Subclasses set ARGUMENT_SPEC, BUILD (params) -> dict, ERRORS, RESULT (the result key) and
    FACT (the fact the result is returned as)."""

    def compute(self, params: dict) -> dict:
        return type(self).BUILD(params)
