# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""build-artifacts: real file names, checksums, reproducibility; the makeself layer."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest
from simutil import CLI, read_fixture

STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")

EXPECTED = {
    # train 24.1.0 (old CANN layout, MindCluster 6.0.0)
    "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run",
    "Ascend-hdk-910b-npu-driver_24.1.0_linux-aarch64.run",
    "Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run",
    "Ascend-hdk-910-npu-driver_24.1.0_linux-x86_64.run",
    "Ascend-hdk-310p-npu-firmware_7.5.0.2.220.run",
    "Ascend-cann-toolkit_8.0.0_linux-x86_64.run",
    "Ascend-cann-nnae_8.0.0_linux-aarch64.run",
    "Ascend-cann-nnrt_8.0.0_linux-x86_64.run",
    "Ascend-docker-runtime_6.0.0_linux-x86_64.run",
    # train 25.5.0 (CANN 8.5.0 new layout, MindCluster 7.3.0)
    "Ascend-hdk-310p-npu-driver_25.5.0_linux-aarch64.run",
    "Ascend-hdk-910-npu-firmware_7.8.0.5.216.run",
    "Ascend-cann-toolkit_8.5.0_linux-aarch64.run",
    "Ascend-docker-runtime_7.3.0_linux-aarch64.run",
    # train 26.1.0 (licence prompt, containerd config v3)
    "Ascend-hdk-910b-npu-driver_26.1.0_linux-x86_64.run",
    "Atlas-A3-hdk-npu-driver_26.1.0_linux-aarch64.run",
    "Atlas-A3-hdk-npu-firmware_7.9.0.1.210.run",
    "Ascend-cann-toolkit_9.1.0_linux-x86_64.run",
    "Ascend-docker-runtime_26.1.0_linux-x86_64.run",
    # 23.0.7 with the firmware of the real version.info
    "Ascend-hdk-910b-npu-driver_23.0.7_linux-x86_64.run",
    "Ascend-hdk-910-npu-firmware_7.1.0.11.220.run",
}


def test_default_build_has_the_real_file_names(packages):
    names = {entry["file"] for entry in packages.entries}
    assert names >= EXPECTED
    assert len(names) == 64
    # CANN >= 8.5.0 has no separate nnae/nnrt packages.
    assert not any(
        n.startswith(("Ascend-cann-nnae_8.5", "Ascend-cann-nnrt_9.1")) for n in names
    )
    # Each package with its detached signature and CRL, as Huawei ships them; the test CA in pki/.
    signed = {n + suffix for n in names for suffix in ("", ".cms", ".crl")}
    assert set(os.listdir(packages.dir)) == signed | {
        "SHA256SUMS",
        "artifacts.json",
        "trains.json",
        "pki",
    }


