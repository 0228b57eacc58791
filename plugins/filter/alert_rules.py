# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The alert_rules filter: a Prometheus rules file with the `for` durations of some alerts set."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._alert_rules import (
    with_durations,
)

DOCUMENTATION = r"""
name: alert_rules
short_description: A Prometheus rules file with the pending durations (for) of its alerts set
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Replaces the value of the C(for:) line of each alert named in O(durations) and leaves every
    other byte of the file as it is (comments, layout, the Prometheus templates of the
    annotations), so the file's own values give the file unchanged.
  - Fails naming an alert the file does not have (or that has no C(for:)) and a value that is not
    a Prometheus duration.
options:
  _input:
    description: The rules file, as text.
    type: str
    required: true
  durations:
    description: Alert name to duration (C(5m), C(30s), C(1h30m)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the rules with a shorter pending time for hot chips
  ansible.builtin.copy:
    content: >-
      {{ lookup('ansible.builtin.file', 'ascend-npu.rules.yml')
         | cubestudio.ascend.alert_rules({'AscendNpuTemperatureHigh': '2m'}) }}
    dest: /etc/prometheus/rules/ascend-npu.rules.yml
    mode: "0644"
"""

RETURN = r"""
_value:
  description: The rules file with the durations set.
  type: str
"""


def alert_rules(text, durations):
    """The rules file with the `for` of each alert of `durations`; AnsibleFilterError on bad input."""
    if not isinstance(text, str):
        raise AnsibleFilterError("alert_rules expects the rules file as text")
    if not isinstance(durations, dict):
        raise AnsibleFilterError("alert_rules expects a dict of alert name to duration")
    try:
        return with_durations(str(text), {str(k): str(v) for k, v in durations.items()})
    except ValueError as error:
        raise AnsibleFilterError("alert_rules: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"alert_rules": alert_rules}
