# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Readers of Huawei's installed files, on the real files (fixtures/installed-files)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers import (
    _ascend_files as files,
)

INSTALLED = Path(__file__).parents[1] / "fixtures" / "installed-files"


def installed(name: str) -> str:
    return (INSTALLED / name).read_text()


def test_parse_info_file_driver():
    info = files.parse_info_file(installed("driver-version.info.23.0.7"))
    assert info["Version"] == "23.0.7"
    assert info["Innerversion"] == "V100R001C15SPC012B220"
    assert info["compatible_version_fw"] == "[7.0.0,7.1.99]"
    assert info["package_version"] == "23.0.7"
    assert len(info) == 12


def test_parse_info_file_skips_junk():
    assert files.parse_info_file("# comment\n\nnot a pair\n a = b = c \n=x\n") == {
        "a": "b = c"
    }
    assert files.parse_info_file("") == {}
    assert files.parse_info_file(None) is None


def test_install_paths():
    info = files.parse_info_file(installed("etc-ascend_install.info"))
    assert files.install_paths(info, None) == {
        "driver": "/usr/local/Ascend",
        "firmware": "/usr/local/Ascend",
    }
    assert files.install_paths({"Driver_Install_Path_Param": "/opt/A"}, None) == {
        "driver": "/opt/A",
        "firmware": "/opt/A",
    }
    assert files.install_paths(None, None) == {
        "driver": "/usr/local/Ascend",
        "firmware": "/usr/local/Ascend",
    }
    assert files.install_paths(info, "/srv/x") == {
        "driver": "/srv/x",
        "firmware": "/srv/x",
    }


def test_driver_complete(ascend_node):
    root, _sysfs = ascend_node("full")
    driver = files.driver(root, "/usr/local/Ascend")
    info = driver.pop("info")
    assert driver == {
        "version": "23.0.7",
        "package_version": "23.0.7",
        "innerversion": "V100R001C15SPC012B220",
        "compatible_firmware": "[7.0.0,7.1.99]",
        "compatible_firmware_ranges": [{"min": "7.0.0", "max": "7.1.99"}],
        "compatible_innerversions": [
            "V100R001C29",
            "V100R001C30",
            "V100R001C13",
            "V100R001C15",
        ],
        "install_path": "/usr/local/Ascend/driver",
        "version_file": "/usr/local/Ascend/driver/version.info",
        "upgrade_tool": True,
        "unfinished": False,
        "complete": True,
    }
    assert info["ascendhal_version"] == "7.35.19"


def test_driver_without_upgrade_tool_is_incomplete(ascend_node):
    root, _sysfs = ascend_node("incomplete-driver")
    driver = files.driver(root, "/usr/local/Ascend")
    assert driver["version"] == "23.0.7"
    assert driver["upgrade_tool"] is False
    assert driver["complete"] is False


def test_driver_directory_without_version_info(tmp_path):
    (tmp_path / "usr" / "local" / "Ascend" / "driver").mkdir(parents=True)
    driver = files.driver(str(tmp_path), "/usr/local/Ascend")
    assert driver["version"] is None
    assert driver["version_file"] is None
    assert driver["complete"] is False
    assert driver["info"] is None


def test_driver_24_1_rc1_has_no_package_version(tmp_path):
    target = tmp_path / "opt" / "A" / "driver" / "version.info"
    target.parent.mkdir(parents=True)
    target.write_text(installed("driver-version.info.24.1.rc1"))
    driver = files.driver(str(tmp_path), "/opt/A")
    assert driver["version"] == "24.1.rc1"
    assert driver["package_version"] is None
    assert driver["compatible_firmware_ranges"] == [{"min": "7.0.0", "max": "7.2.99"}]
    assert driver["compatible_innerversions"] == [
        "V100R001C30",
        "V100R001C13",
        "V100R001C15",
        "V100R001C17",
    ]