def test_sha256sums_and_artifacts_json(packages):
    check = subprocess.run(
        ["sha256sum", "--check", "--strict", "SHA256SUMS"],
        cwd=packages.dir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count(": OK") == 64
    with open(os.path.join(packages.dir, "artifacts.json"), encoding="utf-8") as handle:
        entries = json.load(handle)
    by_file = {e["file"]: e for e in entries}
    firmware = by_file["Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run"]
    assert firmware == {
        "component": "firmware",
        "chip": "910b",
        "version": "7.5.0.2.220",
        "arch": None,
        "file": "Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run",
        "sha256": firmware["sha256"],
        "train": "24.1.0",
    }
    with open(packages.path(firmware["file"]), "rb") as handle:
        assert hashlib.sha256(handle.read()).hexdigest() == firmware["sha256"]
    toolkit = by_file["Ascend-cann-toolkit_8.5.0_linux-aarch64.run"]
    assert (
        toolkit["component"],
        toolkit["chip"],
        toolkit["version"],
        toolkit["arch"],
    ) == (
        "toolkit",
        None,
        "8.5.0",
        "aarch64",
    )
    assert by_file["Atlas-A3-hdk-npu-driver_26.1.0_linux-x86_64.run"]["chip"] == "a3"
    assert (
        by_file["Ascend-docker-runtime_26.1.0_linux-x86_64.run"]["component"]
        == "docker-runtime"
    )


def test_builds_are_reproducible_and_selectable(tmp_path, packages):
    out = tmp_path / "again"
    result = subprocess.run(
        [
            CLI,
            "build-artifacts",
            "--out",
            str(out),
            "--trains",
            "24.1.0",
            "--arch",
            "x86_64",
            "--chip",
            "910b",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    names = sorted(p for p in os.listdir(out) if p.endswith(".run"))
    assert names == [
        "Ascend-cann-nnae_8.0.0_linux-x86_64.run",
        "Ascend-cann-nnrt_8.0.0_linux-x86_64.run",
        "Ascend-cann-toolkit_8.0.0_linux-x86_64.run",
        "Ascend-docker-runtime_6.0.0_linux-x86_64.run",
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run",
        "Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run",
    ]
    for name in names:
        with open(out / name, "rb") as mine, open(packages.path(name), "rb") as first:
            assert mine.read() == first.read(), name


def test_huawei_docker_runtime_packages_replace_the_simulated_ones(tmp_path):
    """--docker-runtime-dir: Huawei's packages (make docker-runtime) copied byte for byte, listed
    with huawei: true; a release no train names (26.0.0) added; the rest stays simulated."""
    real = tmp_path / "real"
    real.mkdir()
    for version in ("7.3.0", "26.0.0"):
        (real / ("Ascend-docker-runtime_%s_linux-x86_64.run" % version)).write_bytes(
            b"#!/bin/bash\n# Huawei " + version.encode() + b"\n"
        )
    out = tmp_path / "out"
    result = subprocess.run(
        [
            CLI,
            "build-artifacts",
            "--out",
            str(out),
            "--trains",
            "24.1.0,25.5.0",
            "--arch",
            "x86_64",
            "--chip",
            "910b",
            "--unsigned",
            "--docker-runtime-dir",
            str(real),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    with open(out / "artifacts.json", encoding="utf-8") as handle:
        runtimes = {
            e["version"]: e
            for e in json.load(handle)
            if e["component"] == "docker-runtime"
        }
    assert sorted(runtimes) == ["26.0.0", "6.0.0", "7.3.0"]
    for version in ("7.3.0", "26.0.0"):
        name = "Ascend-docker-runtime_%s_linux-x86_64.run" % version
        data = (out / name).read_bytes()
        assert data == (real / name).read_bytes()
        assert runtimes[version]["huawei"] is True
        assert runtimes[version]["sha256"] == hashlib.sha256(data).hexdigest()
    assert "huawei" not in runtimes["6.0.0"]


def test_build_rejects_unknown_values(tmp_path):
    for option, value in (
        ("--trains", "22.0.0"),
        ("--chip", "910c"),
        ("--arch", "riscv64"),
    ):
        result = subprocess.run(
            [CLI, "build-artifacts", "--out", str(tmp_path), option, value],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 1
        assert "unknown" in result.stderr


def test_driver_check_prints_what_the_real_one_prints(node):
    result = node.run("Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run", "--check")
    assert result.returncode == 0
    real = read_fixture("installer-output", "driver-910b-25.0.rc1.1-check.txt")
    assert STAMP.sub("<t>", result.stdout) == STAMP.sub("<t>", real)
    assert not node.exists("/usr/local/Ascend")


def _damaged(packages, name, tmp_path, how):
    path = packages.copy(name, str(tmp_path))
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    if how == "flip":
        data[-200] ^= 0xFF
    else:
        data = data[:-300]
    with open(path, "wb") as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize(
    ("how", "message"),
    [
        (
            "flip",
            r"Error in SHA256 checksums: [0-9a-f]{64} is different from [0-9a-f]{64}",
        ),
        ("truncate", r"Unexpected archive size\."),
    ],
)
@pytest.mark.parametrize(
    "name",
    [
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run",
        "Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run",
        "Ascend-cann-toolkit_8.0.0_linux-x86_64.run",
    ],
)
def test_damaged_huawei_packages_fail_verification_with_makeself_status_2(
    node, packages, tmp_path, how, message, name
):
    path = _damaged(packages, name, tmp_path, how)
    for args in (["--check"], ["--full" if "hdk" in name else "--install", "--quiet"]):
        result = subprocess.run(
            ["bash", path, *args],
            capture_output=True,
            text=True,
            env=node.env,
            check=False,
        )
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert re.search(message, result.stderr)
        assert "Uncompressing" not in result.stdout
    assert not node.exists("/usr/local/Ascend")


def test_damaged_runtime_package(node, packages, tmp_path):
    path = _damaged(
        packages, "Ascend-docker-runtime_7.3.0_linux-x86_64.run", tmp_path, "flip"
    )
    check = subprocess.run(
        ["bash", path, "--check"],
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )
    assert check.returncode == 2
    assert "[WARNING]: --check is meaningless for ascend-docker-runtime" in check.stdout
    assert "Error in SHA256 checksums" in check.stderr
    # The MindCluster stub does not verify before installing: the damage shows at extraction.
    install = subprocess.run(
        ["bash", path, "--install"],
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )
    assert install.returncode == 1
    assert "Unable to decompress %s" % path in install.stderr


def test_makeself_options(node, packages, tmp_path):
    name = "Ascend-cann-toolkit_8.0.0_linux-x86_64.run"
    helped = node.run(name, "--help")
    assert helped.returncode == 0
    assert helped.stderr.startswith(
        "Usage: %s [options]\nOptions:\n  --help | -h" % packages.path(name)
    )
    assert (
        "--whitelist=<feature_type>        Install features, must be atc, devtools, nnrt, nnae"
        in helped.stderr
    )
    info = node.run(name, "--info")
    assert (
        info.returncode == 0
        and "Identification: ASCEND-CANN-TOOLKIT RUN PACKAGE" in info.stdout
    )
    listing = node.run(name, "--list")
    assert (
        "ascend_sim/installers/cann.py" in listing.stdout
        and "package.json" in listing.stdout
    )
    target = tmp_path / "extracted"
    extracted = node.run(name, "--noexec", "--extract=%s" % target)
    assert extracted.returncode == 0
    with open(target / "package.json", encoding="utf-8") as handle:
        assert json.load(handle)["version"] == "8.0.0"
    assert not node.exists("/usr/local/Ascend")
    unknown = node.run(name, "--install", "--bogus")
    assert (
        unknown.returncode == 1
        and "Usage:" in unknown.stderr
        and "--bogus" not in unknown.stdout
    )


def test_setup_nocheck_skips_verification(node, packages, tmp_path):
    path = _damaged(
        packages, "Ascend-hdk-910b-npu-firmware_7.5.0.2.220.run", tmp_path, "truncate"
    )
    env = dict(node.env, SETUP_NOCHECK="1")
    result = subprocess.run(
        ["bash", path, "--full"], capture_output=True, text=True, env=env, check=False
    )
    # Not verified, so the damage only shows when the payload is unpacked.
    assert result.returncode == 1
    assert "Unable to decompress" in result.stderr


def test_packages_run_from_another_directory_and_by_path(node, packages, tmp_path):
    os.makedirs(tmp_path / "pkgs")
    path = packages.copy(
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run", str(tmp_path / "pkgs")
    )
    shutil.copymode(
        packages.path("Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run"), path
    )
    result = subprocess.run(
        ["./Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run", "--version"],
        cwd=tmp_path / "pkgs",
        capture_output=True,
        text=True,
        env=node.env,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "24.1.0"
