# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The containerd_restart_failure filter: the restarts and waits -> the refusal sentence."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._runtime_steps import (
    containerd_failure,
)

DOCUMENTATION = r"""
name: containerd_restart_failure
short_description: Why containerd did not come back after a restart for a changed config.toml, and what was done
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - The cause (the restart failed, no answer in time, or the CRI plugin not C(ok)), how the previous file went back
    (from the backup, or removed), whether containerd answers again with it, and the last lines of its journal.
  - The refusal of the ascend_runtime role's containerd handlers, in Python (C(plugins/module_utils/_engines/_runtime_steps.py)).
options:
  _input:
    description:
      - C(path) the config.toml, C(restart) the registered restart, C(ready) the registered wait, C(again) the
        registered wait after the restart with the previous file, C(config) the registered result of
        M(cubestudio.ascend.containerd_runtime_config), C(timeout) the seconds waited, C(journal) the registered C(journalctl) run.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Fail because containerd did not come back
  vars:
    __inputs:
      path: /etc/containerd/config.toml
      restart: "{{ containerd_restart }}"
      ready: "{{ containerd_ready }}"
      again: "{{ containerd_again }}"
      config: "{{ containerd_config_result }}"
      timeout: 60
      journal: "{{ containerd_journal }}"
  ansible.builtin.fail:
    msg: "{{ __inputs | cubestudio.ascend.containerd_restart_failure }}"
"""

RETURN = r"""
_value:
  description: The refusal sentence.
  type: str
"""


def containerd_restart_failure(inputs):
    """The sentence; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("restart"), dict):
        raise AnsibleFilterError(
            "containerd_restart_failure expects a dict with path, restart, ready, again, config, timeout and journal"
        )

    def _dict(key):
        value = inputs.get(key)
        return value if isinstance(value, dict) else {}

    return containerd_failure(
        str(inputs.get("path") or ""),
        inputs["restart"],
        _dict("ready"),
        _dict("again"),
        _dict("config"),
        inputs.get("timeout"),
        _dict("journal").get("stdout_lines") or [],
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"containerd_restart_failure": containerd_restart_failure}
