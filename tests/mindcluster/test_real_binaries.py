# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Huawei's binaries as `make mindcluster` built them, against the collection's catalogue.

The flag sets in data/mindcluster.yml come from the flag definitions of each tag; here the
binaries built from those tags say which flags they really define (`-h`), and the binary wins.
Their Go build info names Huawei's modules, and the images hold what Huawei's Dockerfiles put in.
Run by `make testbed` (after `make mindcluster`); nothing here is skipped.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import build_images  # noqa: E402

BIN = os.path.join(ROOT, ".build", "mindcluster", "bin")
with open(os.path.join(ROOT, "data", "mindcluster.yml"), encoding="utf-8") as _handle:
    CATALOGUE = yaml.safe_load(_handle)
SPEC = {
    "device-plugin": CATALOGUE["device_plugin"],
    "npu-exporter": CATALOGUE["exporter"],
}
# Huawei's main packages (go.mod module paths of component/ascend-device-plugin and npu-exporter).
MAIN_PATH = {
    "device-plugin": "Ascend-device-plugin",
    "npu-exporter": "huawei.com/npu-exporter/v6/cmd/npu-exporter",
}
CASES = [(c, v) for v in build_images.VERSIONS for c in build_images.COMPONENTS]
IDS = ["%s-%s" % case for case in CASES]


def binary(component, version):
    path = os.path.join(BIN, "%s-v%s" % (component, version))
    assert os.access(path, os.X_OK), "%s is missing: run `make mindcluster`" % path
    return path


def defined_flags(path):
    """The flag names Go's usage text of the binary lists (`-h` exits 0 and prints them)."""
    proc = subprocess.run(
        [path, "-h"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return sorted(re.findall(r"^  -(\S+)", proc.stdout + proc.stderr, re.M))


@pytest.mark.parametrize(("component", "version"), CASES, ids=IDS)
def test_the_catalogue_s_flags_are_the_binary_s(component, version):
    assert defined_flags(binary(component, version)) == sorted(
        SPEC[component]["flags"][version]
    )


@pytest.mark.parametrize("component", list(build_images.COMPONENTS))
def test_26_0_0_refuses_the_healthz_flags_and_26_1_0_takes_them(component):
    """The bug the stand-ins hid: v26.0.0 stops at start on --enable-healthz (exit 2)."""
    old = subprocess.run(
        [binary(component, "26.0.0"), "--enable-healthz=true", "-version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert old.returncode == 2
    assert "flag provided but not defined: -enable-healthz" in old.stderr
    new = subprocess.run(
        [binary(component, "26.1.0"), "--enable-healthz=true", "-version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert new.returncode == 0, new.stderr
    assert "v26.1.0" in new.stdout + new.stderr


@pytest.mark.parametrize(("component", "version"), CASES, ids=IDS)
def test_build_info_names_huawei_s_module_and_the_version(component, version):
    path = binary(component, version)
    info = subprocess.run(
        ["go", "version", "-m", path], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(r"^\tpath\t%s$" % re.escape(MAIN_PATH[component]), info, re.M), (
        info
    )
    out = subprocess.run(
        [path, "-version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert "v%s_linux-" % version in out.stdout + out.stderr


def huawei_useradd(component, version):
    """The accounts of the ``useradd`` commands in Huawei's build/Dockerfile of that tag:
    [{name, uid, home, shell}] (from -u, -d, -s and the last word)."""
    path = os.path.join(
        build_images.component_dir(version, component), "build", "Dockerfile"
    )
    with open(path, encoding="utf-8") as handle:
        text = handle.read().replace("\\\n", " ")
    accounts = []
    for command in re.split(r"&&|\n", text):
        args = shlex.split(command.strip().removeprefix("RUN "))
        if args[:1] != ["useradd"]:
            continue
        opts = dict(zip(args[1:-1], args[2:]))
        accounts.append(
            {
                "name": args[-1],
                "uid": opts.get("-u"),
                "home": opts.get("-d"),
                "shell": opts.get("-s"),
            }
        )
    assert accounts, "no useradd line in %s" % path
    return accounts


@pytest.mark.parametrize(("component", "version"), CASES, ids=IDS)
def test_the_image_holds_what_huawei_s_dockerfile_puts_in(component, version):
    layer, env, _inputs = build_images.rootfs(component, version, "/usr/bin/true")
    entries = layer.entries
    kind, _data, mode = entries["usr/local/bin/" + component]
    assert kind == "file"
    assert stat.S_IMODE(mode) == (0o550 if component == "device-plugin" else 0o500)
    assert entries["usr/local/bin"][2] == 0o550
    if component == "device-plugin":
        assert stat.S_IMODE(entries["usr/local/faultCode.json"][2]) == 0o440
        assert b"RestartNPU" in entries["usr/local/faultCode.json"][1]
    else:
        configs = [e for e in entries if e.endswith("metricConfiguration.json")]
        assert configs and all(stat.S_IMODE(entries[e][2]) == 0o440 for e in configs)
    assert any(
        e.startswith("LD_LIBRARY_PATH=")
        and "/usr/local/Ascend/driver/lib64/driver" in e
        for e in env
    )
    # The account Huawei's Dockerfile creates (its own useradd line, read here, not the
    # builder's table): the image resolves the name to that uid, home and shell.
    for account in huawei_useradd(component, version):
        passwd = {
            line.split(":")[0]: line.split(":")
            for line in entries["etc/passwd"][1].decode().splitlines()
        }
        assert account["name"] in passwd, (account, passwd)
        fields = passwd[account["name"]]
        assert (fields[2], fields[5], fields[6]) == (
            account["uid"],
            account["home"],
            account["shell"],
        ), fields
        assert entries[account["home"].strip("/")][0] == "dir"
    for tool in ("bash", "sh", "grep", "ldconfig"):
        path = os.path.realpath(
            "/bin/" + tool if tool != "ldconfig" else "/sbin/ldconfig"
        )
        assert entries[path.strip("/")][0] == "file", tool
