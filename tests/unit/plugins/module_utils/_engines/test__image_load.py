# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""container_image_load's decisions: engine, reference, commands."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._image_load import (
    ImageLoadError,
    archive_digests,
    digest_command,
    digest_matches,
    engine_digest,
    engine_kind,
    full_reference,
    is_present,
    load_command,
    present_command,
    remove_command,
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("containerd://1.6.20", "containerd"),
        ("containerd://2.2.0", "containerd"),
        ("docker://27.5.1", "docker"),
        ("Docker", "docker"),
    ],
)
def test_engine_from_a_node_s_runtime_version(text, kind):
    assert engine_kind(text) == kind


def test_an_engine_without_a_loader_is_refused():
    with pytest.raises(ImageLoadError, match=r"'cri-o://1\.30\.0' is not one"):
        engine_kind("cri-o://1.30.0")


@pytest.mark.parametrize(
    ("image", "ref"),
    [
        (
            "ascend-k8sdeviceplugin:v7.3.0",
            "docker.io/library/ascend-k8sdeviceplugin:v7.3.0",
        ),
        ("mindx/npu-exporter:v7.3.0", "docker.io/mindx/npu-exporter:v7.3.0"),
        (
            "registry.example.com/mc/npu-exporter:v7.3.0",
            "registry.example.com/mc/npu-exporter:v7.3.0",
        ),
        ("localhost:5000/x:1", "localhost:5000/x:1"),
    ],
)
def test_full_reference(image, ref):
    assert full_reference(image) == ref


def test_commands():
    assert present_command("containerd", "a:1", "k8s.io") == [
        "ctr", "-n", "k8s.io", "images", "ls", "-q", "name==docker.io/library/a:1",
    ]  # fmt: skip
    assert load_command("docker", "/x.tar", "k8s.io") == [
        "docker",
        "load",
        "-i",
        "/x.tar",
    ]
    # ctr lists nothing (exit 0) for a missing image; docker inspect exits 1.
    assert not is_present("containerd", 0, "\n")
    assert is_present("containerd", 0, "docker.io/library/a:1\n")
    assert not is_present("docker", 1, "")
    with pytest.raises(ImageLoadError):
        full_reference("")


def test_remove_command_names_the_image_as_the_engine_stores_it():
    # `ctr images rm a:1` finds nothing and exits 0 (containerd 1.6.20 on the bed):
    # the short name must become the full reference.
    assert remove_command("containerd", "a:1", "k8s.io") == [
        "ctr", "-n", "k8s.io", "images", "rm", "docker.io/library/a:1",
    ]  # fmt: skip
    assert remove_command("docker", "a:1", "k8s.io") == ["docker", "image", "rm", "a:1"]


# ctr -n k8s.io images ls name==... on a bed node (containerd 1.6.20), and the device plugin's
# tarball of .build/images/mindcluster (docker save of Docker 27: OCI layout and manifest.json).
CTR_LS = (
    "REF                                              TYPE                                       "
    "DIGEST                                                                  SIZE     PLATFORMS   LABELS\n"
    "docker.io/library/ascend-k8sdeviceplugin:v7.3.0  application/vnd.oci.image.manifest.v1+json "
    "sha256:6bc88e395bcbc73d85cc99e62d77dca7abd8a14d2843da650f386414acbd2cc6 48.7 MiB linux/amd64 "
    "io.cri-containerd.image=managed\n"
)
INDEX = {
    "manifests": [
        {
            "digest": "sha256:6bc88e395bcbc73d85cc99e62d77dca7abd8a14d2843da650f386414acbd2cc6",
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
        }
    ],
    "schemaVersion": 2,
}
MANIFEST = [
    {
        "Config": "blobs/sha256/2d57f535df11af4cd91ac9e92767ad85115e663db526515cb6c349931f155d27",
        "RepoTags": ["ascend-k8sdeviceplugin:v7.3.0"],
    }
]


def test_the_engine_digest_of_containerd_and_docker():
    image = "ascend-k8sdeviceplugin:v7.3.0"
    assert digest_command("containerd", image, "k8s.io") == [
        "ctr",
        "-n",
        "k8s.io",
        "images",
        "ls",
        "name==docker.io/library/" + image,
    ]
    assert (
        engine_digest("containerd", image, 0, CTR_LS) == INDEX["manifests"][0]["digest"]
    )
    header_only = CTR_LS.splitlines()[0] + "\n"
    assert engine_digest("containerd", image, 0, header_only) is None
    assert engine_digest("containerd", image, 1, CTR_LS) is None
    assert digest_command("docker", image, "k8s.io")[:3] == [
        "docker",
        "image",
        "inspect",
    ]
    assert engine_digest("docker", image, 0, "sha256:2d57\n") == "sha256:2d57"
    assert engine_digest("docker", image, 1, "Error: No such image") is None


def test_the_archive_digests_and_the_match():
    digests = archive_digests(INDEX, MANIFEST)
    assert digests == [
        INDEX["manifests"][0]["digest"],
        "sha256:2d57f535df11af4cd91ac9e92767ad85115e663db526515cb6c349931f155d27",
    ]
    # docker save before Docker 25: no index.json, Config is <hex>.json.
    assert archive_digests(None, [{"Config": "abc123.json"}]) == ["sha256:abc123"]
    assert archive_digests(None, None) == []
    assert digest_matches(INDEX["manifests"][0]["digest"], digests)
    assert not digest_matches("sha256:other", digests)
    assert not digest_matches(None, digests)
    assert digest_matches("sha256:any", [])
