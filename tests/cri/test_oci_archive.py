# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The OCI archive of oci_archive (the local images of the containerd scenarios).

The scenarios talk CRI with crictl (sigs.k8s.io/cri-tools); the hand-encoded CRI client that
was here is gone.

PYTHONPATH=tests/cri python -m pytest -q tests/cri
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import oci_archive
import pytest


def test_oci_archive_has_one_layer_and_one_manifest_per_name(tmp_path):
    rootfs = tmp_path / "rootfs.tar"
    with tarfile.open(rootfs, "w") as archive:
        data = b"#!/bin/sh\n"
        info = tarfile.TarInfo("bin/sh")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    images = [
        oci_archive.parse_image_arg("docker.io/cubestudio/workload:latest"),
        oci_archive.parse_image_arg("registry.k8s.io/pause:3.6=/bin/sleep infinity"),
    ]
    out = io.BytesIO()
    oci_archive.write_archive(out, str(rootfs), images, arch="amd64")
    out.seek(0)
    with tarfile.open(fileobj=out) as archive:
        files = {m.name: archive.extractfile(m).read() for m in archive.getmembers()}
    layer = hashlib.sha256(rootfs.read_bytes()).hexdigest()
    assert files["blobs/sha256/" + layer] == rootfs.read_bytes()
    for name, raw in files.items():
        if name.startswith("blobs/sha256/"):
            assert hashlib.sha256(raw).hexdigest() == name.rsplit("/", 1)[1]
    index = json.loads(files["index.json"])
    names = [m["annotations"]["io.containerd.image.name"] for m in index["manifests"]]
    assert names == [
        "docker.io/cubestudio/workload:latest",
        "registry.k8s.io/pause:3.6",
    ]
    configs = []
    for entry in index["manifests"]:
        manifest = json.loads(files["blobs/sha256/" + entry["digest"][7:]])
        assert manifest["layers"][0]["digest"] == "sha256:" + layer
        configs.append(
            json.loads(files["blobs/sha256/" + manifest["config"]["digest"][7:]])
        )
    assert configs[0]["config"]["Cmd"] == ["/bin/sh"]
    assert configs[1]["config"]["Entrypoint"] == ["/bin/sleep", "infinity"]
    assert configs[1]["rootfs"]["diff_ids"] == ["sha256:" + layer]


def test_image_argument_needs_a_name():
    with pytest.raises(ValueError):
        oci_archive.parse_image_arg("=/bin/sh")
