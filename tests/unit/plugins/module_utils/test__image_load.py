# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""container_image_load's decisions: engine, reference, commands."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._image_load import (
    ImageLoadError,
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
