# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    """Shared descriptions of the attributes of cubestudio.ascend modules.

    Use ``cubestudio.ascend.attributes`` for the descriptions, then a variant for the values.
    """

    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check mode and then reports what it would change without changing it.
  diff_mode:
    description: Reports a before/after diff of what it changes when run with C(--diff).
  platform:
    description: The target platforms the module runs on.
"""

    # Fact modules: read-only, set ansible_facts.
    FACTS_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    details:
      - The module only reads, so check mode runs it normally and the facts are real.
  diff_mode:
    support: N/A
    details:
      - The module changes nothing.
  facts:
    description: Returns an C(ansible_facts) dictionary that updates the host's facts.
    support: full
  platform:
    platforms: posix
    support: full
"""

    # Read-only action plugins that run on the controller and set facts.
    CONTROLLER_FACTS = r"""
options: {}
attributes:
  action:
    description: Runs as an action plugin on the controller; nothing is sent to the target.
    support: full
  async:
    description: Can be used with the C(async) keyword.
    support: none
  bypass_host_loop:
    description: Runs once for all hosts instead of once per host.
    support: none
  check_mode:
    support: full
    details:
      - The action only reads, so check mode runs it normally.
  diff_mode:
    support: N/A
    details:
      - The action changes nothing.
  facts:
    description: Returns an C(ansible_facts) dictionary that updates the host's facts.
    support: full
  platform:
    platforms: all
    support: full
    details:
      - Runs on the controller whatever the target platform.
"""
