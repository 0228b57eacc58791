# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cann_env_facts sources real scripts with the real bash: no subprocess mocking."""

from __future__ import annotations

import json
import platform

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.cubestudio.ascend.plugins.modules import cann_env_facts

# The shape of CANN 8.0's ascend-toolkit/set_env.sh: driver libraries first, a command
# substitution, appends to unset variables.
SET_ENV_8_0 = """\
export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/common:$LD_LIBRARY_PATH
export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${ASCEND_TOOLKIT_HOME}/opp/op_tiling/lib/linux/$(arch):$LD_LIBRARY_PATH
export PYTHONPATH=${ASCEND_TOOLKIT_HOME}/python/site-packages:$PYTHONPATH
export PATH=${ASCEND_TOOLKIT_HOME}/bin:$PATH
export ASCEND_AICPU_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export TOOLCHAIN_HOME=${ASCEND_TOOLKIT_HOME}/toolkit
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
"""

# The 8.5.0 script finds its own directory.
SET_ENV_8_5 = """\
_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASCEND_TOOLKIT_HOME="$_here"
export ASCEND_HOME_PATH="$_here"
export LD_LIBRARY_PATH="$_here/lib64:$LD_LIBRARY_PATH"
unset _here
"""


def run_module(capsys, args):
    with patch_module_args(args), pytest.raises(SystemExit) as exc:
        cann_env_facts.main()
    result = json.loads(capsys.readouterr().out)
    result["_exit"] = exc.value.code
    return result


def test_cann_8_0_environment_is_expanded_and_cleaned(tmp_path, capsys):
    script = tmp_path / "set_env.sh"
    script.write_text(SET_ENV_8_0)
    result = run_module(capsys, {"path": str(script), "base_path": "/usr/bin:/bin"})
    assert result["_exit"] == 0
    assert result["changed"] is False
    env = result["ansible_facts"]["ascend_cann_env"]
    home = "/usr/local/Ascend/ascend-toolkit/latest"
    assert env["script"] == str(script)
    assert env["variables"] == {
        "ASCEND_AICPU_PATH": home,
        "ASCEND_HOME_PATH": home,
        "ASCEND_OPP_PATH": home + "/opp",
        "ASCEND_TOOLKIT_HOME": home,
        "LD_LIBRARY_PATH": "%s/lib64:%s/opp/op_tiling/lib/linux/%s:"
        "/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/common"
        % (home, home, platform.machine()),
        "PATH": home + "/bin:/usr/bin:/bin",
        "PYTHONPATH": home + "/python/site-packages",
        "TOOLCHAIN_HOME": home + "/toolkit",
    }
    assert env["lines"][0] == "ASCEND_AICPU_PATH=" + home
    assert env["lines"] == sorted(env["lines"])
    assert env["skipped"] == []
    assert env["rc"] == 0


def test_a_script_that_finds_its_directory(tmp_path, capsys):
    cann = tmp_path / "cann-8.5.0"
    cann.mkdir()
    (cann / "set_env.sh").write_text(SET_ENV_8_5)
    result = run_module(capsys, {"path": str(cann / "set_env.sh")})
    env = result["ansible_facts"]["ascend_cann_env"]["variables"]
    assert env == {
        "ASCEND_HOME_PATH": str(cann),
        "ASCEND_TOOLKIT_HOME": str(cann),
        "LD_LIBRARY_PATH": str(cann) + "/lib64",
    }


def test_the_caller_environment_does_not_leak_in(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/leak/lib")
    monkeypatch.setenv("ASCEND_HOME_PATH", "/leak")
    script = tmp_path / "set_env.sh"
    script.write_text("export LD_LIBRARY_PATH=/cann/lib64:$LD_LIBRARY_PATH\n")
    result = run_module(capsys, {"path": str(script)})
    assert result["ansible_facts"]["ascend_cann_env"]["variables"] == {
        "LD_LIBRARY_PATH": "/cann/lib64"
    }


def test_a_missing_script_fails_with_the_fix(tmp_path, capsys):
    result = run_module(capsys, {"path": str(tmp_path / "set_env.sh")})
    assert result["failed"] is True
    assert "does not exist" in result["msg"]
    assert "install the CANN package" in result["msg"]


def test_a_script_that_exports_nothing_is_refused(tmp_path, capsys):
    script = tmp_path / "set_env.sh"
    script.write_text("echo hello >&2\nreturn 3\n")
    result = run_module(capsys, {"path": str(script)})
    assert result["failed"] is True
    assert "exports no variable (exit code 3)" in result["msg"]
    assert "hello" in result["msg"]


def test_a_script_that_exits_the_shell_is_refused(tmp_path, capsys):
    script = tmp_path / "set_env.sh"
    script.write_text("export A=1\nexit 0\n")
    result = run_module(capsys, {"path": str(script)})
    assert result["failed"] is True
    assert "does it call exit" in result["msg"]


def test_a_multi_line_value_is_left_out_of_the_lines(tmp_path, capsys, monkeypatch):
    warnings = []
    monkeypatch.setattr(
        basic.AnsibleModule, "warn", lambda self, msg: warnings.append(msg)
    )
    script = tmp_path / "set_env.sh"
    script.write_text("export A=1\nexport B='x\ny'\n")
    result = run_module(capsys, {"path": str(script)})
    env = result["ansible_facts"]["ascend_cann_env"]
    assert env["lines"] == ["A=1"]
    assert env["skipped"] == ["B"]
    assert warnings == [
        "%s sets B to a value of several lines; it is left out of the env file lines"
        % script
    ]


def test_a_missing_shell_is_refused(tmp_path, capsys):
    script = tmp_path / "set_env.sh"
    script.write_text("export A=1\n")
    result = run_module(
        capsys, {"path": str(script), "shell": str(tmp_path / "no-bash")}
    )
    assert result["failed"] is True
    assert "not an executable shell" in result["msg"]