def test_absent_components(ascend_node):
    root, _sysfs = ascend_node("empty")
    assert files.driver(root, "/usr/local/Ascend") is None
    assert files.firmware(root, "/usr/local/Ascend") is None
    assert files.docker_runtime(root, "/usr/local/Ascend") is None
    assert files.install_info(root) is None
    assert files.user(root, "HwHiAiUser") is None
    assert files.cann_packages(root, "/usr/local/Ascend") == {
        "version": None,
        "latest": {"toolkit": None, "nnae": None, "nnrt": None},
        "packages": [],
    }


def test_firmware(ascend_node):
    root, _sysfs = ascend_node("full")
    firmware = files.firmware(root, "/usr/local/Ascend")
    assert firmware == {
        "version": "7.1.0.11.220",
        "package_version": "23.0.7",
        "compatible_driver": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
        "compatible_driver_ranges": [
            {"min": "23.0.rc3", "max": "23.0.rc3."},
            {"min": "23.0.0", "max": "23.0.0."},
        ],
        "install_path": "/usr/local/Ascend/firmware",
        "version_file": "/usr/local/Ascend/firmware/version.info",
        "info": {
            "Version": "7.1.0.11.220",
            "firmware_version": "1.0",
            "package_version": "23.0.7",
            "compatible_version_drv": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
        },
    }


def test_garbled_range_is_null(tmp_path):
    target = tmp_path / "usr" / "local" / "Ascend" / "firmware" / "version.info"
    target.parent.mkdir(parents=True)
    target.write_text("Version=7.1.0.11.220\ncompatible_version_drv=23.0.rc3\n")
    firmware = files.firmware(str(tmp_path), "/usr/local/Ascend")
    assert firmware["compatible_driver"] == "23.0.rc3"
    assert firmware["compatible_driver_ranges"] is None


def test_cann_old_and_new_layouts(ascend_node):
    root, _sysfs = ascend_node("full")
    cann = files.cann_packages(root, "/usr/local/Ascend")
    summary = [
        (
            p["kind"],
            p["version"],
            p["layout"],
            p["latest"],
            p["directory"],
            p["info_file"],
        )
        for p in cann["packages"]
    ]
    assert summary == [
        (
            "toolkit",
            "7.0.T10",
            "classic",
            True,
            "/usr/local/Ascend/ascend-toolkit/7.0.T10",
            "/usr/local/Ascend/ascend-toolkit/7.0.T10/aarch64-linux/ascend_toolkit_install.info",
        ),
        (
            "toolkit",
            "8.1.RC1",
            "classic",
            False,
            "/usr/local/Ascend/ascend-toolkit/8.1.RC1",
            "/usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux/ascend_toolkit_install.info",
        ),
        (
            "nnae",
            "8.0.RC3",
            "classic",
            True,
            "/usr/local/Ascend/nnae/8.0.RC3",
            "/usr/local/Ascend/nnae/8.0.RC3/ascend_nnae_install.info",
        ),
        (
            "toolkit",
            "8.5.0",
            "cann",
            True,
            "/usr/local/Ascend/cann-8.5.0",
            "/usr/local/Ascend/cann-8.5.0/aarch64-linux/ascend_toolkit_install.info",
        ),
    ]
    toolkit = cann["packages"][0]
    assert toolkit["package_name"] == "Ascend-cann-toolkit"
    assert toolkit["innerversion"] == "V100R001C13B222"
    assert toolkit["arch"] == "aarch64"
    assert toolkit["path"] == "/usr/local/Ascend/ascend-toolkit/7.0.T10/aarch64-linux"
    # Of the two linked toolkits the newer one is the default CANN.
    assert cann["latest"]["toolkit"]["version"] == "8.5.0"
    assert cann["latest"]["nnae"]["version"] == "8.0.RC3"
    assert cann["latest"]["nnrt"] is None
    assert cann["version"] == "8.5.0"


def test_cann_without_links_takes_the_newest(tmp_path):
    toolkit = tmp_path / "usr" / "local" / "Ascend" / "ascend-toolkit"
    for version in ("8.1.RC1", "7.0.T10"):
        target = toolkit / version / "x86_64-linux" / "ascend_toolkit_install.info"
        target.parent.mkdir(parents=True)
        target.write_text(f"package_name=Ascend-cann-toolkit\nversion={version}\n")
    cann = files.cann_packages(str(tmp_path), "/usr/local/Ascend")
    assert [p["latest"] for p in cann["packages"]] == [False, False]
    assert cann["version"] == "8.1.RC1"


