# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_k8s_decide: runs on the controller only.

Documentation: plugins/modules/ascend_k8s_decide.py. Logic: plugins/module_utils/_k8s/_k8s_record.py.
"""

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._k8s_record import (
    DECIDE_ARGUMENT_SPEC,
    RecordError,
    decide_layer,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    RecordAction,
)


class ActionModule(RecordAction):
    _VALID_ARGS = frozenset(DECIDE_ARGUMENT_SPEC)
    ARGUMENT_SPEC = DECIDE_ARGUMENT_SPEC
    BUILD = staticmethod(decide_layer)
    ERRORS = RecordError
    RESULT = "decision"
    FACT = ""
