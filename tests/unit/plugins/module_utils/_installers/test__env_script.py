# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The environment a sourced script exports (module_utils/_installers/_env_script.py)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._env_script import (
    AFTER,
    BEFORE,
    RC,
    SCRIPT,
    EnvDumpError,
    changes,
    clean_path_list,
    env_file_lines,
    parse_dump,
)


def dump(before: dict, after: dict, rc: int = 0) -> bytes:
    parts = [BEFORE] + ["%s=%s" % item for item in before.items()]
    parts += [AFTER] + ["%s=%s" % item for item in after.items()]
    parts.append("%s%d" % (RC, rc))
    return ("\0".join(parts) + "\0").encode()


def test_parse_dump_splits_before_after_and_rc():
    before, after, rc = parse_dump(
        dump({"PATH": "/bin", "SHLVL": "1"}, {"PATH": "/x:/bin", "A": "b=c"}, 3)
    )
    assert before == {"PATH": "/bin", "SHLVL": "1"}
    assert after == {"PATH": "/x:/bin", "A": "b=c"}
    assert rc == 3


def test_values_may_hold_newlines_and_equal_signs():
    _before, after, _rc = parse_dump(dump({}, {"FUNC": "a\nb", "OPTS": "x=1 y=2"}))
    assert after == {"FUNC": "a\nb", "OPTS": "x=1 y=2"}


def test_a_script_that_exits_the_shell_is_reported():
    data = ("\0".join([BEFORE, "PATH=/bin", AFTER, "PATH=/bin"]) + "\0").encode()
    with pytest.raises(EnvDumpError, match="does it call exit"):
        parse_dump(data)
    with pytest.raises(EnvDumpError, match="markers"):
        parse_dump(b"bash: set_env.sh: No such file or directory\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/a/lib64:/b/lib64:", "/a/lib64:/b/lib64"),
        (":/a::/b:", "/a:/b"),
        ("/a:/b:/a", "/a:/b"),
        ("", ""),
        ("/only", "/only"),
    ],
)
def test_clean_path_list(value, expected):
    assert clean_path_list(value) == expected


@given(st.lists(st.sampled_from(["", "/a", "/b", "/c/d", "/e"]), max_size=12))
def test_clean_path_list_keeps_order_and_drops_empty_and_repeated(elements):
    cleaned = clean_path_list(":".join(elements))
    parts = cleaned.split(":") if cleaned else []
    assert "" not in parts
    assert len(parts) == len(set(parts))
    expected = []
    for element in elements:
        if element and element not in expected:
            expected.append(element)
    assert parts == expected


def test_changes_are_new_or_changed_variables_without_shell_noise():
    before = {"PATH": "/usr/bin:/bin", "HOME": "/root", "SHLVL": "1", "PWD": "/"}
    after = {
        "PATH": "/opt/cann/bin:/usr/bin:/bin",
        "HOME": "/root",
        "SHLVL": "2",
        "PWD": "/tmp",
        "_": "/usr/bin/env",
        "LD_LIBRARY_PATH": "/opt/cann/lib64:/usr/local/Ascend/driver/lib64:",
        "ASCEND_HOME_PATH": "/opt/cann",
    }
    assert changes(before, after) == {
        "ASCEND_HOME_PATH": "/opt/cann",
        "LD_LIBRARY_PATH": "/opt/cann/lib64:/usr/local/Ascend/driver/lib64",
        "PATH": "/opt/cann/bin:/usr/bin:/bin",
    }


def test_env_file_lines_are_sorted_and_skip_multi_line_values():
    lines, skipped = env_file_lines({"B": "2", "A": "x y", "F": "1\n2", "C": "a=b"})
    assert lines == ["A=x y", "B=2", "C=a=b"]
    assert skipped == ["F"]


def test_the_script_runs_in_a_clean_bash(tmp_path):
    script = tmp_path / "set_env.sh"
    script.write_text(
        "export ASCEND_TOOLKIT_HOME=/opt/t\n"
        "export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:$LD_LIBRARY_PATH\n"
        "export PATH=${ASCEND_TOOLKIT_HOME}/bin:$PATH\n"
        "echo noise\n"
    )
    proc = subprocess.run(
        ["env", "-i", "PATH=/usr/bin:/bin", "bash", "--noprofile", "--norc", "-c"]
        + [SCRIPT, "test", str(script)],
        capture_output=True,
        check=True,
    )
    before, after, rc = parse_dump(proc.stdout)
    assert rc == 0
    assert changes(before, after) == {
        "ASCEND_TOOLKIT_HOME": "/opt/t",
        "LD_LIBRARY_PATH": "/opt/t/lib64",
        "PATH": "/opt/t/bin:/usr/bin:/bin",
    }
