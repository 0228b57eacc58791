# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cann_env_steps filter: the wanted environment files and the script -> what configure does."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._cann_layout import (
    env_steps,
)

DOCUMENTATION = r"""
name: cann_env_steps
short_description: What the cann_toolkit role does with CANN's environment script
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Whether the environment script (C(set_env.sh)) is missing although the installation should have it, and which
    of the env file for containers and the login-shell script are written.
  - The decision of the cann_toolkit role's configure step, in Python (C(plugins/module_utils/_installers/_cann_layout.py)).
options:
  _input:
    description:
      - C(env_file) (cann_toolkit_env_file, empty for none), C(profile_script) (cann_toolkit_profile_script, empty for
        none), C(set_env_exists) (whether the script is on the node), C(check_mode), and C(steps) (the plan's CANN
        steps).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Work out what to do with the environment script
  vars:
    __inputs:
      env_file: /etc/cubestudio/cann.env
      profile_script: /etc/profile.d/cann.sh
      set_env_exists: true
      check_mode: "{{ ansible_check_mode }}"
      steps: []
  ansible.builtin.set_fact:
    env: "{{ __inputs | cubestudio.ascend.cann_env_steps }}"
"""

RETURN = r"""
_value:
  description: >-
    C(missing_script) (refuse: a file is wanted and the script is missing with nothing about to install it),
    C(make_env_dir), C(write_env_file) (read the script, write the file), C(write_profile) and C(say_pending)
    (check mode without the script: say that the env file will be written), each a boolean.
  type: dict
"""


def cann_env_steps(inputs):
    """The configure step's booleans; AnsibleFilterError on bad input."""
    if not isinstance(inputs, dict) or "set_env_exists" not in inputs:
        raise AnsibleFilterError(
            "cann_env_steps expects a dict with env_file, profile_script, set_env_exists, check_mode and steps"
        )
    try:
        return env_steps(
            str(inputs.get("env_file") or ""),
            str(inputs.get("profile_script") or ""),
            boolean(inputs.get("set_env_exists"), strict=True),
            boolean(inputs.get("check_mode", False), strict=False),
            inputs.get("steps") or [],
        )
    except TypeError as error:
        raise AnsibleFilterError("cann_env_steps: %s" % error) from None


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"cann_env_steps": cann_env_steps}
