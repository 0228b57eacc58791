# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runtime edits of Docker's daemon.json on real files."""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._docker_json import (
    DaemonJsonError,
    detect_style,
    edit_daemon_json,
    load,
)

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "engine-config"
JSON_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.json"))
ASCEND = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
MANAGED = ("runtimes", "default-runtime")


def read(name):
    return (FIXTURES / name).read_text()


def without_managed(data):
    data = dict(data)
    runtimes = dict(data.pop("runtimes", {}))
    runtimes.pop("ascend", None)
    data.pop("default-runtime", None)
    return data, runtimes


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_user_keys_survive_with_their_order(name):
    text = read(name)
    new_text, new, actions, _warnings = edit_daemon_json(
        text, "ascend", ASCEND, default=True
    )
    before = json.loads(text)
    assert json.loads(new_text) == new
    assert new["runtimes"]["ascend"] == {"path": ASCEND, "runtimeArgs": []}
    assert new["default-runtime"] == "ascend"
    assert without_managed(new) == without_managed(before)
    kept = [k for k in new if k in before]
    assert kept == list(before)
    if name == "vendor-template.json":
        assert actions == [] and new_text is text


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_second_run_returns_the_same_text(name):
    first, _data, _actions, _warnings = edit_daemon_json(
        read(name), "ascend", ASCEND, default=True
    )
    second, _data, actions, _warnings = edit_daemon_json(
        first, "ascend", ASCEND, default=True
    )
    assert actions == [] and second is first


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_present_then_absent_gives_back_the_original_semantics(name):
    text = read(name)
    before = json.loads(text)
    present, _data, _actions, warnings = edit_daemon_json(
        text, "ascend", ASCEND, default=True
    )
    _text, after, _actions, _warnings = edit_daemon_json(
        present, "ascend", ASCEND, state="absent"
    )
    if name == "vendor-template.json":
        assert after == {}
        return
    if before.get("default-runtime", "runc") == "runc":
        before.pop("default-runtime", None)
        assert after == before
    else:
        assert warnings and "nvidia" in warnings[0]
        before.pop("default-runtime")
        assert after == before


def test_indentation_and_one_line_arrays_are_kept():
    text = read("notes-registry-mirrors.json")
    new_text, _data, _actions, _warnings = edit_daemon_json(text, "ascend", ASCEND)
    assert '   "exec-opts": ["native.cgroupdriver=systemd"],\n' in new_text
    assert (
        '   "registry-mirrors": [\n      "https://hub-mirror.c.163.com",\n' in new_text
    )
    assert (
        '   "runtimes": {\n      "ascend": {\n         "path": "%s",\n' % ASCEND
        in new_text
    )
    assert "default-runtime" not in new_text


def test_tab_indentation_is_detected():
    style = detect_style('{\n\t"a": 1\n}\n')
    assert style.indent == "\t"
    new_text, _data, _actions, _warnings = edit_daemon_json(
        '{\n\t"a": 1\n}\n', "ascend", ASCEND
    )
    assert new_text.startswith('{\n\t"a": 1,\n\t"runtimes": {\n\t\t"ascend": {\n')


def test_one_line_file_stays_on_one_line():
    new_text, _data, _actions, _warnings = edit_daemon_json(
        '{"debug": true}', "ascend", ASCEND
    )
    assert (
        new_text
        == '{"debug": true, "runtimes": {"ascend": {"path": "%s", "runtimeArgs": []}}}'
        % ASCEND
    )


def test_docker_docs_example_only_gains_lines():
    text = read("docker-docs-linux-full.json")
    new_text, _data, _actions, _warnings = edit_daemon_json(
        text, "ascend", ASCEND, default=False
    )
    old_lines, new_lines = text.splitlines(), new_text.splitlines()
    # Only the comma after the last "custom" runtime and the new entry are new.
    missing = [line for line in old_lines if line not in new_lines]
    assert missing == ["    }"] or missing == []
    assert len(new_lines) == len(old_lines) + 4


@pytest.mark.parametrize("text", ["", "  \n", "\n"])
def test_empty_file_is_an_empty_object(text):
    assert load(text) == {}
    new_text, new, _actions, _warnings = edit_daemon_json(
        text, "ascend", ASCEND, default=True
    )
    assert new == {
        "runtimes": {"ascend": {"path": ASCEND, "runtimeArgs": []}},
        "default-runtime": "ascend",
    }
    assert new_text.endswith("}\n")


def test_default_false_removes_only_our_default():
    text = json.dumps(
        {
            "runtimes": {"ascend": {"path": ASCEND, "runtimeArgs": []}},
            "default-runtime": "ascend",
        }
    )
    _text, new, actions, _warnings = edit_daemon_json(
        text, "ascend", ASCEND, default=False
    )
    assert "default-runtime" not in new and actions == [
        "removed default-runtime 'ascend' (Docker falls back to runc)"
    ]
    other = json.dumps({"default-runtime": "nvidia"})
    same, new, actions, _warnings = edit_daemon_json(
        other, "ascend", ASCEND, default=False, state="absent"
    )
    assert same is other and actions == []


def test_runtime_args_and_path_are_enforced_other_keys_kept():
    text = json.dumps(
        {
            "runtimes": {
                "ascend": {
                    "path": "/old",
                    "runtimeArgs": ["--x"],
                    "runtimeType": "io.containerd.runc.v2",
                }
            }
        }
    )
    _text, new, actions, _warnings = edit_daemon_json(
        text, "ascend", ASCEND, runtime_args=["--debug"]
    )
    assert new["runtimes"]["ascend"] == {
        "path": ASCEND,
        "runtimeArgs": ["--debug"],
        "runtimeType": "io.containerd.runc.v2",
    }
    assert len(actions) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "a": 1,\n}\n', "not valid JSON at line 3, column 1"),
        ('{\n  "a": 1\n  "b": 2\n}', "not valid JSON at line 3, column 3"),
        ("[1, 2]", "JSON object"),
        ('"text"', "JSON object"),
        ('{"runtimes": []}', '"runtimes" of type list'),
        ('{"runtimes": {"ascend": "/bin/x"}}', '"runtimes"."ascend" of type str'),
    ],
)
def test_broken_files_are_refused(text, message):
    with pytest.raises(DaemonJsonError) as exc:
        edit_daemon_json(text, "ascend", ASCEND)
    assert message in str(exc.value)
    assert "left untouched" in str(exc.value)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.text(max_size=6), c, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=10).filter(lambda k: k not in MANAGED), json_values, max_size=6
    ),
    st.sampled_from([None, 2, 4, "\t"]),
    st.booleans(),
    st.text(min_size=1, max_size=10),
)
def test_hypothesis_edits_keep_everything_else(data, indent, default, name):
    text = json.dumps(data, indent=indent)
    new_text, new, _actions, _warnings = edit_daemon_json(
        text, name, ASCEND, default=default
    )
    assert json.loads(new_text) == new
    assert {k: v for k, v in new.items() if k not in MANAGED} == data
    assert list(new)[: len(data)] == list(data)
    assert new["runtimes"] == {name: {"path": ASCEND, "runtimeArgs": []}}
    assert ("default-runtime" in new) == default
    again, _data, actions, _warnings = edit_daemon_json(
        new_text, name, ASCEND, default=default
    )
    assert again is new_text and actions == []
    _text, gone, _actions, _warnings = edit_daemon_json(
        new_text, name, ASCEND, state="absent"
    )
    assert gone == data
