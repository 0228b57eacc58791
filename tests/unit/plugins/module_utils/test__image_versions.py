# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one reader of the versions an image carries (module_utils/_image_versions.py), on real tags
and on malformed references (never an exception: "version unknown").

Real tags, and where they come from:
  HW-OVERVIEW  github.com/Ascend/cann-container-image OVERVIEW.md (Huawei's CANN images on
               AscendHub, quay.io/ascend/cann, Docker Hub ascendai/cann): the format
               `<cann-version>-<chip-series>-<os>-<python-version>`, the tags
               `9.0.1-910-ubuntu22.04-py3.12`, `9.0.1-a3-openeuler24.03-py3.12`,
               `9.0.1-310p-ubuntu22.04-py3.12-devel`, and `9.1.0-beta.3` as a version;
               its example run `quay.io/ascend/cann:9.0.1-a3-ubuntu22.04-py3.12`
  HW-DIRS      the same repository's Dockerfile folders, named by their tags:
               cann/8.0.0-910b-ubuntu22.04-py3.10, cann/8.1.rc1-910b-openeuler22.03-py3.10,
               cann/8.1.RC1.alpha001-910b-ubuntu22.04-py3.10, cann/8.2.rc1-310p-openeuler22.03-py3.11,
               cann/8.3.rc1.alpha001-a3-ubuntu22.04-py3.11, cann/8.2.rc1-910-openeuler24.03-py3.11
  HW-RELEASE   its docs/release_process.md: the complete tag `8.1.rc1-910b-openeuler22.03-py3.11`
               and the alias tag `8.2.rc1.alpha001` (of `8.2.rc1.alpha001-910b-ubuntu22.04-py3.11`)
  GUIDE        the field guide's example `cann7.0.0-drv23.0.rc2-ascend`
