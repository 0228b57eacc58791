# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layer_fingerprint lookup: the same inputs give the same fingerprint, any change another."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import lookup_loader
from ansible.template import Templar


def fingerprint(role, variables, **kwargs):
    loader = DataLoader()
    plugin = lookup_loader.get(
        "cubestudio.ascend.layer_fingerprint",
        loader=loader,
        templar=Templar(loader=loader),
    )
    return plugin.run([role], variables=variables, **kwargs)[0]


def test_same_inputs_same_fingerprint_and_each_change_counts():
    base = {
        "npu_driver_version": "25.5.0",
        "npu_driver_reboot": "never",
        "unrelated": 1,
    }
    first = fingerprint("npu_driver", dict(base))
    assert len(first) == 64 and first == fingerprint("npu_driver", dict(base))
    # A variable that is not one of the role's options does not count; the fast-rerun switch neither.
    assert (
        fingerprint("npu_driver", dict(base, unrelated=2, npu_driver_fast_rerun=True))
        == first
    )
    assert fingerprint("npu_driver", dict(base, npu_driver_version="24.1.0")) != first
    # An option set or unset is a change too.
    assert fingerprint("npu_driver", {"npu_driver_version": "25.5.0"}) != first
    # Each role has its own options and code.
    assert fingerprint("cann_toolkit", dict(base)) != fingerprint(
        "ascend_runtime", dict(base)
    )


@pytest.mark.parametrize("role", ["nope", "../roles/npu_driver"])
def test_unknown_role(role):
    with pytest.raises(AnsibleLookupError, match=r"not a role of cubestudio\.ascend"):
        fingerprint(role, {})


def test_inputs_beyond_the_variables_count():
    # hccn: this host's part of the fleet plan, which other hosts' variables can move.
    variables = {"hccn_subnets": ["10.20.0.0/24"]}
    plan = {"ports": [{"id": 0, "address": "10.20.0.10"}], "mtu": 9000}
    bare = fingerprint("hccn", dict(variables))
    with_plan = fingerprint("hccn", dict(variables), inputs=plan)
    assert with_plan != bare
    assert fingerprint("hccn", dict(variables), inputs=dict(plan)) == with_plan
    moved = {"ports": [{"id": 0, "address": "10.20.0.11"}], "mtu": 9000}
    assert fingerprint("hccn", dict(variables), inputs=moved) != with_plan
    # No inputs (the other layers) is the fingerprint of the variables alone.
    assert fingerprint("hccn", dict(variables), inputs={}) == bare
