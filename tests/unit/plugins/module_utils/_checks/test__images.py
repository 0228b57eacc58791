# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Containers holding NPUs, their images' versions against the node (the version matrix) and their
environment against what CANN needs (module_utils/_checks/_images.py, data/container_images.yml),
and the doctor's rows T48 and T49 built from them (module_utils/_checks/_doctor.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
    diagnose,
    validate_rows,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._images import (
    ImageRulesError,
    env_problems,
    judge,
    validate_rules,
    workloads,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    validate_catalogue,
)

COLLECTION = Path(__file__).resolve().parents[5]
DATA = COLLECTION / "data"
MATRIX = validate_matrix(yaml.safe_load((DATA / "version_matrix.yml").read_text()))
RULES = validate_rules(yaml.safe_load((DATA / "container_images.yml").read_text()))
TABLE = validate_rows(yaml.safe_load((DATA / "troubleshooting.yml").read_text()))
CATALOGUE = validate_catalogue(yaml.safe_load((DATA / "catalogue.yml").read_text()))
NODE = {"driver": "25.5.0", "firmware": "7.8.0.5.216"}
OLD = "quay.io/ascend/cann:8.0.0-910b-ubuntu22.04-py3.10"
GOOD = "quay.io/ascend/cann:8.5.0-910b-ubuntu22.04-py3.11"
# What Huawei's CANN images set (cann/8.0.0-910b-ubuntu22.04-py3.10/dockerfile, shortened).
HOME = "/usr/local/Ascend/ascend-toolkit/latest"
CANN_ENV = {
    "ASCEND_TOOLKIT_HOME": HOME,
    "ASCEND_HOME_PATH": HOME,
    "ASCEND_OPP_PATH": HOME + "/opp",
    "ASCEND_AICPU_PATH": HOME,
    "LD_LIBRARY_PATH": HOME + "/lib64:" + HOME + "/lib64/plugin/opskernel:"
    "/usr/local/Ascend/driver/lib64/common/:/usr/local/Ascend/driver/lib64/driver/:",
}


def pod(name, image, npus=1, phase="Running", env=None, annotations=None):
    container = {"name": "main", "image": image}
    if npus:
        amount = {"huawei.com/Ascend910": str(npus)}
        container["resources"] = {"limits": dict(amount), "requests": dict(amount)}
    if env is not None:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    meta = {"namespace": "default", "name": name}
    if annotations:
        meta["annotations"] = annotations
    return {
        "metadata": meta,
        "spec": {"nodeName": "atlas-01", "containers": [container]},
        "status": {"phase": phase},
    }


def engine(pod_name, image, env=None, labels=None, **kw):
    """A container as npu_container_facts lists it (containerd, a Kubernetes pod's)."""
    item = {
        "engine": "containerd",
        "name": "main",
        "pod": "default/" + pod_name if pod_name else None,
        "image": image,
        "devices": [],
        "all_devices": False,
        "visible_devices": "0",
        "env": dict(CANN_ENV if env is None else env),
        "labels": labels or {},
    }
    item.update(kw)
    return item


def test_the_rules_file_is_valid_and_a_broken_one_is_refused():
    assert RULES["labels"]["cann"] == "cubestudio.ascend/cann-version"
    for broken in (None, {"schema": 2}, dict(RULES, labels=None)):
        with pytest.raises(ImageRulesError):
            validate_rules(broken)
    bad = copy.deepcopy(RULES)
    bad["env"]["ld_library_path"] = [{"path": "/x"}]
    with pytest.raises(ImageRulesError, match="ld_library_path"):
        validate_rules(bad)


