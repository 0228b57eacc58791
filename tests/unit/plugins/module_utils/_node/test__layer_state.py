# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Layer records (plugins/module_utils/_node/_layer_state.py): what may be skipped on a re-run."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._layer_state import (
    LayerStateError,
    build_record,
    converged,
    file_state,
    read_layers,
    record_path,
    render,
    verdict,
)

FACTS = {
    "driver": {"version": "25.5.0", "complete": True},
    "davinci_devices": 8,
    "firmware": None,
}
PATHS = ["driver.version", "davinci_devices", "firmware.version"]


@pytest.fixture
def node(tmp_path):
    (tmp_path / "etc/docker").mkdir(parents=True)
    (tmp_path / "etc/docker/daemon.json").write_text('{"default-runtime": "ascend"}\n')
    (tmp_path / "opt").mkdir()
    os.symlink("cann-8.5.0", tmp_path / "opt/cann")
    return tmp_path


def write(node, name, record):
    path = record_path("/var/lib/cubestudio-ascend", name, str(node))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(render(record))
    return path


def files():
    return ["/etc/docker/daemon.json", "/opt/cann", "/run/reboot-required"]


def test_file_states(node):
    assert file_state(str(node / "etc/docker/daemon.json")).startswith("sha256:")
    assert file_state(str(node / "opt/cann")) == "link:cann-8.5.0"
    assert file_state(str(node / "etc")) == "dir"
    assert file_state(str(node / "nope")) is None


def test_record_round_trip_converges(node):
    record = build_record("ascend_runtime", "f1", files(), FACTS, PATHS, str(node))
    assert record["files"]["/run/reboot-required"] is None
    assert record["facts"] == {
        "driver.version": "25.5.0",
        "davinci_devices": 8,
        "firmware.version": None,
    }
    write(node, "ascend_runtime", record)
    layers = read_layers("/var/lib/cubestudio-ascend", str(node))
    assert converged(layers, "ascend_runtime", "f1", FACTS) == (True, [])
    # Stable: the same state renders the same bytes.
    assert render(
        build_record("ascend_runtime", "f1", files(), FACTS, PATHS, str(node))
    ) == render(record)


@pytest.mark.parametrize(
    "change, reason",
    [
        (
            lambda n, f: (n / "etc/docker/daemon.json").write_text("{}\n"),
            "/etc/docker/daemon.json changed since the last run",
        ),
        (
            lambda n, f: (n / "etc/docker/daemon.json").unlink(),
            "/etc/docker/daemon.json is gone since the last run",
        ),
        (
            lambda n, f: (
                (n / "run").mkdir(),
                (n / "run/reboot-required").write_text("x"),
            ),
            "/run/reboot-required appeared since the last run",
        ),
        (
            lambda n, f: (
                os.unlink(n / "opt/cann"),
                os.symlink("cann-9.0.0", n / "opt/cann"),
            ),
            "/opt/cann changed since the last run",
        ),
        (lambda n, f: f.update(davinci_devices=7), "davinci_devices is 7, was 8"),
        (
            lambda n, f: f["driver"].update(version="24.1.0"),
            "driver.version is '24.1.0', was '25.5.0'",
        ),
    ],
)
def test_any_drift_runs_the_layer(node, change, reason):
    facts = json.loads(json.dumps(FACTS))
    write(
        node,
        "ascend_runtime",
        build_record("ascend_runtime", "f1", files(), facts, PATHS, str(node)),
    )
    change(node, facts)
    layers = read_layers("/var/lib/cubestudio-ascend", str(node))
    assert converged(layers, "ascend_runtime", "f1", facts) == (False, [reason])


