# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_install_options


def write_info(tmp_path, text):
    path = tmp_path / "ascend_install.info"
    path.write_text(text)
    return str(path)


def test_upgrade_options_are_empty(module_runner, tmp_path):
    path = write_info(
        tmp_path,
        "UserName=HwHiAiUser\nUserGroup=HwHiAiUser\nDriver_Install_Type=full\n"
        "Driver_Install_Path_Param=/usr/local/Ascend\nDriver_Install_For_All=yes\n",
    )
    result, calls = module_runner(
        ascend_install_options.main,
        {
            "component": "driver",
            "action": "upgrade",
            "install_path": "/usr/local/Ascend",
            "install_for_all": True,
            "install_info": path,
        },
    )
    assert calls == []
    assert result["changed"] is False and "failed" not in result
    assert result["options"] == {
        "install_path": None,
        "install_username": None,
        "install_usergroup": None,
        "install_for_all": False,
    }
    assert result["recorded"]["install_for_all"] is True


def test_conflict_fails_with_cause_and_fix(module_runner, tmp_path):
    path = write_info(
        tmp_path,
        "UserName=root\nUserGroup=root\nDriver_Install_Type=full\n"
        "Driver_Install_Path_Param=/usr/local/Ascend\nDriver_Install_For_All=no\n",
    )
    result, _calls = module_runner(
        ascend_install_options.main,
        {
            "component": "driver",
            "action": "upgrade",
            "install_username": "HwHiAiUser",
            "install_usergroup": "HwHiAiUser",
            "install_info": path,
            "labels": {"install_username": "the run user"},
        },
    )
    assert result["failed"] is True
    assert "Cause: the run user is HwHiAiUser" in result["msg"]
    assert "Fix: " in result["msg"]
    assert result["recorded"]["install_username"] == "root"


def test_fresh_install_without_a_record(module_runner, tmp_path):
    result, _calls = module_runner(
        ascend_install_options.main,
        {
            "component": "driver",
            "action": "full",
            "install_path": "/opt/ascend",
            "install_for_all": True,
            "install_info": str(tmp_path / "missing"),
        },
    )
    assert result["recorded"] is None
    assert result["options"]["install_path"] == "/opt/ascend"
    assert result["options"]["install_for_all"] is True


def test_bad_input_fails(module_runner, tmp_path):
    for extra in ({"labels": {"path": "x"}}, {"install_path": "relative/path"}):
        result, _calls = module_runner(
            ascend_install_options.main,
            dict(
                {
                    "component": "driver",
                    "action": "full",
                    "install_info": str(tmp_path / "missing"),
                },
                **extra,
            ),
        )
        assert result["failed"] is True
