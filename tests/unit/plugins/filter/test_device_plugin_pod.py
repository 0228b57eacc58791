# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The device_plugin_pod filter of playbooks/doctor.yml."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.device_plugin_pod import (
    FilterModule,
)

FILTER = FilterModule().filters()["device_plugin_pod"]
DAEMONSET = {
    "metadata": {"namespace": "kube-system", "name": "ascend-device-plugin-daemonset"},
    "spec": {"selector": {"matchLabels": {"name": "ascend-device-plugin-ds"}}},
}


def pod(name, owner=None, deleting=False):
    meta = {"namespace": "kube-system", "name": name}
    if owner:
        meta["ownerReferences"] = [{"kind": "DaemonSet", "name": owner}]
    if deleting:
        meta["deletionTimestamp"] = "2026-12-05T12:00:00Z"
    return {"metadata": meta}


def test_the_plugin_s_pod_that_is_not_going_away():
    pods = [
        pod("coredns"),
        pod("old", "ascend-device-plugin-daemonset", deleting=True),
        pod("new", "ascend-device-plugin-daemonset"),
    ]
    assert FILTER(pods, [DAEMONSET]) == {"namespace": "kube-system", "name": "new"}
    assert FILTER([pod("coredns")], [DAEMONSET]) == {}


def test_bad_input_is_refused():
    with pytest.raises(AnsibleFilterError, match="a list of pods"):
        FILTER("pods", [DAEMONSET])
    with pytest.raises(AnsibleFilterError, match="a selector string"):
        FILTER([], [DAEMONSET], {"name": "ascend-device-plugin-ds"})


def test_the_selector_is_the_catalogue_s_unless_given():
    """Without a selector the filter knows the plugin by the pod label of data/mindcluster.yml
    (DAEMONSET has no image to know it by); a given selector replaces it."""
    pods = [pod("new", "ascend-device-plugin-daemonset")]
    assert FILTER(pods, [DAEMONSET])["name"] == "new"
    assert FILTER(pods, [DAEMONSET], "name=ascend-device-plugin-ds")["name"] == "new"
    assert FILTER(pods, [DAEMONSET], "name=other-plugin") == {}
    assert FILTER(pods, [DAEMONSET], "") == {}
