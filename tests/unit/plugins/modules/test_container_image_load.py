# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""container_image_load: present, loaded, check mode, and every refusal with its cause."""

from __future__ import annotations

from unittest import mock

import pytest
from ansible.module_utils import basic

from ansible_collections.cubestudio.ascend.plugins.modules import container_image_load

REF = "docker.io/library/ascend-k8sdeviceplugin:v7.3.0"


@pytest.fixture(autouse=True)
def tools_present():
    with mock.patch.object(
        basic.AnsibleModule,
        "get_bin_path",
        lambda self, name, *a, **k: "/usr/bin/" + name,
    ):
        yield


def args(tmp_path, **kw):
    archive = tmp_path / "dp.tar"
    archive.write_bytes(b"x")
    base = {
        "path": str(archive),
        "image": "ascend-k8sdeviceplugin:v7.3.0",
        "engine": "containerd://1.6.20",
    }
    base.update(kw)
    return base


def test_present_image_changes_nothing(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main, args(tmp_path), [(0, REF + "\n", "")]
    )
    assert result["changed"] is False and "failed" not in result
    assert calls == [["ctr", "-n", "k8s.io", "images", "ls", "-q", "name==" + REF]]


def test_missing_image_is_imported_and_checked(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        args(tmp_path),
        [(0, "", ""), (0, "unpacking ...", ""), (0, REF + "\n", "")],
    )
    assert result["changed"] is True and "failed" not in result
    assert calls[1] == [
        "ctr",
        "-n",
        "k8s.io",
        "images",
        "import",
        str(tmp_path / "dp.tar"),
    ]


def test_check_mode_loads_nothing(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        dict(args(tmp_path), _ansible_check_mode=True),
        [(0, "", "")],
    )
    assert result["changed"] is True
    assert len(calls) == 1


def test_docker_engine(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        args(tmp_path, engine="docker://27.5.1"),
        [(1, "", "No such image"), (0, "Loaded image", ""), (0, "sha256:abc", "")],
    )
    assert result["changed"] is True
    assert calls[1] == ["docker", "load", "-i", str(tmp_path / "dp.tar")]


@pytest.mark.parametrize(
    ("kw", "commands", "message"),
    [
        (
            {"engine": "cri-o://1.30"},
            [],
            "is not one an image tarball can be loaded into",
        ),
        ({"image": ""}, [], "is not an image reference"),
        ({"path": "/nonexistent.tar"}, [(0, "", "")], "is not on the node"),
        (
            {},
            [(0, "", ""), (1, "", "ctr: unexpected EOF")],
            "failed (exit 1): ctr: unexpected EOF",
        ),
        ({}, [(0, "", ""), (0, "", ""), (0, "", "")], "holds no image " + REF),
    ],
)
def test_refusals_name_the_cause(module_runner, tmp_path, kw, commands, message):
    result, _calls = module_runner(
        container_image_load.main, args(tmp_path, **kw), commands
    )
    assert result["failed"] is True
    assert message in result["msg"]


def test_absent_removes_the_full_reference_and_checks(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        {
            "image": "ascend-k8sdeviceplugin:v7.3.0",
            "engine": "containerd",
            "state": "absent",
        },
        [(0, REF + "\n", ""), (0, "", ""), (0, "", "")],
    )
    assert result["changed"] is True and "failed" not in result
    assert calls[1] == ["ctr", "-n", "k8s.io", "images", "rm", REF]


def test_absent_without_the_image_changes_nothing(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        {
            "image": "ascend-k8sdeviceplugin:v7.3.0",
            "engine": "docker",
            "state": "absent",
        },
        [(1, "", "No such image")],
    )
    assert result["changed"] is False and "failed" not in result
    assert len(calls) == 1


def test_absent_in_check_mode_removes_nothing(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        {
            "image": "ascend-k8sdeviceplugin:v7.3.0",
            "engine": "containerd",
            "state": "absent",
            "_ansible_check_mode": True,
        },
        [(0, REF + "\n", "")],
    )
    assert result["changed"] is True
    assert len(calls) == 1


def test_an_image_that_stays_fails_with_the_cause(module_runner, tmp_path):
    result, _calls = module_runner(
        container_image_load.main,
        {
            "image": "ascend-k8sdeviceplugin:v7.3.0",
            "engine": "docker",
            "state": "absent",
        },
        [
            (0, "sha256:abc", ""),
            (1, "", "image is being used by running container 1a2b"),
            (0, "sha256:abc", ""),
        ],
    )
    assert result["failed"] is True
    assert "used by running container" in result["msg"]


def test_present_needs_the_archive(module_runner, tmp_path):
    result, calls = module_runner(
        container_image_load.main,
        {"image": "ascend-k8sdeviceplugin:v7.3.0", "engine": "containerd"},
        [],
    )
    assert result["failed"] is True and "path" in result["msg"]
    assert calls == []


CTR_LS = (
    "REF TYPE DIGEST SIZE PLATFORMS LABELS\n"
    + REF
    + " application/vnd.oci.image.manifest.v1+json sha256:6bc8 48.7 MiB linux/amd64 -\n"
)


def test_query_reports_presence_by_digest_and_needs_no_archive(module_runner, tmp_path):
    a = args(tmp_path, state="query", digests=["sha256:6bc8"])
    del a["path"]
    result, calls = module_runner(container_image_load.main, a, [(0, CTR_LS, "")])
    assert result["changed"] is False and result["present"] is True
    assert result["digest"] == "sha256:6bc8"
    assert calls == [["ctr", "-n", "k8s.io", "images", "ls", "name==" + REF]]
    a["digests"] = ["sha256:other"]
    result, calls = module_runner(container_image_load.main, a, [(0, CTR_LS, "")])
    assert result["changed"] is False and result["present"] is False


def test_same_reference_other_digest_is_loaded_again(module_runner, tmp_path):
    loaded = CTR_LS.replace("sha256:6bc8", "sha256:new1")
    result, calls = module_runner(
        container_image_load.main,
        args(tmp_path, digests=["sha256:new1"]),
        [(0, CTR_LS, ""), (0, "unpacking ...", ""), (0, loaded, "")],
    )
    assert result["changed"] is True and "failed" not in result
    assert calls[1][:5] == ["ctr", "-n", "k8s.io", "images", "import"]
