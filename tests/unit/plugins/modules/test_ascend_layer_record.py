# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_layer_record writes, keeps and removes a layer record; ascend_facts reads it back."""

from __future__ import annotations

import json
import os
import stat

from ansible_collections.cubestudio.ascend.plugins.modules import (
    ascend_facts,
    ascend_layer_record,
)


def run(module_runner, **args):
    result, calls = module_runner(ascend_layer_record.main, args, [])
    assert calls == []
    return result


def test_write_keep_remove(module_runner, tmp_path):
    state = str(tmp_path / "state")
    managed = tmp_path / "daemon.json"
    managed.write_text("{}\n")
    args = {
        "name": "ascend_runtime",
        "fingerprint": "abc",
        "files": [str(managed), str(tmp_path / "absent")],
        "facts": {"docker_runtime": {"version": "7.3.0"}},
        "fact_paths": ["docker_runtime.version"],
        "state_dir": state,
    }
    first = run(module_runner, **args)
    assert first["changed"] is True
    path = first["path"]
    assert path == state + "/layers/ascend_runtime.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o755
    with open(path) as handle:
        on_disk = json.loads(handle.read())
    assert on_disk == first["record"]
    assert on_disk["files"][str(tmp_path / "absent")] is None
    assert on_disk["facts"] == {"docker_runtime.version": "7.3.0"}
    # Same state: nothing to write.
    assert run(module_runner, **args)["changed"] is False
    # The facts module reads it back, with the files' current state.
    root_facts = ascend_facts.gather("/", str(tmp_path / "sys"), None, state)
    assert root_facts["layers"]["ascend_runtime"]["record"] == on_disk
    assert root_facts["layers"]["ascend_runtime"]["files"] == on_disk["files"]
    # Check mode reports the removal and keeps the file; then it goes.
    assert (
        run(
            module_runner,
            name="ascend_runtime",
            state="absent",
            state_dir=state,
            _ansible_check_mode=True,
        )["changed"]
        is True
    )
    assert os.path.exists(path)
    assert (
        run(module_runner, name="ascend_runtime", state="absent", state_dir=state)[
            "changed"
        ]
        is True
    )
    assert not os.path.exists(path)
    assert (
        run(module_runner, name="ascend_runtime", state="absent", state_dir=state)[
            "changed"
        ]
        is False
    )


def test_check_mode_writes_nothing_and_bad_input_fails(module_runner, tmp_path):
    state = str(tmp_path / "state")
    result = run(
        module_runner,
        name="npu_driver",
        fingerprint="x",
        state_dir=state,
        _ansible_check_mode=True,
    )
    assert result["changed"] is True and not os.path.exists(result["path"])
    bad = run(module_runner, name="npu-driver", fingerprint="x", state_dir=state)
    assert bad["failed"] and "layer name 'npu-driver' is not valid" in bad["msg"]
    missing = run(module_runner, name="npu_driver", state_dir=state)
    assert missing["failed"] and "fingerprint" in missing["msg"]
    relative = run(
        module_runner,
        name="npu_driver",
        fingerprint="x",
        files=["etc/x"],
        state_dir=state,
    )
    assert relative["failed"] and "absolute path" in relative["msg"]