def test_cann_latest_directory_copied_without_versions(tmp_path):
    target = (
        tmp_path
        / "usr"
        / "local"
        / "Ascend"
        / "nnae"
        / "latest"
        / "ascend_nnae_install.info"
    )
    target.parent.mkdir(parents=True)
    target.write_text(installed("ascend_nnae_install.info.8.0.RC3"))
    cann = files.cann_packages(str(tmp_path), "/usr/local/Ascend")
    assert [(p["kind"], p["version"], p["directory"]) for p in cann["packages"]] == [
        ("nnae", "8.0.RC3", "/usr/local/Ascend/nnae/latest")
    ]
    assert cann["version"] == "8.0.RC3"


def test_docker_runtime(ascend_node):
    root, _sysfs = ascend_node("full")
    runtime = files.docker_runtime(root, "/usr/local/Ascend")
    info = runtime.pop("info")
    assert runtime == {
        "version": "7.3.0",
        "version_raw": "v7.3.0",
        "install_scene": "containerd",
        "install_path": "/usr/local/Ascend/Ascend-Docker-Runtime",
        "binary": "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime",
        "binary_present": True,
        "arch": "aarch64",
        "build": "Ascend-docker-runtime_7.3.0-aarch64",
        "config_file_path": "/etc/containerd/config.toml",
        "injection_mode": "legacy",
        "info_file": "/usr/local/Ascend/Ascend-Docker-Runtime/ascend_docker_runtime_install.info",
    }
    assert info["a500"] == "n"


def test_docker_runtime_6_0_without_scene(tmp_path):
    target = (
        tmp_path
        / "usr"
        / "local"
        / "Ascend"
        / "Ascend-Docker-Runtime"
        / "ascend_docker_runtime_install.info"
    )
    target.parent.mkdir(parents=True)
    target.write_text(
        "version=v6.0.0\narch=x86_64\nos=linux\npath=/usr/local/Ascend/Ascend-Docker-Runtime\n"
    )
    runtime = files.docker_runtime(str(tmp_path), "/usr/local/Ascend")
    assert runtime["version"] == "6.0.0"
    assert runtime["install_scene"] is None
    assert runtime["injection_mode"] is None
    assert runtime["binary_present"] is False


def test_user_from_files(ascend_node):
    root, _sysfs = ascend_node("full")
    assert files.user(root, "HwHiAiUser") == {
        "name": "HwHiAiUser",
        "uid": 1000,
        "gid": 1000,
        "home": "/home/HwHiAiUser",
        "shell": "/bin/bash",
        "group_gid": 1000,
    }


def test_user_without_group(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text(
        "HwHiAiUser:x:1001:100::/home/HwHiAiUser:/sbin/nologin\n"
    )
    user = files.user(str(tmp_path), "HwHiAiUser")
    assert (user["uid"], user["gid"], user["group_gid"]) == (1001, 100, None)


def test_user_on_the_live_system():
    root_user = files.user("/", "root")
    assert root_user["uid"] == 0
    assert root_user["group_gid"] == 0
    assert files.user("/", "no-such-user-cubestudio") is None


def test_device_nodes(ascend_node):
    root, _sysfs = ascend_node("full")
    assert files.device_nodes(root) == {
        "davinci_devices": 4,
        "davinci_ids": [0, 1, 2, 3],
        "management": {"davinci_manager": True, "devmm_svm": True, "hisi_hdc": True},
        "npu_smi": {
            "path": "/usr/local/sbin/npu-smi",
            "present": True,
            "is_directory": False,
            "alt_path": "/usr/local/bin/npu-smi",
            "alt_present": False,
        },
    }


def test_device_nodes_npu_smi_directory(tmp_path):
    (tmp_path / "usr" / "local" / "sbin" / "npu-smi").mkdir(parents=True)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "davinci12").write_text("")
    (tmp_path / "dev" / "davinci_x").write_text("")
    nodes = files.device_nodes(str(tmp_path))
    assert nodes["davinci_ids"] == [12]
    assert nodes["management"] == {
        "davinci_manager": False,
        "devmm_svm": False,
        "hisi_hdc": False,
    }
    assert nodes["npu_smi"]["present"] is False
    assert nodes["npu_smi"]["is_directory"] is True