"""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._image_versions import (
    LABELS,
    image_versions,
    render_tag,
    split_reference,
)

REAL = [
    # (reference, cann, driver, source, chip, os, python)
    (
        "quay.io/ascend/cann:9.0.1-a3-ubuntu22.04-py3.12",  # HW-OVERVIEW
        "9.0.1",
        None,
        "huawei",
        "a3",
        "ubuntu22.04",
        "3.12",
    ),
    (
        "quay.io/ascend/cann:9.0.1-910-ubuntu22.04-py3.12",  # HW-OVERVIEW
        "9.0.1",
        None,
        "huawei",
        "910",
        "ubuntu22.04",
        "3.12",
    ),
    (
        "ascendai/cann:9.0.1-a3-openeuler24.03-py3.12",  # HW-OVERVIEW
        "9.0.1",
        None,
        "huawei",
        "a3",
        "openeuler24.03",
        "3.12",
    ),
    (
        "quay.io/ascend/cann:9.0.1-310p-ubuntu22.04-py3.12-devel",  # HW-OVERVIEW
        "9.0.1",
        None,
        "huawei",
        "310p",
        "ubuntu22.04",
        "3.12",
    ),
    (
        "quay.io/ascend/cann:8.0.0-910b-ubuntu22.04-py3.10",  # HW-DIRS, the example
        "8.0.0",
        None,
        "huawei",
        "910b",
        "ubuntu22.04",
        "3.10",
    ),
    (
        "ascendai/cann:8.1.rc1-910b-openeuler22.03-py3.10",  # HW-DIRS
        "8.1.rc1",
        None,
        "huawei",
        "910b",
        "openeuler22.03",
        "3.10",
    ),
    (
        "ascendai/cann:8.1.RC1.alpha001-910b-ubuntu22.04-py3.10",  # HW-DIRS
        "8.1.RC1.alpha001",
        None,
        "huawei",
        "910b",
        "ubuntu22.04",
        "3.10",
    ),
    (
        "swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:8.2.rc1-310p-openeuler22.03-py3.11",  # HW-DIRS
        "8.2.rc1",
        None,
        "huawei",
        "310p",
        "openeuler22.03",
        "3.11",
    ),
    (
        "quay.io/ascend/cann:8.3.rc1.alpha001-a3-ubuntu22.04-py3.11",  # HW-DIRS
        "8.3.rc1.alpha001",
        None,
        "huawei",
        "a3",
        "ubuntu22.04",
        "3.11",
    ),
    (
        "quay.io/ascend/cann:8.1.rc1-910b-openeuler22.03-py3.11",  # HW-RELEASE
        "8.1.rc1",
        None,
        "huawei",
        "910b",
        "openeuler22.03",
        "3.11",
    ),
    (
        "quay.io/ascend/cann:9.1.0-beta.3-910-ubuntu22.04-py3.12",  # HW-OVERVIEW's version
        "9.1.0.beta3",
        None,
        "huawei",
        "910",
        "ubuntu22.04",
        "3.12",
    ),
    (
        "quay.io/ascend/cann:8.2.rc1.alpha001",  # HW-RELEASE's alias tag
        "8.2.rc1.alpha001",
        None,
        "huawei",
        None,
        None,
        None,
    ),
    (
        "registry.example.com:5000/train/llm:cann7.0.0-drv23.0.rc2-ascend",  # GUIDE
        "7.0.0",
        "23.0.rc2",
        "field-guide",
        None,
        None,
        None,
    ),
    (
        "train:v3-cann8.5.0-drv25.5.0-ascend",  # GUIDE's fields inside a longer tag
        "8.5.0",
        "25.5.0",
        "field-guide",
        None,
        None,
        None,
    ),
    (
        "train:cann8.0.RC3-ascend",  # GUIDE without the driver
        "8.0.RC3",
        None,
        "field-guide",
        None,
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("image", "cann", "driver", "source", "chip", "os_name", "python"), REAL
)
def test_real_tags(image, cann, driver, source, chip, os_name, python):
    got = image_versions(image)
    assert got["known"] is True and got["reason"] == ""
    assert (got["cann"], got["driver"], got["source"]) == (cann, driver, source)
    assert (got["chip"], got["os"], got["python"]) == (chip, os_name, python)
    assert got["image"] == image


def test_the_label_comes_first():
    labels = {LABELS["cann"]: "8.5.0", LABELS["driver"]: "25.5.0", "other": "x"}
    got = image_versions("registry.example.com/train:2026-12-07", labels)
    assert got["known"] and got["source"] == "label"
    assert (got["cann"], got["driver"]) == ("8.5.0", "25.5.0")
    # A label beats the tag; the tag still says chip and OS.
    got = image_versions(
        "quay.io/ascend/cann:8.0.0-910b-ubuntu22.04-py3.10",
        {LABELS["cann"]: "8.0.0.1"},
    )
    assert (got["cann"], got["source"], got["chip"]) == ("8.0.0.1", "label", "910b")
    # A label that is not a version is not read; the tag is.
    got = image_versions(
        "quay.io/ascend/cann:8.0.0-910b-ubuntu22.04-py3.10", {LABELS["cann"]: "new"}
    )
    assert (got["cann"], got["source"]) == ("8.0.0", "huawei")
    # Other label names.
    got = image_versions(
        "x:y", {"org.example/cann": "8.5.0"}, {"cann": "org.example/cann"}
    )
    assert got["cann"] == "8.5.0"


MALFORMED = [
    (None, "no image reference"),
    ("", "no image reference"),
    ("   ", "no image reference"),
    (12, "no image reference"),
    (["cann:8.0.0"], "no image reference"),
    ("busybox", "has no tag"),
    ("registry:5000/busybox", "has no tag"),
    ("busybox@sha256:" + "0" * 64, "has no tag"),
    ("busybox:latest", "names no CANN version"),
    ("docker.io/cubestudio/workload:latest", "names no CANN version"),
    ("train:cann-drv", "names no CANN version"),
    ("train:cannX.Y-ascend", "names no CANN version"),
    ("train:cann8-ascend", "names no CANN version"),
    ("train:8.0.0", "names no CANN version"),  # a bare version, not an image named cann
    ("train:8.0.0-910b", "names no CANN version"),
    ("train:-cann8.0.0", "not a valid image tag"),
    ("train:" + "a" * 200, "not a valid image tag"),
    ("train:cann8.0.0/x", "has no tag"),  # a path, not a tag
    ("cann:8..0-910b-ubuntu22.04-py3.10", "names no CANN version"),
]


@pytest.mark.parametrize(("image", "reason"), MALFORMED)
def test_malformed_references_are_version_unknown(image, reason):
    got = image_versions(image)
    assert got["known"] is False and got["cann"] is None and got["source"] is None
    assert reason in got["reason"]


def test_labels_of_another_type_are_ignored():
    assert not image_versions("busybox:1", ["cubestudio.ascend/cann-version"])["known"]
    assert not image_versions("busybox:1", {LABELS["cann"]: 8.5})["known"]


def test_split_reference():
    assert split_reference("registry:5000/ns/name:tag@sha256:ab") == (
        "registry:5000/ns/name",
        "tag",
        "sha256:ab",
    )
    assert split_reference("registry:5000/ns/name") == (
        "registry:5000/ns/name",
        None,
        None,
    )
    assert split_reference(None) == (None, None, None)


def test_render_tag_reads_back():
    tag = render_tag("8.5.0", "25.5.0")
    assert tag == "cann8.5.0-drv25.5.0-ascend"
    got = image_versions("train:" + tag)
    assert (got["cann"], got["driver"], got["source"]) == (
        "8.5.0",
        "25.5.0",
        "field-guide",
    )
    # The field guide's own example, from its versions.
    assert render_tag("7.0.0", "23.0.RC2") == "cann7.0.0-drv23.0.rc2-ascend"
    assert render_tag({"version": "8.0.RC3"}, None, "") == "cann8.0.rc3"
    for cann, driver in (
        (None, None),
        ("latest", None),
        ("8.5.0", "new"),
        ("8.5.0", ""),
    ):
        with pytest.raises(ValueError):
            render_tag(cann, driver)