def test_other_inputs_missing_or_broken_records(node):
    write(
        node,
        "npu_driver",
        build_record("npu_driver", "f1", [], FACTS, PATHS, str(node)),
    )
    layers = read_layers("/var/lib/cubestudio-ascend", str(node))
    assert converged(layers, "npu_driver", "f2", FACTS) == (
        False,
        ["the settings or the collection changed since the last run"],
    )
    assert converged(layers, "cann_toolkit", "f1", FACTS) == (
        False,
        ["no record of a complete run of cann_toolkit on the node"],
    )
    broken = record_path("/var/lib/cubestudio-ascend", "cann_toolkit", str(node))
    with open(broken, "w") as handle:
        handle.write("{not json")
    (node / "var/lib/cubestudio-ascend/layers/README.txt").write_text("ignored")
    layers = read_layers("/var/lib/cubestudio-ascend", str(node))
    assert sorted(layers) == ["cann_toolkit", "npu_driver"]
    done, reasons = converged(layers, "cann_toolkit", "f1", FACTS)
    assert not done and reasons[0].startswith(
        "the record of cann_toolkit cannot be read (cann_toolkit.json:"
    )
    with open(broken, "w") as handle:
        handle.write('{"schema": 2, "files": {}}')
    layers = read_layers("/var/lib/cubestudio-ascend", str(node))
    assert "not a schema 1 layer record" in layers["cann_toolkit"]["error"]
    assert read_layers("/nowhere", str(node)) == {}


def test_bad_input():
    with pytest.raises(LayerStateError, match="layer name"):
        build_record("../etc", "f", [], {}, [])
    with pytest.raises(LayerStateError, match="fingerprint must be"):
        build_record("npu_driver", "", [], {}, [])
    with pytest.raises(LayerStateError, match="absolute path"):
        build_record("npu_driver", "f", ["etc/x"], {}, [])
    with pytest.raises(LayerStateError, match="layer name"):
        record_path("/var/lib/x", "Bad-Name")


def test_verdict_of_one_node(node):
    layers = read_layers("/var/lib/cubestudio-ascend", root=str(node))
    done, reasons = converged(layers, "npu_driver", "fp", {})
    assert not done
    check = {"name": "npu_driver", "converged": done, "reasons": reasons}
    before = verdict("npu_driver", check)
    assert before["converged"] is False
    assert before["line"] == (
        "npu_driver: runs in full (no record of a complete run of npu_driver on the node)"
    )
    assert before["message"].startswith("Running npu_driver in full: no record")
    after = verdict("npu_driver", check, recorded=True)
    assert after["line"] == (
        "npu_driver: ran in full and verified "
        "(no record of a complete run of npu_driver on the node)"
    )
    checked = verdict("npu_driver", check, recorded=True, check_mode=True)
    assert "ran in full in check mode, nothing recorded" in checked["line"]
    skipped = verdict(
        "npu_driver", {"name": "npu_driver", "converged": True, "reasons": []}
    )
    assert skipped["converged"] is True
    assert skipped["line"].startswith("npu_driver: skipped as unchanged")
    assert "the node is as the last complete run" in skipped["message"]
    off = verdict("npu_driver", None, recorded=True)
    assert off == {
        "converged": False,
        "line": "npu_driver: ran in full and verified (npu_driver_fast_rerun is false)",
        "message": "Running npu_driver in full: npu_driver_fast_rerun is false.",
    }


def test_verdict_of_a_play():
    ok = {"name": "preflight", "converged": True, "reasons": []}
    changed = {"name": "preflight", "converged": False, "reasons": ["x is 2, was 1"]}
    assert verdict("preflight", ok, play=[ok, ok])["converged"] is True
    assert (
        "every node of the play" in verdict("preflight", ok, play=[ok, ok])["message"]
    )
    other = verdict("preflight", ok, play=[ok, changed])
    assert other["converged"] is False
    assert other["line"] == "preflight: runs in full (another node of the play changed)"
    own = verdict("preflight", changed, play=[ok, changed])
    assert own["line"] == "preflight: runs in full (x is 2, was 1)"
    assert verdict("preflight", ok, play=[])["converged"] is False
    with pytest.raises(LayerStateError):
        verdict("Not A Name", ok)
