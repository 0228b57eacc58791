# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The device_plugin role on a second node of another family: an Atlas 300I Pro (310P3).

The same DaemonSet serves both families; on this node the plugin advertises
huawei.com/Ascend310P, the node gets accelerator=huawei-Ascend310P, and a pod asking for one
Ascend310P sees exactly one NPU.
"""

from __future__ import annotations

import bed as bedlib
import pytest
from ansible_run import playbook, recap, task_status

MODEL, CARDS = "310P3", 2


@pytest.fixture(scope="module")
def node_310p(cluster):
    name = cluster.bed.name + "-node-310p"
    cluster.bed.create_node(name, MODEL, CARDS)
    cluster.bed.join(name)
    cluster.bed.provision(name, "25.5.0")
    yield name
    cluster.bed.leave(name)
    bedlib.docker("rm", "-f", "-v", name, check=False)


def test_a_310p_node_advertises_ascend310p(cluster, node_310p, tmp_path):
    rc, out = playbook(cluster, tmp_path, host=node_310p)
    assert rc == 0, out
    # The assert task ran and passed (its name alone is also in the TASK header, printed
    # when it is skipped or fails too).
    assert task_status(out, "The pod saw exactly one NPU") == "ok", out
    node = cluster.get("node", node_310p)
    assert node["metadata"]["labels"]["accelerator"] == "huawei-Ascend310P"
    assert node["status"]["allocatable"]["huawei.com/Ascend310P"] == str(CARDS)
    assert "huawei.com/Ascend910" not in node["status"]["allocatable"]
    rc, out = playbook(cluster, tmp_path, host=node_310p)
    assert rc == 0, out
    assert recap(out, node_310p)["changed"] == 0, out
