# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_host_facts reads the real host: statvfs, /proc/self/mountinfo, PATH, /lib/modules."""

from __future__ import annotations

import os

from ansible_collections.cubestudio.ascend.plugins.modules import ascend_host_facts


def test_facts_for_paths_programs_and_kernel(module_runner, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lspci").write_text("#!/bin/sh\n")
    (bin_dir / "lspci").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    missing = str(tmp_path / "not" / "there")
    result, calls = module_runner(
        ascend_host_facts.main,
        {"paths": [missing, str(tmp_path)], "programs": ["lspci", "ifconfig"]},
    )
    assert calls == []  # it runs no command
    assert result["changed"] is False
    facts = result["ansible_facts"]["ascend_host"]
    assert set(facts["space"]) == {missing, str(tmp_path)}
    assert facts["space"][missing]["exists"] is False
    assert facts["space"][missing]["checked_path"] == str(tmp_path)
    assert facts["space"][str(tmp_path)]["free_bytes"] > 0
    assert facts["space"][str(tmp_path)]["mount"] is not None
    assert facts["programs"] == {"lspci": str(bin_dir / "lspci"), "ifconfig": None}
    assert facts["path_env"] == str(bin_dir)
    assert facts["kernel"]["release"] == os.uname()[2]
    assert facts["kernel"]["build_dir"] == "/lib/modules/%s/build" % os.uname()[2]
    assert isinstance(facts["kernel"]["headers"], bool)


def test_defaults_cover_the_install_path_and_tmp(module_runner):
    result, _calls = module_runner(ascend_host_facts.main, {})
    facts = result["ansible_facts"]["ascend_host"]
    assert set(facts["space"]) == {"/usr/local/Ascend", "/tmp"}
    assert set(facts["programs"]) == {
        "lspci",
        "ifconfig",
        "dkms",
        "gcc",
        "make",
        "docker",
        "containerd",
    }


def test_relative_paths_are_refused(module_runner):
    result, _calls = module_runner(
        ascend_host_facts.main, {"paths": ["usr/local/Ascend"]}
    )
    assert result["failed"] is True
    assert "paths must be absolute" in result["msg"]


def test_an_empty_path_variable_falls_back_to_the_standard_one():
    facts = ascend_host_facts.gather(["/"], ["sh"], environ={})
    assert facts["path_env"] == ascend_host_facts.DEFAULT_PATH
    assert facts["programs"]["sh"] in ("/usr/local/bin/sh", "/usr/bin/sh", "/bin/sh")
