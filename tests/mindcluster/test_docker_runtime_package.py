# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Huawei's Ascend Docker Runtime packages as `make docker-runtime` built them are Huawei's.

Each ``Ascend-docker-runtime_<ver>_linux-<arch>.run`` in .build/mindcluster/docker-runtime is
made by Huawei's build/build.sh (tests/mindcluster/build_docker_runtime.sh): its makeself header
is Huawei's (build/makeself-header, installer log in /var/log/ascend-docker-runtime), its --help
is Huawei's help.info, its --version names the release, its payload holds the five binaries of
run_main.sh with the modes build.sh gives them, and the Go ones name Huawei's module
(``go version -m``). Runs in seconds, without a node: `make docker-runtime` runs it after the
build, and `make testbed` with the other tests of this folder. Nothing here is skipped.
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import re
import subprocess
import tarfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, ".build", "mindcluster", "docker-runtime")
SRC = os.environ.get("MINDCLUSTER_SRC") or os.path.normpath(
    os.path.join(ROOT, "..", "shared", "mindcluster")
)
VERSIONS = ("7.3.0", "26.0.0", "26.1.0")
# run_main.sh installs these five into <install-path>/Ascend-Docker-Runtime.
GO_BINARIES = (
    "ascend-docker-runtime",
    "ascend-docker-hook",
    "ascend-docker-plugin-install-helper",
)
C_BINARIES = ("ascend-docker-cli", "ascend-docker-destroy")


def package(version):
    path = os.path.join(
        OUT, "Ascend-docker-runtime_%s_linux-%s.run" % (version, platform.machine())
    )
    assert os.path.isfile(path), "%s is missing: run `make docker-runtime`" % path
    return path


def source(version):
    return os.path.join(SRC, "v" + version, "component", "ascend-docker-runtime")


def header_and_payload(path):
    """makeself's layout: `skip` lines of shell, then the gzip'd tar; SHA= its sha256."""
    with open(path, "rb") as handle:
        data = handle.read()
    text = data[:200000].decode("latin-1")
    skip = int(re.search(r'^skip="(\d+)"$', text, re.M).group(1))
    offset = 0
    for _line in range(skip):
        offset = data.index(b"\n", offset) + 1
    return data[:offset].decode("utf-8"), data[offset:]


@pytest.fixture(scope="module", params=VERSIONS)
def built(request, tmp_path_factory):
    version = request.param
    path = package(version)
    header, payload = header_and_payload(path)
    target = tmp_path_factory.mktemp("adr-" + version)
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as archive:
        members = {m.name.lstrip("./"): m for m in archive.getmembers()}
        archive.extractall(target, filter="tar")
    return version, path, header, payload, members, str(target)


def test_the_header_is_huawei_s_makeself_header(built):
    version, _path, header, payload, _members, _target = built
    assert header.startswith("#!/bin/bash\n# This script was generated using Makeself ")
    # Lines of build/makeself-header/makeself-header.sh (unescaped as makeself writes them).
    assert 'RT_LOWER_CASE="ascend-docker-runtime"' in header
    assert "readonly INSTALL_LOG_PATH=${INSTALL_LOG_DIR}/installer.log" in header
    assert 'label="ascend-docker-runtime"' in header
    assert 'script="./run_main.sh"' in header
    # build.sh: --sha256 --nomd5 --nocrc
    sha = re.search(r'^SHA="([0-9a-f]{64})"$', header, re.M).group(1)
    assert hashlib.sha256(payload).hexdigest() == sha
    assert 'MD5="00000000000000000000000000000000"' in header
    # --help-header scripts/help.info, verbatim
    with open(
        os.path.join(source(version), "build", "scripts", "help.info"), encoding="utf-8"
    ) as handle:
        help_info = handle.read().rstrip("\n")
    assert help_info in header


def test_help_and_version_are_huawei_s(built):
    version, path, _header, _payload, _members, _target = built
    helped = subprocess.run(
        ["bash", path, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert helped.returncode == 0, helped.stderr
    # makeself's MS_Help writes to standard error
    assert "--install-scene=<scene>" in helped.stderr
    assert "Query ascend-docker-runtime version" in helped.stderr
    versioned = subprocess.run(
        ["bash", path, "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert versioned.returncode == 0, versioned.stdout + versioned.stderr
    assert "ascend-docker-runtime version: %s" % version in versioned.stdout


def test_the_payload_is_run_main_sh_s_files_with_build_sh_s_modes(built):
    _version, _path, _header, _payload, members, _target = built
    for name in GO_BINARIES + C_BINARIES + ("run_main.sh", "uninstall.sh"):
        assert name in members, sorted(members)
        assert members[name].mode & 0o777 == 0o550, (name, oct(members[name].mode))
    assert members["base.list"].mode & 0o777 == 0o640


def test_the_go_binaries_name_huawei_s_module(built):
    _version, _path, _header, _payload, _members, target = built
    for name in GO_BINARIES:
        info = subprocess.run(
            ["go", "version", "-m", os.path.join(target, name)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        # build.sh builds <part>/main.go as a file: the package is command-line-arguments and
        # Huawei's module (go.mod `module ascend-docker-runtime`) and its replaced
        # ascend-common are listed as (devel) modules of the build.
        assert re.search(r"^\tpath\tcommand-line-arguments$", info, re.M), info
        assert re.search(r"^\tdep\tascend-docker-runtime\t\(devel\)", info, re.M), info
        assert re.search(r"^\t=>\t\.\./ascend-common\t", info, re.M), info
        assert re.search(r"^\tbuild\t-buildmode=pie$", info, re.M), info
        assert re.search(r"^\tbuild\t-trimpath=true$", info, re.M), info


def test_the_c_binaries_are_huawei_s_cli_and_destroy(built):
    _version, _path, _header, _payload, _members, target = built
    with open(os.path.join(target, "ascend-docker-cli"), "rb") as handle:
        cli = handle.read()
    assert cli.startswith(b"\x7fELF")
    # a message of cli/src (the mount whitelist that refuses paths outside base.list's kind)
    assert b"Whitelist check failed." in cli
    with open(os.path.join(target, "ascend-docker-destroy"), "rb") as handle:
        assert handle.read().startswith(b"\x7fELF")