def test_workloads_are_the_running_pods_holding_npus_and_the_engine_s_others():
    pods = [
        pod("train", OLD),
        pod("web", "nginx:1", npus=0),
        pod("done", OLD, phase="Succeeded"),
        pod(
            "annotated",
            GOOD,
            npus=0,
            annotations={"huawei.com/AscendReal": "Ascend910-3"},
        ),
    ]
    containers = [
        engine("train", OLD, labels={"cubestudio.ascend/cann-version": "8.0.0"}),
        engine(None, "local/bench:cann8.5.0-ascend", engine="docker", name="bench"),
        engine(None, "plugin:v7.3.0", all_devices=True, name="plugin"),
        engine(None, "x:1", visible_devices=None, name="no-npu"),
        engine(
            "other", GOOD
        ),  # a pod's, not on the list of the node's pods: left to the pod side
    ]
    found = workloads(pods, containers, RULES["npu_annotations"])
    assert [w["where"] for w in found] == [
        "pod default/train container main",
        "pod default/annotated container main",
        "docker container bench",
    ]
    train = found[0]
    assert train["env_complete"] and train["labels"] == {
        "cubestudio.ascend/cann-version": "8.0.0"
    }
    assert not found[1]["env_complete"]
    # Without the cluster: the engine's containers that map NPUs, Kubernetes' included.
    alone = workloads(None, containers)
    assert [w["container"] for w in alone] == ["main", "bench", "main"]


def test_a_mismatching_image_names_both_versions_the_row_and_the_fix():
    verdict = judge({"image": OLD}, NODE, MATRIX, RULES)
    assert verdict["verdict"] == "mismatch" and verdict["severity"] == "error"
    assert verdict["row"] == "25.5.0" and verdict["refused"]
    assert (
        "CANN 8.0.0 of the image is not the matched set of driver 25.5.0 / firmware 7.8.0.5.216"
        in verdict["message"]
    )
    assert "HDK 25.5.0 with CANN 8.5.0" in verdict["message"]
    assert verdict["fix"] == (
        "use an image of CANN 8.5.0 (tag cann8.5.0-drv25.5.0-ascend), "
        "or run it on a node with the driver of HDK 24.1.0"
    )
    tolerant = judge({"image": OLD}, NODE, MATRIX, RULES, policy="tolerant")
    assert tolerant["severity"] == "warning" and not tolerant["refused"]


def test_matching_unknown_and_unchecked_images():
    assert judge({"image": GOOD}, NODE, MATRIX, RULES)["verdict"] == "ok"
    labelled = {
        "image": "in-house/train:42",
        "labels": {"cubestudio.ascend/cann-version": "8.5.0"},
    }
    assert judge(labelled, NODE, MATRIX, RULES)["verdict"] == "ok"
    unknown = judge({"image": "busybox:latest"}, NODE, MATRIX, RULES)
    assert unknown["verdict"] == "unknown" and unknown["severity"] == "info"
    assert unknown["message"].startswith("version unknown: the tag 'latest'")
    assert (
        judge({"image": OLD}, {"driver": None}, MATRIX, RULES)["verdict"] == "unchecked"
    )
    # A CANN the matrix does not know is not the driver's matched set either.
    new = judge({"image": "cann:99.0.0-910b-ubuntu22.04-py3.11"}, NODE, MATRIX, RULES)
    assert new["verdict"] == "mismatch" and new["severity"] == "error"
    assert "or run it on a node" not in new["fix"]
    # A driver the matrix does not know: nothing to hold the image against.
    assert (
        judge({"image": GOOD}, {"driver": "99.1.0"}, MATRIX, RULES)["verdict"]
        == "unchecked"
    )
    # The matched CANN, but built for another driver (the field guide's drv field).
    other = judge({"image": "t:cann8.5.0-drv25.2.0-ascend"}, NODE, MATRIX, RULES)
    assert other["verdict"] == "mismatch" and other["severity"] == "warning"
    assert "built for driver 25.2.0" in other["message"]