def test_under():
    assert files.under("/", "/etc/x") == "/etc/x"
    assert files.under("/mnt/img", "/etc/x") == os.path.join("/mnt/img", "etc/x")


def test_root_with_glob_characters(tmp_path):
    root = tmp_path / "image[1]"
    target = (
        root
        / "usr"
        / "local"
        / "Ascend"
        / "nnae"
        / "8.0.RC3"
        / "ascend_nnae_install.info"
    )
    target.parent.mkdir(parents=True)
    target.write_text(installed("ascend_nnae_install.info.8.0.RC3"))
    cann = files.cann_packages(str(root), "/usr/local/Ascend")
    assert [p["version"] for p in cann["packages"]] == ["8.0.RC3"]
    assert (
        cann["packages"][0]["info_file"]
        == "/usr/local/Ascend/nnae/8.0.RC3/ascend_nnae_install.info"
    )


@given(st.text())
def test_info_file_readers_never_raise(text):
    data = files.parse_info_file(text)
    assert all(isinstance(key, str) and key for key in data)
    ranges = files._ranges(text)
    assert ranges is None or all(set(item) == {"min", "max"} for item in ranges)


def test_reboot_marker_absent(tmp_path):
    assert files.reboot_marker(str(tmp_path)) == {
        "pending": False,
        "reasons": [],
        "marker": "/run/cubestudio-ascend/reboot-required",
    }


def test_reboot_marker_reasons_in_order_without_duplicates(tmp_path):
    marker = tmp_path / "run" / "cubestudio-ascend" / "reboot-required"
    marker.parent.mkdir(parents=True)
    marker.write_text(
        "npu_driver: firmware 7.8.0.5.216 was flashed\n\n"
        "  npu_driver: driver 25.5.0 needs a reboot  \n"
        "npu_driver: firmware 7.8.0.5.216 was flashed\n"
    )
    assert files.reboot_marker(str(tmp_path)) == {
        "pending": True,
        "reasons": [
            "npu_driver: firmware 7.8.0.5.216 was flashed",
            "npu_driver: driver 25.5.0 needs a reboot",
        ],
        "marker": "/run/cubestudio-ascend/reboot-required",
    }


def test_an_empty_reboot_marker_is_still_pending(tmp_path):
    marker = tmp_path / "run" / "cubestudio-ascend" / "reboot-required"
    marker.parent.mkdir(parents=True)
    marker.write_text("")
    assert files.reboot_marker(str(tmp_path))["pending"] is True


def _proc(root: Path, pid: str, *args: str) -> None:
    folder = root / "proc" / pid
    folder.mkdir(parents=True)
    (folder / "cmdline").write_bytes("\0".join(args).encode() + b"\0")


def test_running_installers(tmp_path):
    driver = "Ascend-hdk-910b-npu-driver_25.5.0_linux-x86_64.run"
    _proc(tmp_path, "1", "/lib/systemd/systemd")
    _proc(
        tmp_path,
        "4810",
        "/usr/bin/timeout",
        "--kill-after=10",
        "3600",
        "/bin/bash",
        "-c",
        'exec "$0" "$@" </dev/null',
        f"/var/cache/ascend/packages/{driver}",
        "--full",
    )
    _proc(tmp_path, "4811", "bash", driver, "--nox11", "--full", "--quiet")
    _proc(tmp_path, "4900", "python3", "/tmp/AnsiballZ_ascend_package.py")
    _proc(tmp_path, "4901", "less", "notes-about-Ascend.run.txt")
    (tmp_path / "proc" / "self").mkdir()
    (tmp_path / "proc" / "4999").mkdir()  # a process gone while reading: no cmdline
    assert files.running_installers(str(tmp_path)) == [
        {"pid": 4810, "package": driver},
        {"pid": 4811, "package": driver},
    ]


def test_running_installers_without_proc(tmp_path):
    assert files.running_installers(str(tmp_path)) == []
