# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The test helpers of tests/cri: protobuf wire encoding of cri_run, OCI archive of oci_archive.

PYTHONPATH=tests/cri python -m pytest -q tests/cri
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import cri_run
import oci_archive
import pytest


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
    ],
)
def test_varint_matches_the_protobuf_encoding(value, encoded):
    assert cri_run.varint(value) == encoded
    assert cri_run.read_varint(encoded, 0) == (value, len(encoded))


def test_negative_int64_is_ten_bytes_and_reads_back():
    encoded = cri_run.varint(-1)
    assert len(encoded) == 10
    assert cri_run.int32(cri_run.read_varint(encoded, 0)[0]) == -1


def test_message_fields_and_proto3_defaults():
    # VersionRequest{version: "v1"}: field 1, wire type 2 -> key 0x0a
    assert cri_run.Msg((1, "v1")).data == b"\x0a\x02v1"
    # empty strings, zero, False and None are left out as proto3 does
    assert cri_run.Msg((1, ""), (2, 0), (3, False), (4, None)).data == b""
    # repeated fields and nested messages
    nested = cri_run.Msg((3, ["a", "b"]), (15, cri_run.Msg((2, True))))
    assert nested.data == b"\x1a\x01a\x1a\x01b\x7a\x02\x10\x01"


def test_decode_reads_nested_messages_and_maps():
    entry = cri_run.Msg((1, "info"), (2, '{"runtimeHandler": "ascend"}'))
    reply = cri_run.Msg((1, cri_run.Msg((9, "ascend"), (3, 0))), (2, [entry]))
    fields = cri_run.decode(reply.data)
    status = cri_run.decode(cri_run.first(fields, 1))
    assert cri_run.text(status, 9) == "ascend"
    assert cri_run.decode_map(fields, 2) == {"info": '{"runtimeHandler": "ascend"}'}


def test_decode_refuses_truncated_data():
    with pytest.raises(ValueError):
        cri_run.decode(b"\x0a\x05ab")


def test_sandbox_config_uses_the_host_network_and_no_hostname():
    config = cri_run.decode(
        cri_run.sandbox_config("pod", "uid", "/tmp/x", "k.slice").data
    )
    assert 2 not in config  # hostname
    linux = cri_run.decode(cri_run.first(config, 8))
    assert cri_run.text(linux, 1) == "k.slice"
    namespaces = cri_run.decode(
        cri_run.first(cri_run.decode(cri_run.first(linux, 2)), 1)
    )
    assert cri_run.first(namespaces, 1) == cri_run.NODE


def test_arguments():
    args = cri_run.parse_args(
        ["--runtime-handler", "ascend", "--env", "A=1", "--", "npu-smi", "info"]
    )
    assert (args.runtime_handler, args.env, args.command) == (
        "ascend",
        ["A=1"],
        ["npu-smi", "info"],
    )
    with pytest.raises(SystemExit):
        cri_run.parse_args(["--env", "A", "true"])


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
