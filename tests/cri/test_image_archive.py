# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""image_archive.py: one archive for `docker load` and `ctr images import`, reproducible."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import time
import uuid

import image_archive
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "image_archive.py")


def members(data):
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {
            m.name: (archive.extractfile(m).read() if m.isfile() else m)
            for m in archive.getmembers()
        }


def shell_args(out, tag):
    return [
        "python3",
        TOOL,
        "-o",
        str(out),
        "--tag",
        tag,
        "--host",
        "/usr/bin/dash",
        "--ldd",
        "/usr/bin/dash",
        "--text",
        "/etc/passwd=root:x:0:0:root:/root:/bin/sh\\n",
        "--env",
        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64",
        "--cmd",
        "/usr/bin/dash -c true",
    ]


def test_normalize_like_docker_and_containerd():
    assert image_archive.normalize("pause:3.10") == "docker.io/library/pause:3.10"
    assert image_archive.normalize("cubestudio/x") == "docker.io/cubestudio/x:latest"
    assert (
        image_archive.normalize("registry.k8s.io/pause:3.10")
        == "registry.k8s.io/pause:3.10"
    )
    assert image_archive.normalize("localhost/a:1") == "localhost/a:1"


def test_layout_both_formats_point_at_the_same_blobs(tmp_path):
    out = tmp_path / "image.tar"
    subprocess.run(shell_args(out, "ascend-k8sdeviceplugin:v7.3.0"), check=True)
    files = members(out.read_bytes())
    docker = json.loads(files["manifest.json"])
    assert docker[0]["RepoTags"] == ["ascend-k8sdeviceplugin:v7.3.0"]
    index = json.loads(files["index.json"])
    entry = index["manifests"][0]
    assert entry["annotations"] == {
        "io.containerd.image.name": "docker.io/library/ascend-k8sdeviceplugin:v7.3.0",
        "org.opencontainers.image.ref.name": "v7.3.0",
    }
    manifest = json.loads(files["blobs/sha256/" + entry["digest"][7:]])
    assert "blobs/sha256/" + manifest["config"]["digest"][7:] == docker[0]["Config"]
    layer_path = docker[0]["Layers"][0]
    assert layer_path == "blobs/sha256/" + manifest["layers"][0]["digest"][7:]
    for path, data in files.items():
        if path.startswith("blobs/sha256/") and isinstance(data, bytes):
            assert hashlib.sha256(data).hexdigest() == path.rsplit("/", 1)[1]
    config = json.loads(files[docker[0]["Config"]])
    assert config["config"]["Env"] == [
        image_archive.DEFAULT_PATH,
        "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64",
    ]
    assert config["config"]["Cmd"] == ["/usr/bin/dash", "-c", "true"]
    layer = members(files[layer_path])
    assert layer["etc/passwd"] == b"root:x:0:0:root:/root:/bin/sh\n"
    assert "usr/bin/dash" in layer
    libc = [n for n in layer if n.endswith("/libc.so.6")]
    assert libc, sorted(layer)
    with tarfile.open(fileobj=io.BytesIO(files[layer_path])) as archive:
        for info in archive.getmembers():
            assert (info.uid, info.gid, info.mtime) == (0, 0, image_archive.FIXED_MTIME)


def test_same_inputs_same_bytes(tmp_path):
    first, second = tmp_path / "a.tar", tmp_path / "b.tar"
    subprocess.run(shell_args(first, "x:1"), check=True)
    subprocess.run(shell_args(second, "x:1"), check=True)
    assert first.read_bytes() == second.read_bytes()


def test_host_symlinks_are_kept_on_the_way(tmp_path):
    layer = image_archive.Layer()
    real = tmp_path / "usr" / "lib"
    real.mkdir(parents=True)
    (real / "libx.so").write_bytes(b"ELF")
    os.symlink("usr/lib", tmp_path / "lib")
    layer.add_host(str(tmp_path / "lib" / "libx.so"))
    entries = layer.entries
    assert entries[str(tmp_path / "lib").strip("/")] == ("link", "usr/lib", 0o777)
    assert entries[str(real / "libx.so").strip("/")][:2] == ("file", b"ELF")


def test_rootfs_tar_is_taken_as_the_layer(tmp_path):
    rootfs = tmp_path / "rootfs.tar"
    layer = image_archive.Layer()
    layer.add_bytes("/bin/true", b"#!/bin/sh\n", 0o755)
    rootfs.write_bytes(layer.tar_bytes())
    out = tmp_path / "image.tar"
    image_archive.main(["-o", str(out), "--tag", "w:1", "--rootfs-tar", str(rootfs)])
    files = members(out.read_bytes())
    assert (
        files[json.loads(files["manifest.json"])[0]["Layers"][0]] == rootfs.read_bytes()
    )
    with pytest.raises(SystemExit):
        image_archive.main(
            [
                "-o",
                str(out),
                "--tag",
                "w:1",
                "--rootfs-tar",
                str(rootfs),
                "--host",
                "/x",
            ]
        )


def _docker_ok():
    return (
        shutil.which("docker")
        and subprocess.run(
            ["docker", "info"], capture_output=True, check=False
        ).returncode
        == 0
    )


@pytest.mark.skipif(not _docker_ok(), reason="no Docker daemon")
def test_docker_load_and_run(tmp_path):
    tag = "cubestudio-pytest/image-archive:%s" % uuid.uuid4().hex[:8]
    out = tmp_path / "image.tar"
    subprocess.run(shell_args(out, tag), check=True)
    try:
        load = subprocess.run(
            ["docker", "load", "-i", str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert load.returncode == 0 and "Loaded image: " + tag in load.stdout, (
            load.stderr
        )
        run = subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "--network",
                "none",
                tag,
                "/usr/bin/dash",
                "-c",
                "echo $LD_LIBRARY_PATH",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.stdout.strip() == "/usr/local/Ascend/driver/lib64", run.stderr
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, check=False)


@pytest.fixture
def containerd(tmp_path):
    """A throwaway containerd (the host's, 1.6) on its own socket, or skip."""
    if os.geteuid() != 0 or not shutil.which("containerd") or not shutil.which("ctr"):
        pytest.skip("needs root, containerd and ctr")
    base = tmp_path / "ctrd"
    base.mkdir()
    config = base / "config.toml"
    config.write_text(
        'version = 2\nroot = "%s/root"\nstate = "%s/state"\n'
        'disabled_plugins = ["io.containerd.grpc.v1.cri"]\n'
        '[grpc]\n  address = "%s/c.sock"\n[ttrpc]\n  address = "%s/c.sock.ttrpc"\n'
        % (base, base, base, base)
    )
    log = open(base / "log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        ["containerd", "--config", str(config)], stdout=log, stderr=log
    )
    sock = str(base / "c.sock")
    for _attempt in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    yield sock
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def test_ctr_import(tmp_path, containerd):
    out = tmp_path / "image.tar"
    subprocess.run(shell_args(out, "ascend-k8sdeviceplugin:v6.0.0"), check=True)
    ctr = ["ctr", "--address", containerd, "-n", "k8s.io"]
    result = subprocess.run(
        [*ctr, "images", "import", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    listed = subprocess.run(
        [*ctr, "images", "check"], capture_output=True, text=True, check=True
    ).stdout
    assert "docker.io/library/ascend-k8sdeviceplugin:v6.0.0" in listed
    assert "complete" in listed and "true" in listed.splitlines()[1]
