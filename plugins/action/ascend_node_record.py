# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_node_record: runs on the controller only.

Documentation: plugins/modules/ascend_node_record.py. Logic: plugins/module_utils/_node/_node_record.py.
"""

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_record import (
    ARGUMENT_SPEC as RECORD_SPEC,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_record import (
    RecordError,
    build,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data import (
    RecordAction,
)


class ActionModule(RecordAction):
    _VALID_ARGS = frozenset(RECORD_SPEC)
    ARGUMENT_SPEC = RECORD_SPEC
    BUILD = staticmethod(build)
    ERRORS = RecordError
    RESULT = "record"
    FACT = "ascend_node_record"