def test_env_problems():
    versions = {"known": True}
    complete = {"env": dict(CANN_ENV), "env_complete": True}
    assert env_problems(complete, versions, RULES) == []
    bare = {"env": {}, "env_complete": True}
    whats = [p["what"] for p in env_problems(bare, versions, RULES)]
    assert whats == [
        "LD_LIBRARY_PATH lacks " + HOME + "/lib64",
        "LD_LIBRARY_PATH lacks /usr/local/Ascend/driver/lib64/driver",
        "LD_LIBRARY_PATH lacks /usr/local/Ascend/driver/lib64/common",
        "ASCEND_OPP_PATH is not set",
        "ASCEND_AICPU_PATH is not set",
    ]
    # Another CANN home: its lib64 is the one needed.
    moved = dict(
        CANN_ENV, ASCEND_TOOLKIT_HOME="/opt/cann", ASCEND_HOME_PATH="/opt/cann"
    )
    assert [
        p["what"]
        for p in env_problems({"env": moved, "env_complete": True}, versions, RULES)
    ] == ["LD_LIBRARY_PATH lacks /opt/cann/lib64"]
    # Only the pod's spec known: judged only when it sets LD_LIBRARY_PATH (and then only that).
    assert env_problems({"env": {}, "env_complete": False}, versions, RULES) == []
    spec = {"env": {"LD_LIBRARY_PATH": "/app/lib"}, "env_complete": False}
    assert len(env_problems(spec, versions, RULES)) == 3
    # An image without a CANN version and no CANN home: not a CANN container.
    assert env_problems(bare, {"known": False}, RULES) == []


def _doctor_params(healthy_facts, pods, containers):
    facts = copy.deepcopy(healthy_facts)
    facts["driver"]["version"] = "25.5.0"
    facts["firmware"]["version"] = "7.8.0.5.216"
    return {
        "ascend": facts,
        "npu_smi_error": "",
        "compat_findings": [],
        "containers": containers,
        "kubernetes": {
            "enabled": True,
            "node_name": "atlas-01",
            "error": "",
            "node": None,
            "pods": pods,
        },
    }


@pytest.fixture
def facts(ascend_node):
    from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

    root, sysfs = ascend_node("full")
    return ascend_facts.gather(root, sysfs, None)


def _image_findings(params):
    images = {"matrix": MATRIX, "rules": RULES}
    return [
        f
        for f in diagnose(TABLE, params, CATALOGUE, None, images)
        if f["row"] in ("T48", "T49")
    ]


def test_the_doctor_rows(facts):
    pods = [
        pod("old", OLD),
        pod("good", GOOD),
        pod("plain", "docker.io/cubestudio/workload:latest"),
        pod("bare-env", GOOD, env={"LD_LIBRARY_PATH": "/app/lib"}),
    ]
    containers = [engine("old", OLD), engine("good", GOOD)]
    findings = _image_findings(_doctor_params(facts, pods, containers))
    assert [(f["row"], f["severity"]) for f in findings] == [
        ("T48", "error"),
        ("T49", "error"),
        ("T48", "info"),
    ]
    old, env, plain = findings
    assert old["symptom"].startswith(
        "pod default/old container main: image "
        + OLD
        + " (CANN 8.0.0, read from its tag, "
        "Huawei's form): CANN 8.0.0 of the image is not the matched set of driver 25.5.0"
    )
    assert old["cause"].startswith(
        "version matrix row HDK 25.5.0 (data/version_matrix.yml); "
    )
    assert old["fix"].startswith(
        "use an image of CANN 8.5.0 (tag cann8.5.0-drv25.5.0-ascend)"
    )
    assert "pod default/bare-env container main" in env["symptom"]
    assert (
        "LD_LIBRARY_PATH lacks /usr/local/Ascend/ascend-toolkit/latest/lib64"
        in env["symptom"]
    )
    assert plain["symptom"].startswith(
        "pod default/plain container main: image docker.io/cubestudio/workload:latest, version unknown"
    )
    assert "not compared with the node's driver 25.5.0" in plain["symptom"]
    # Without the image data the doctor leaves the rows out (callers that do not load them).
    params = _doctor_params(facts, pods, containers)
    assert not [
        f for f in diagnose(TABLE, params, CATALOGUE) if f["row"] in ("T48", "T49")
    ]
    # Skipped rows stay skipped.
    params["skip_rows"] = ["T48", "T49"]
    assert _image_findings(params) == []


def test_the_doctor_without_the_cluster_reads_the_engine(facts):
    params = _doctor_params(
        facts, [], [engine(None, OLD, engine="docker", name="train")]
    )
    params["kubernetes"] = {"enabled": False}
    (finding,) = _image_findings(params)
    assert (
        finding["row"] == "T48"
        and "docker container train: image " + OLD in finding["symptom"]
    )
