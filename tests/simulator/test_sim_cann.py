# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated CANN packages: both layouts, EULA, upgrades, uninstall."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from simutil import cann_pkg, read_fixture

TOOLKIT_8_0 = cann_pkg("toolkit", "8.0.0")
TOOLKIT_8_5 = cann_pkg("toolkit", "8.5.0")
TOOLKIT_9_1 = cann_pkg("toolkit", "9.1.0")


def keys(text):
    return [line.split("=", 1)[0] for line in text.splitlines()]


def test_old_layout(sim):
    result = sim.run(
        TOOLKIT_8_0, "--nox11", "--install", "--quiet", "--install-for-all"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    info = sim.read(
        "/usr/local/Ascend/ascend-toolkit/latest/x86_64-linux/ascend_toolkit_install.info"
    )
    assert keys(info) == keys(
        read_fixture("installed-files", "ascend_toolkit_install.info.7.0.T10")
    )
    assert "version=8.0.0\n" in info
    assert "path=/usr/local/Ascend/ascend-toolkit/8.0.0/x86_64-linux\n" in info
    assert os.readlink(sim.p("/usr/local/Ascend/ascend-toolkit/latest")) == "8.0.0"
    env = sim.read("/usr/local/Ascend/ascend-toolkit/set_env.sh")
    assert "export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest\n" in env
    assert "/usr/local/Ascend/driver/lib64/driver" in env
    assert sim.exists(
        "/usr/local/Ascend/ascend-toolkit/8.0.0/x86_64-linux/script/uninstall.sh"
    )
    log = sim.read("/var/log/ascend_seclog/ascend_toolkit_install.log")
    assert "[Toolkit]" in log and "install success" in log
    # The same file works through bash as a shell, like `. set_env.sh`.
    shell = subprocess.run(
        [
            "bash",
            "-c",
            ". %s && echo $ASCEND_HOME_PATH"
            % sim.p("/usr/local/Ascend/ascend-toolkit/set_env.sh"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shell.stdout.strip() == "/usr/local/Ascend/ascend-toolkit/latest"


def test_nnae_and_nnrt_locations(sim):
    assert sim.run(cann_pkg("nnae", "8.0.0"), "--install", "--quiet").returncode == 0
    assert sim.run(cann_pkg("nnrt", "8.0.0"), "--install", "--quiet").returncode == 0
    nnae = sim.read("/usr/local/Ascend/nnae/latest/ascend_nnae_install.info")
    assert keys(nnae) == keys(
        read_fixture("installed-files", "ascend_nnae_install.info.8.0.RC3")
    )
    assert (
        "package_name=Ascend-cann-nnae\n" in nnae
        and "path=/usr/local/Ascend/nnae/8.0.0\n" in nnae
    )
    assert sim.exists(
        "/usr/local/Ascend/nnrt/latest/x86_64-linux/ascend_nnrt_install.info"
    )
    assert sim.exists("/usr/local/Ascend/nnae/set_env.sh")


def test_new_layout_matches_the_real_info_file(sim, packages):
    result = sim.run(
        cann_pkg("toolkit", "8.5.0", arch="aarch64"),
        "--install",
        "--quiet",
        env={"ASCEND_SIM_ARCH": "aarch64"},
    )
    assert result.returncode == 0, result.stdout
    assert sim.read(
        "/usr/local/Ascend/cann/aarch64-linux/ascend_toolkit_install.info"
    ) == read_fixture("installed-files", "ascend_toolkit_install.info.8.5.0-new-layout")
    assert os.readlink(sim.p("/usr/local/Ascend/cann")) == "cann-8.5.0"
    env = sim.read("/usr/local/Ascend/cann-8.5.0/set_env.sh")
    assert "export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}\n" in env
    assert "export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/cann-8.5.0\n" in env


def _sourced(sim, script, command):
    """``command`` in bash after ``. script`` (a node path), paths of the exported
    PYTHONPATH moved below the simulated root."""
    shell = subprocess.run(
        [
            "bash",
            "-c",
            '. %s && PYTHONPATH=$(echo "$PYTHONPATH" | sed "s#/usr/local#%s/usr/local#g") %s'
            % (sim.p(script), sim.path, command),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return shell


def test_8_5_0_has_the_documented_paths_the_old_ones_and_pyacl(sim):
    """CANN 8.5.0 as Huawei documents it (release notes, pyACL guide): `source
    /usr/local/Ascend/cann/set_env.sh`, the old ascend-toolkit paths kept working, and
    `import acl` once set_env.sh ran."""
    assert sim.run(TOOLKIT_8_5, "--install", "--quiet").returncode == 0
    assert sim.exists("/usr/local/Ascend/cann/set_env.sh")
    assert (
        os.readlink(sim.p("/usr/local/Ascend/ascend-toolkit/latest")) == "../cann-8.5.0"
    )
    assert sim.exists(
        "/usr/local/Ascend/ascend-toolkit/latest/x86_64-linux/ascend_toolkit_install.info"
    )
    for script in (
        "/usr/local/Ascend/cann/set_env.sh",
        "/usr/local/Ascend/ascend-toolkit/set_env.sh",
    ):
        shell = _sourced(
            sim, script, sys.executable + " -c 'import acl; print(acl.ASCEND_SIM)'"
        )
        assert (shell.returncode, shell.stdout) == (0, "True\n"), shell.stderr
    # 9.1.0 beside it: the compatibility paths stay with 8.5.0 until it goes.
    assert sim.run(TOOLKIT_9_1, "--install", "--quiet").returncode == 0
    assert (
        os.readlink(sim.p("/usr/local/Ascend/ascend-toolkit/latest")) == "../cann-8.5.0"
    )
    assert sim.run(TOOLKIT_8_5, "--uninstall").returncode == 0
    assert not sim.exists("/usr/local/Ascend/ascend-toolkit")


def test_an_old_layout_toolkit_keeps_its_own_latest_beside_8_5_0(sim):
    assert sim.run(TOOLKIT_8_0, "--install", "--quiet").returncode == 0
    assert sim.run(TOOLKIT_8_5, "--install", "--quiet").returncode == 0
    assert os.readlink(sim.p("/usr/local/Ascend/ascend-toolkit/latest")) == "8.0.0"
    shell = _sourced(
        sim,
        "/usr/local/Ascend/ascend-toolkit/set_env.sh",
        sys.executable + " -c 'import acl'",
    )
    assert shell.returncode == 0, shell.stderr


def test_eula_answers(sim):
    declined = sim.run(TOOLKIT_8_5, "--install", stdin="n\n")
    assert declined.returncode == 1
    assert (
        "Do you accept the EULA" in declined.stdout
        and "not accepted" in declined.stdout
    )
    assert not sim.exists("/usr/local/Ascend/cann")
    closed = sim.run(TOOLKIT_8_5, "--install", stdin="")
    assert closed.returncode == 1 and "stdin is closed" in closed.stdout
    accepted = sim.run(TOOLKIT_8_5, "--install", stdin="maybe\ny\n")
    assert accepted.returncode == 0
    assert accepted.stdout.count("Do you accept the EULA") == 2
    assert sim.exists("/usr/local/Ascend/cann/x86_64-linux/ascend_toolkit_install.info")


def test_install_side_by_side_then_upgrade_and_uninstall(sim):
    assert sim.run(TOOLKIT_8_5, "--install", "--quiet").returncode == 0
    assert sim.run(TOOLKIT_9_1, "--install", "--quiet").returncode == 0
    assert os.readlink(sim.p("/usr/local/Ascend/cann")) == "cann-9.1.0"
    assert sim.exists("/usr/local/Ascend/cann-8.5.0") and sim.exists(
        "/usr/local/Ascend/cann-9.1.0"
    )
    removed = sim.run(TOOLKIT_9_1, "--uninstall")
    assert removed.returncode == 0
    assert os.readlink(sim.p("/usr/local/Ascend/cann")) == "cann-8.5.0"
    upgraded = sim.run(TOOLKIT_9_1, "--upgrade", "--quiet")
    assert upgraded.returncode == 0 and "upgrade success" in upgraded.stdout
    assert os.readlink(sim.p("/usr/local/Ascend/cann")) == "cann-9.1.0"
    assert not sim.exists("/usr/local/Ascend/cann-8.5.0")
    script = sim.p("/usr/local/Ascend/cann-9.1.0/x86_64-linux/script/uninstall.sh")
    by_script = subprocess.run(
        ["bash", script], capture_output=True, text=True, env=sim.env, check=False
    )
    assert by_script.returncode == 0, by_script.stdout + by_script.stderr
    assert not sim.exists("/usr/local/Ascend/cann") and not sim.exists(
        "/usr/local/Ascend/cann-9.1.0"
    )


def test_reinstall_is_idempotent(sim):
    assert sim.run(TOOLKIT_8_0, "--install", "--quiet").returncode == 0
    before = sim.tree("/usr/local/Ascend")
    again = sim.run(TOOLKIT_8_0, "--install", "--quiet")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert sim.tree("/usr/local/Ascend") == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--upgrade", "--quiet"], "the upgrade needs an installed version"),
        (["--uninstall"], "is not installed in /usr/local/Ascend"),
        (["--install", "--upgrade"], "Unsupported parameters combination"),
        (["--install", "--whitelist=everything"], "--whitelist must be one of"),
        (["--install", "--chip=Ascend999"], "--chip must be one of"),
        (
            ["--install", "--install-path=relative/dir", "--quiet"],
            "must be an absolute path",
        ),
        (["--install", "--install", "--quiet"], "parameter --install is repeated"),
    ],
)
def test_errors(sim, args, message):
    result = sim.run(TOOLKIT_8_0, *args)
    assert result.returncode == 1
    assert message in result.stdout


def test_version_check_and_custom_path(sim):
    assert sim.run(TOOLKIT_8_0, "--version").stdout.splitlines()[-1] == "8.0.0"
    check = sim.run(TOOLKIT_8_0, "--check")
    assert check.returncode == 0 and "Makeself logfile:" in check.stdout
    custom = sim.run(TOOLKIT_8_0, "--install", "--quiet", "--install-path=/opt/cann")
    assert custom.returncode == 0
    assert "path=/opt/cann/ascend-toolkit/8.0.0/x86_64-linux\n" in sim.read(
        "/opt/cann/ascend-toolkit/latest/x86_64-linux/ascend_toolkit_install.info"
    )
    wrong_arch = sim.run(
        cann_pkg("toolkit", "8.0.0", arch="aarch64"), "--install", "--quiet"
    )
    assert (
        wrong_arch.returncode == 1 and "does not match the system" in wrong_arch.stdout
    )
