# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one rule for "the NPUs are in use" (npu_driver's T6, install and uninstall)."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._in_use import (
    NpuUseError,
    npu_use,
)

FREE = {"containers": [], "engines": {}, "errors": []}
TRAIN = {
    "engine": "docker",
    "pod": None,
    "name": "train",
    "devices": ["/dev/davinci0", "/dev/davinci_manager"],
    "all_devices": False,
    "visible_devices": None,
}
POD = {
    "engine": "containerd",
    "pod": "default/infer",
    "name": "infer",
    "devices": [],
    "all_devices": True,
    "visible_devices": "0-1",
}


def test_nothing_on_the_npus_is_free():
    assert npu_use([], FREE) == {
        "in_use": False,
        "summary": "",
        "processes": [],
        "containers": [],
        "errors": [],
    }
    assert npu_use(None, FREE)["in_use"] is False


def test_a_process_is_named_with_its_npu_and_chip():
    use = npu_use([{"pid": 42, "name": "python", "npu": 1, "chip": 0}], FREE)
    assert use["in_use"] is True
    assert (
        use["summary"]
        == "1 process(es) run on the NPUs (pid 42 python on NPU 1 chip 0)"
    )


def test_containers_are_named_with_what_they_map():
    use = npu_use([], dict(FREE, containers=[TRAIN, POD]))
    assert use["summary"] == (
        "2 running container(s) use the NPU devices (docker train: /dev/davinci0 "
        "/dev/davinci_manager, containerd default/infer infer: all devices "
        "ASCEND_VISIBLE_DEVICES=0-1)"
    )


def test_an_engine_that_cannot_be_asked_counts_as_in_use():
    use = npu_use([], dict(FREE, errors=["docker: docker ps failed"]))
    assert use["in_use"] is True
    assert (
        use["summary"]
        == "the container engines cannot be asked (docker: docker ps failed)"
    )


def test_every_cause_in_one_sentence():
    use = npu_use(
        [{"pid": 7, "name": None, "npu": 0, "chip": 0}],
        dict(FREE, containers=[TRAIN], errors=["containerd: x"]),
    )
    assert use["summary"].count("; ") == 2 and "pid 7 on NPU 0 chip 0" in use["summary"]


@pytest.mark.parametrize(
    "bad", [([], None), (["x"], FREE), ([], dict(FREE, containers=[1]))]
)
def test_bad_input_is_refused(bad):
    with pytest.raises(NpuUseError):
        npu_use(*bad)
