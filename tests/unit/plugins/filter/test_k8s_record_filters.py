# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_spec_annotate, ascend_k8s_decide's decide_layer and image_archive_digests: the roles' entry points."""

from __future__ import annotations

import io
import json
import tarfile

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.image_archive_digests import (
    image_archive_digests,
)
from ansible_collections.cubestudio.ascend.plugins.filter.k8s_spec_annotate import (
    k8s_spec_annotate,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._k8s_record import (
    RecordError,
    decide_layer,
)

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "npu-exporter", "namespace": "npu-exporter"},
    "spec": {"ports": [{"name": "http", "port": 8082}]},
}


def decide(answer, layer, node_name, objects, state, **extra):
    params = {"layer": layer, "node_name": node_name, "cluster": answer}
    params.update(objects=objects, state=state, **extra)
    return decide_layer(params)


def test_annotate_and_decide_for_a_first_run():
    objects = k8s_spec_annotate([SERVICE, None])
    assert list(objects[0]["metadata"]["annotations"]) == [
        "cubestudio.ascend/spec-hash"
    ]
    answer = {"nodes": {"n1": None}, "objects": {}, "pods": {"n1": []}}
    decision = decide(answer, "exporter", "n1", objects, {"npus": 8})
    assert decision["skip"] is False and decision["smoke"] is True
    assert decision["annotation"] == "cubestudio.ascend/exporter-verified"
    assert decision["summary"].startswith("exporter: applied and verified (")
    assert "Service/npu-exporter/npu-exporter is missing" in decision["reasons"]
    assert decision["node"] == {"resources": []}


def test_annotate_reads_rendered_manifests():
    text = "---\n" + json.dumps(SERVICE) + "\n---\n# empty\n"
    from_text = k8s_spec_annotate(text)
    assert from_text == k8s_spec_annotate([SERVICE])
    assert k8s_spec_annotate([text, text]) == from_text * 2


def _live(objects, node):
    return {
        "nodes": {"n1": node},
        "objects": {
            "Service/npu-exporter/npu-exporter": objects[0],
        },
        "pods": {"n1": [{"status": {"containerStatuses": [{"ready": True}]}}]},
    }


def test_a_verify_tag_or_the_switch_forces_a_full_run():
    objects = k8s_spec_annotate([SERVICE])
    first = decide(
        {"nodes": {"n1": {}}, "objects": {}, "pods": {}},
        "exporter",
        "n1",
        objects,
        {"npus": 8},
    )
    node = {
        "metadata": {
            "name": "n1",
            "annotations": {first["annotation"]: json.dumps(first["record"])},
        }
    }
    answer = _live(objects, node)
    quiet = decide(answer, "exporter", "n1", objects, {"npus": 8})
    assert quiet["skip"] is True, quiet["reasons"]
    assert quiet["node"] == {"resources": [node]}
    tagged = decide(
        answer,
        "exporter",
        "n1",
        objects,
        {"npus": 8},
        run_tags=["exporter_verify"],
        verify_tags=["verify", "exporter_verify"],
    )
    assert tagged["reasons"] == ["asked to verify (--tags exporter_verify)"]
    assert tagged["smoke"] is True
    off = decide(answer, "exporter", "n1", objects, {"npus": 8}, fast_rerun=False)
    assert off["reasons"] == ["exporter_fast_rerun is false"]
    never = decide(
        answer,
        "exporter",
        "n1",
        objects,
        {"npus": 8},
        fast_rerun=False,
        smoke_test=False,
    )
    assert never["smoke"] is False
    moved = decide(answer, "exporter", "n1", objects, {"npus": 7})
    assert moved["reasons"] == ["npus changed (8 -> 7)"]


def test_bad_input_is_an_error():
    with pytest.raises(AnsibleFilterError, match="k8s_spec_annotate"):
        k8s_spec_annotate([{"metadata": {}}])
    with pytest.raises(AnsibleFilterError, match="not YAML"):
        k8s_spec_annotate("a: [")
    with pytest.raises(RecordError, match="ascend_k8s_read"):
        decide("nope", "exporter", "n1", [], {})
    with pytest.raises(RecordError, match="smoke must be one of"):
        decide({"nodes": {}}, "exporter", "n1", [], {}, smoke="sometimes")


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
