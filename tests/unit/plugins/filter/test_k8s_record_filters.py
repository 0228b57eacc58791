# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_spec_annotate, k8s_layer_decision and image_archive_digests: the roles' entry points."""

from __future__ import annotations

import io
import json
import tarfile

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.image_archive_digests import (
    image_archive_digests,
)
from ansible_collections.cubestudio.ascend.plugins.filter.k8s_layer_decision import (
    k8s_layer_decision,
)
from ansible_collections.cubestudio.ascend.plugins.filter.k8s_spec_annotate import (
    k8s_spec_annotate,
)

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "npu-exporter", "namespace": "npu-exporter"},
    "spec": {"ports": [{"name": "http", "port": 8082}]},
}


def test_annotate_and_decide_for_a_first_run():
    objects = k8s_spec_annotate([SERVICE, None])
    assert list(objects[0]["metadata"]["annotations"]) == [
        "cubestudio.ascend/spec-hash"
    ]
    answer = {"nodes": {"n1": None}, "objects": {}, "pods": {"n1": []}}
    decision = k8s_layer_decision(answer, "exporter", "n1", objects, {"npus": 8})
    assert decision["skip"] is False and decision["smoke"] is True
    assert decision["annotation"] == "cubestudio.ascend/exporter-verified"
    assert decision["summary"].startswith("exporter: applied and verified (")
    assert "Service/npu-exporter/npu-exporter is missing" in decision["reasons"]


def test_bad_input_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="k8s_spec_annotate"):
        k8s_spec_annotate([{"metadata": {}}])
    with pytest.raises(AnsibleFilterError, match="ascend_k8s_read"):
        k8s_layer_decision("nope", "exporter", "n1", [], {})
    with pytest.raises(AnsibleFilterError, match="smoke must be one of"):
        k8s_layer_decision({}, "exporter", "n1", [], {}, smoke="sometimes")


def _tar(path, members):
    with tarfile.open(path, "w") as archive:
        for name, value in members.items():
            data = json.dumps(value).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_archive_digests_from_a_docker_save_tarball(tmp_path):
    path = tmp_path / "npu-exporter_v7.3.0_x86_64.tar"
    _tar(
        path,
        {
            "index.json": {"manifests": [{"digest": "sha256:7123"}]},
            "manifest.json": [
                {"Config": "blobs/sha256/2d57", "RepoTags": ["npu-exporter:v7.3.0"]}
            ],
        },
    )
    assert image_archive_digests(str(path)) == ["sha256:7123", "sha256:2d57"]
    with pytest.raises(AnsibleFilterError, match="no readable image tarball"):
        image_archive_digests(str(tmp_path / "missing.tar"))
