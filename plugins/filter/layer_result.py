# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layer_result filter: a node layer's fast-path check -> whether it runs, and the summary's line."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._layer_state import (
    LayerStateError,
    recorded_check,
    verdict,
    with_result,
)

DOCUMENTATION = r"""
name: layer_result
short_description: Whether a node layer runs in full or is skipped as unchanged, and the line the summary prints
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The decision of the lifecycle role C(cubestudio.ascend._layer) (its C(fast) and C(record) steps), in Python
    (C(plugins/module_utils/_node/_layer_state.py)).
  - A layer is skipped when its fast-path check (C(plan.layer) of M(cubestudio.ascend.ascend_plan)) says the node is
    as the layer's last complete run left it; with C(play), only when every node of the play is.
  - The line says C(skipped as unchanged), C(runs in full (why)), C(ran in full and verified (why)) or, in check
    mode, C(ran in full in check mode, nothing recorded (why)).
options:
  _input:
    description:
      - C(name) the layer, C(check) this host's C(plan.layer) (none when the fast path did not run), C(scope) C(host)
        (the default) or C(play) (the layer is skipped only when every node of the play is converged), C(play) the
        C(plan.layer) of every node of the play (read with C(scope=play) only), C(recorded) true once
        the complete run wrote its record, C(check_mode) true in check mode.
      - C(results) the fact C(_layer_results) so far (layer name -> C(line) and C(check)); the record step
        passes it without C(check) and the filter finds the check the fast path kept there.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Decide whether the layer runs
  vars:
    __inputs:
      name: npu_driver
      check: "{{ __layer_check['plan']['layer'] }}"
    __result: "{{ __inputs | cubestudio.ascend.layer_result }}"
  ansible.builtin.debug:
    msg: "{{ __result['message'] }}"
"""

RETURN = r"""
_value:
  description:
    - C(converged) (skip the rest of the layer), C(line) (the summary's line for the layer), C(message) (why it
      runs, or that it has nothing to do) and C(results) (C(results) with this layer's line and check).
  type: dict
"""


def layer_result(inputs):
    """``{converged, line, message}``; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not inputs.get("name"):
        raise AnsibleFilterError(
            "layer_result expects a dict with name, check and optionally play, recorded, check_mode"
        )
    scope = inputs.get("scope") or "host"
    if scope not in ("host", "play"):
        raise AnsibleFilterError(
            "layer_result: scope must be host or play, got %r" % (scope,)
        )
    play = inputs.get("play") if scope == "play" else None
    if scope == "play" and not isinstance(play, (list, tuple)):
        raise AnsibleFilterError(
            "layer_result: play must be the list of plan.layer of the play's nodes"
        )
    results = inputs.get("results")
    results = {} if results is None else results
    if not isinstance(results, dict):
        raise AnsibleFilterError(
            "layer_result: results must be the dict _layer_results"
        )
    try:
        check = (
            inputs["check"]
            if "check" in inputs
            else recorded_check(results, inputs["name"])
        )
        result = verdict(
            inputs["name"],
            check,
            play=list(play) if play is not None else None,
            recorded=boolean(inputs.get("recorded", False), strict=False),
            check_mode=boolean(inputs.get("check_mode", False), strict=False),
        )
        result["results"] = with_result(results, inputs["name"], check, result)
        return result
    except LayerStateError as error:
        raise AnsibleFilterError("layer_result: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"layer_result": layer_result}
