# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/test.py: every bed file in one shard, the longest ready step first, a failed build fails
the steps that need it as "not run" and the run, and --record writes what it measured."""

from __future__ import annotations

import stat


def fake_make(tmp_path, fail=()):
    """A stand-in for make that logs its arguments, fails for the named targets and takes 0.2 s."""
    calls = tmp_path / "calls"
    script = tmp_path / "make"
    script.write_text(
        "#!/bin/sh\n"
        'echo "$*" >>%s\n'
        % calls
        + "".join('case "$*" in *%s*) exit 3;; esac\n' % name for name in fail)
        + "sleep 0.2\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, calls


def setup_tool(load_tool, tmp_path, monkeypatch, steps, durations, fail=()):
    tool = load_tool("test")
    script, calls = fake_make(tmp_path, fail)
    monkeypatch.setattr(tool, "MAKE", str(script))
    monkeypatch.setattr(tool, "MK", [str(script)])
    monkeypatch.setattr(tool, "LOGS", str(tmp_path / "logs"))
    monkeypatch.setattr(tool, "DURATIONS", str(tmp_path / "durations.txt"))
    (tmp_path / "durations.txt").write_text(
        "# comment\n" + "".join("%s %d\n" % kv for kv in durations.items())
    )
    monkeypatch.setattr(
        tool,
        "all_steps",
        lambda: [
            tool.Step(name, [str(script), name], needs=needs) for name, needs in steps
        ],
    )
    return tool, calls


def test_every_bed_file_is_in_one_shard(load_tool):
    tool = load_tool("test")
    assert tool.check_shards() is None


def test_a_bed_file_in_no_shard_is_refused(load_tool, monkeypatch):
    tool = load_tool("test")
    shards = {k: list(v) for k, v in tool.TESTBED_SHARDS.items()}
    left_out = shards["testbed-b"].pop()
    monkeypatch.setattr(tool, "TESTBED_SHARDS", shards)
    assert tool.check_shards() == (
        "test-bed files in no shard of tools/test.py TESTBED_SHARDS: " + left_out
    )
    assert tool.main(["--list"]) == 2


def test_molecule_scenarios_and_shards_are_steps(load_tool):
    tool = load_tool("test")
    names = {s.name: s for s in tool.all_steps()}
    assert "molecule:site" in names and "molecule:doctor" in names
    assert names["molecule:site"].argv[-1] == "SCENARIO=site site@min"
    assert "docker-runtime" in names["molecule:ascend_runtime_docker"].needs
    assert "docker-runtime" not in names["molecule:npu_driver"].needs
    assert names["molecule:ascend_runtime_containerd2"].needs == [
        "images",
        "containerd2",
        "crictl",
    ]
    assert names["testbed-a"].env["BED_NAME"] != names["testbed-b"].env["BED_NAME"]
    assert names["testbed-a"].env["BED_SUBNET"] != names["testbed-b"].env["BED_SUBNET"]


def test_longest_ready_step_first_and_builds_in_order(load_tool, tmp_path, monkeypatch):
    steps = [("short", []), ("long", []), ("middle", []), ("needs-k8s", ["k8s"])]
    durations = {"short": 1, "long": 100, "middle": 50, "needs-k8s": 1000}
    tool, calls = setup_tool(load_tool, tmp_path, monkeypatch, steps, durations)
    assert tool.main(["--jobs", "1"]) == 0
    lines = calls.read_text().split("\n")
    assert lines[0] == "--no-print-directory setup"
    # The builds run in their lane in BUILDS' order; only the ones some step needs.
    builds = [line for line in lines if line in tool.BUILDS]
    assert builds == ["k8s"]
    ran = [line for line in lines if line in dict(steps)]
    # One at a time: the longest ready first; needs-k8s, the longest, starts once k8s is built.
    assert ran.index("long") < ran.index("middle") < ran.index("short")
    summary = (tmp_path / "logs" / "summary.tsv").read_text()
    assert "needs-k8s\tpassed\t" in summary


def test_failed_build_fails_its_steps_as_not_run(
    load_tool, tmp_path, monkeypatch, capsys
):
    steps = [("quick", []), ("bed", ["k8s"])]
    tool, calls = setup_tool(load_tool, tmp_path, monkeypatch, steps, {}, fail=["k8s"])
    assert tool.main([]) == 1
    out = capsys.readouterr().out
    assert "=== bed: FAILED (not run: k8s did not build)" in out
    assert "bed" not in calls.read_text().split("\n")
    assert "quick\tpassed\t" in (tmp_path / "logs" / "summary.tsv").read_text()


def test_record_writes_the_measured_seconds(load_tool, tmp_path, monkeypatch):
    steps = [("one", []), ("two", [])]
    tool = setup_tool(load_tool, tmp_path, monkeypatch, steps, {"old": 7})[0]
    assert tool.main(["--record"]) == 0
    recorded = tool.read_durations()
    assert set(recorded) == {"old", "one", "two"}
    assert recorded["old"] == 7 and recorded["one"] < 5


def test_unknown_step_is_refused(load_tool, capsys):
    tool = load_tool("test")
    assert tool.main(["--only", "no-such-step"]) == 2
    assert "unknown steps: no-such-step" in capsys.readouterr().err
