# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The device plugin plan against the collection's catalogue and real npu-smi outputs."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._mindcluster import (
    PlanError,
    accelerator_type,
    exporter_plan,
    exporter_uninstall_steps,
    flag_names,
    healthy_chips,
    label_value,
    plan,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)

COLLECTION = Path(__file__).resolve().parents[5]
NPU_SMI = Path(__file__).parents[1] / "fixtures" / "npu-smi"
CATALOGUE = validate_catalogue(
    yaml.safe_load((COLLECTION / "data" / "mindcluster.yml").read_text())
)


def facts(name):
    return parse_info((NPU_SMI / name).read_text())


def params(**kw):
    base = {
        "npu_family": "910B",
        "architecture": "aarch64",
        "npu_smi": facts("910b3-8card-23.0.7-with-processes.txt"),
        "board_id": "0x33",
        "version": "7.3.0",
        "image_registry": "",
        "image_pull_policy": "",
        "kubelet_root": "/var/lib/kubelet",
        "extra_labels": {},
        "node_name": "atlas-01",
    }
    base.update(kw)
    return base


def test_an_8_card_910b_node():
    p = plan(CATALOGUE, params())
    assert p["resource"] == "huawei.com/Ascend910"
    assert p["expected_allocatable"] == 8
    assert p["labels"] == {
        "accelerator": "huawei-Ascend910",
        "accelerator-type": "module-910b-8",
        "host-arch": "huawei-arm",
        "workerselector": "dls-worker-node",
    }
    assert p["warnings"] == []
    assert p["image"] == "ascend-k8sdeviceplugin:v7.3.0"
    assert p["image_pull_policy"] == "Never"
    # 7.x: no -useAscendDocker (defined until 26.0.0 but ignored since 7.0), no healthz yet (from
    # 26.1.0); the sockets mounted by the DaemonSet itself (MOUNT_BY_RUNTIME_FOR_DP from 26.1.0).
    assert "-useAscendDocker" not in p["command"]
    assert "healthz" not in p["command"]
    assert ["NODE_NAME", None] in p["env"]
    assert "MOUNT_BY_RUNTIME_FOR_DP" not in [name for name, _v in p["env"]]
    assert "containerd" in [v[0] for v in p["volumes"]]


def test_the_release_decides_flags_and_mounts():
    # A 6.x release the catalogue were extended with (its flags table entry): -useAscendDocker.
    extended = copy.deepcopy(CATALOGUE)
    extended["device_plugin"]["flags"]["6.0.RC3"] = [
        "useAscendDocker",
        "logFile",
        "logLevel",
    ]
    old = plan(extended, params(version="6.0.RC3"))
    assert "-useAscendDocker=true" in old["command"]
    new = plan(CATALOGUE, params(version="26.1.0"))
    assert "--enable-healthz=true --healthz-address=11251" in new["command"]
    assert new["healthz_port"] == 11251
    assert ["MOUNT_BY_RUNTIME_FOR_DP", "true"] in new["env"]
    assert "containerd" not in [v[0] for v in new["volumes"]]


def test_a_registry_pulls_and_a_kubelet_root_moves_the_mounts():
    p = plan(
        CATALOGUE,
        params(image_registry="registry.example.com/mc/", kubelet_root="/data/kubelet"),
    )
    assert p["image"] == "registry.example.com/mc/ascend-k8sdeviceplugin:v7.3.0"
    assert p["image_pull_policy"] == "IfNotPresent"
    hosts = {v[0]: (v[1], v[2]) for v in p["volumes"]}
    assert hosts["device-plugin"] == (
        "/var/lib/kubelet/device-plugins",
        "/data/kubelet/device-plugins",
    )


def test_a3_counts_chips_and_unknown_boards_get_no_label():
    a3 = facts("a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt")
    p = plan(CATALOGUE, params(npu_family="A3", npu_smi=a3, board_id="0xb1"))
    assert p["expected_allocatable"] == 16
    assert "accelerator-type" not in p["labels"]
    assert "0xb1" in p["warnings"][0]
    # The user's label wins and silences the warning.
    p = plan(
        CATALOGUE,
        params(
            npu_family="A3",
            npu_smi=a3,
            board_id="0xb1",
            extra_labels={"accelerator-type": "module-a3-16", "accelerate": "ascend"},
        ),
    )
    assert p["labels"]["accelerator-type"] == "module-a3-16"
    assert p["labels"]["accelerate"] == "ascend"
    assert p["warnings"] == []


def test_310p_duo_and_module_or_half():
    duo = facts("310p3-300i-duo-1card-2chip-25.2.0-truncated.txt")
    p = plan(
        CATALOGUE,
        params(npu_family="310P", npu_smi=duo, board_id=None, architecture="x86_64"),
    )
    assert p["resource"] == "huawei.com/Ascend310P"
    assert p["labels"]["host-arch"] == "huawei-x86"
    assert p["expected_allocatable"] == duo["chip_count"]
    assert accelerator_type(CATALOGUE, "0x02", 8) == ("module", None)
    assert accelerator_type(CATALOGUE, "0X02", 4) == ("half", None)
    value, warning = accelerator_type(CATALOGUE, "0x02", 2)
    assert value is None and "0x02 with 2 NPUs" in warning


def test_unhealthy_chips_are_not_expected():
    info = copy.deepcopy(facts("910b3-8card-23.0.7-with-processes.txt"))
    info["npus"][3]["chips"][0]["health"] = "Alarm"
    assert healthy_chips(info) == 7


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"npu_family": None}, "no Ascend NPU found on this node"),
        ({"npu_family": "A5"}, "the NPU family A5 has no MindCluster device plugin"),
        ({"architecture": "riscv64"}, "the architecture riscv64"),
        (
            {"version": "latest"},
            "device_plugin_version 'latest' is not a MindCluster version",
        ),
        ({"extra_labels": {"rack": 12}}, "the node label rack=12 is not a valid"),
        ({"extra_labels": {"zone": "a b"}}, "the node label zone='a b'"),
    ],
)
def test_bad_input_names_the_cause(kw, message):
    with pytest.raises(PlanError, match=message.replace("(", r"\(")):
        plan(CATALOGUE, params(**kw))


def test_a_broken_catalogue_is_refused():
    with pytest.raises(PlanError, match="schema: 1"):
        validate_catalogue({"families": {}})
    broken = copy.deepcopy(CATALOGUE)
    del broken["families"]["910"]["resource"]
    with pytest.raises(PlanError, match="family 910 has no 'resource'"):
        validate_catalogue(broken)


def exporter(**kw):
    base = {
        "version": "7.3.0",
        "engine": "auto",
        "node_runtime": "containerd://1.6.20",
        "image_registry": "",
        "image_pull_policy": "",
        "port": 8082,
        "update_time": 5,
    }
    base.update(kw)
    return exporter_plan(CATALOGUE, base)


def test_exporter_follows_the_kubelet_s_engine():
    p = exporter()
    assert p["engine"] == "containerd"
    assert "-containerMode=containerd" in p["command"]
    assert "-endpoint=/run/containerd/containerd.sock" in p["command"]
    assert p["image"] == "npu-exporter:v7.3.0" and p["image_pull_policy"] == "Never"
    assert "healthz" not in p["command"]
    docker = exporter(node_runtime="docker://27.5.1")
    assert "-containerMode=docker" in docker["command"]
    assert "-endpoint=/var/run/cri-dockerd.sock" in docker["command"]
    assert "cri-dockerd" in [v[0] for v in docker["volumes"]]
    # Render mode has no Node to ask: containerd, Kubernetes' default.
    assert exporter(node_runtime="")["engine"] == "containerd"
    # An explicit engine wins over the Node's.
    assert exporter(engine="docker")["engine"] == "docker"
    assert "--healthz-address=11256" in exporter(version="26.1.0")["command"]


# The releases whose binaries the test bed builds from Huawei's source (tests/mindcluster).
RELEASES = ("7.3.0", "26.0.0", "26.1.0")


@pytest.mark.parametrize("version", RELEASES)
def test_every_rendered_flag_is_defined_by_its_release(version):
    """The command lines both plans render pass only flags the release's binary defines:
    v26.0.0 has no healthz flags (the real binary exits 2 on them), v26.1.0 no
    -useAscendDocker. The flag sets are the catalogue's, from Huawei's flag definitions of
    each tag (tests/mindcluster checks them against the real binaries' -h)."""
    for component, command, spec in (
        (
            "device-plugin",
            plan(CATALOGUE, params(version=version))["command"],
            CATALOGUE["device_plugin"],
        ),
        ("npu-exporter", exporter(version=version)["command"], CATALOGUE["exporter"]),
        (
            "npu-exporter",
            exporter(version=version, engine="docker")["command"],
            CATALOGUE["exporter"],
        ),
    ):
        names = flag_names(command)
        assert names, command
        undefined = sorted(set(names) - set(spec["flags"][version]))
        assert not undefined, (component, version, command)
    dp = plan(CATALOGUE, params(version=version))["command"]
    ex = exporter(version=version)["command"]
    healthz = version == "26.1.0"
    assert ("--enable-healthz=true" in dp) is healthz
    assert ("--enable-healthz=true" in ex) is healthz


def test_the_healthz_flags_start_with_26_1_0():
    assert "healthz" not in plan(CATALOGUE, params(version="26.0.0"))["command"]
    assert "healthz" not in exporter(version="26.0.0")["command"]
    assert plan(CATALOGUE, params(version="26.0.0"))["healthz_port"] is None


def test_a_flag_the_release_does_not_define_is_refused():
    broken = copy.deepcopy(CATALOGUE)
    broken["device_plugin"]["healthz_from"] = "26.0.0"
    with pytest.raises(
        PlanError, match=r"26\.0\.0 does not define the flag.*-enable-healthz"
    ):
        plan(broken, params(version="26.0.0"))
    broken["exporter"]["healthz_from"] = "7.0.0"
    with pytest.raises(PlanError, match=r"npu-exporter 7\.3\.0 does not define"):
        exporter_plan(broken, {"version": "7.3.0", "engine": "containerd"})


@pytest.mark.parametrize("version", ["26.2.0", "6.0.RC3", "7.0.RC1"])
def test_a_release_without_a_flags_entry_is_refused(version):
    """A release the catalogue has no flags for is refused, not passed unchecked (a 26.2.0
    would otherwise get the healthz flags of 26.1.0 without a check); the message names the
    data file to extend and the known releases."""
    assert version not in CATALOGUE["device_plugin"]["flags"]
    with pytest.raises(PlanError) as refused:
        plan(CATALOGUE, params(version=version))
    message = str(refused.value)
    assert message.startswith(
        "the device plugin %s is not a MindCluster release" % version
    )
    assert "data/mindcluster.yml" in message
    assert "(known: 7.3.0, 26.0.0, 26.1.0)" in message
    with pytest.raises(
        PlanError, match=r"npu-exporter %s .*data/mindcluster\.yml" % version
    ):
        exporter_plan(CATALOGUE, {"version": version, "engine": "containerd"})


def test_flag_names():
    assert flag_names(
        "umask 027; npu-exporter -port=8082 --enable-healthz=true -x"
    ) == [
        "port",
        "enable-healthz",
        "x",
    ]


def test_exporter_objects_follow_the_operator_s_crds_and_the_node():
    node = {
        "metadata": {"name": "n1"},
        "status": {"nodeInfo": {"containerRuntimeVersion": "docker://27.5.1"}},
    }
    both = {
        "servicemonitors.monitoring.coreos.com": {"metadata": {}},
        "prometheusrules.monitoring.coreos.com": {"metadata": {}},
    }
    # Before the read: the CRDs to look for, no Node, the operator's objects not (yet) wanted.
    first = exporter(node_runtime="", node_name="n1")
    assert first["operator_crds"] == [
        "servicemonitors.monitoring.coreos.com",
        "prometheusrules.monitoring.coreos.com",
    ]
    assert first["node"] == {"resources": []} and first["operator"] is False
    assert first["manifests"] == ["npu-exporter.yaml.j2", "dashboard.yaml.j2"]
    # After the read: the Node's engine (no node_runtime given), the operator's objects when
    # both CRDs exist.
    cluster = {"nodes": {"n1": node}, "crds": both}
    p = exporter(node_runtime="", node_name="n1", cluster=cluster)
    assert p["engine"] == "docker" and p["node"] == {"resources": [node]}
    assert p["operator"] is True
    assert p["manifests"] == [
        "npu-exporter.yaml.j2",
        "monitoring.yaml.j2",
        "dashboard.yaml.j2",
    ]
    one = dict(both)
    one["prometheusrules.monitoring.coreos.com"] = None
    assert (
        exporter(node_name="n1", cluster={"nodes": {}, "crds": one})["operator"]
        is False
    )
    asked = exporter(prometheus_operator="true", grafana_dashboard=False)
    assert asked["operator"] is True and asked["operator_crds"] == []
    assert asked["manifests"] == ["npu-exporter.yaml.j2", "monitoring.yaml.j2"]
    assert exporter(prometheus_operator="False", cluster=cluster)["operator"] is False


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"node_runtime": "cri-o://1.30.0"}, "npu-exporter reads containers from"),
        ({"port": 80}, "exporter_port 80 is outside 1025-40000"),
        ({"update_time": 0}, "exporter_update_time 0 is outside 1-60"),
        ({"version": "main"}, "exporter_version 'main' is not a MindCluster version"),
        ({"prometheus_operator": "maybe"}, "exporter_prometheus_operator is 'maybe'"),
    ],
)
def test_exporter_bad_input_names_the_cause(kw, message):
    with pytest.raises(PlanError, match=message):
        exporter(**kw)


STACK = {
    "driver": {"version": "25.5.0", "package_version": "25.5.0"},
    "firmware": {"version": "7.8.0.5.216"},
    "cann": {"version": "8.1.RC1", "latest": {"toolkit": {"version": "8.1.RC1"}}},
    "docker_runtime": {"version": "7.3.0", "version_raw": "v7.3.0"},
}


def test_the_stack_s_versions_become_the_collection_s_labels():
    labels = plan(CATALOGUE, params(stack=STACK))["labels"]
    assert {k: v for k, v in labels.items() if k.startswith("cubestudio.ascend/")} == {
        "cubestudio.ascend/driver-version": "25.5.0",
        "cubestudio.ascend/firmware-version": "7.8.0.5.216",
        "cubestudio.ascend/cann-version": "8.1.RC1",
        "cubestudio.ascend/runtime-version": "7.3.0",
    }
    # A part that is not installed gets no label; no stack, no version label at all.
    partial = plan(CATALOGUE, params(stack=dict(STACK, cann=None, firmware=None)))[
        "labels"
    ]
    assert "cubestudio.ascend/cann-version" not in partial
    assert "cubestudio.ascend/firmware-version" not in partial
    assert not any(
        k.startswith("cubestudio.ascend/") for k in plan(CATALOGUE, params())["labels"]
    )


@pytest.mark.parametrize(
    ("version", "value"),
    [
        ("24.1.rc3", "24.1.rc3"),
        ("24.1.rc3 B100", "24.1.rc3_B100"),
        ("v7.3.0+build/1", "v7.3.0_build_1"),
        ("-1.0-", "1.0"),
        ("9" * 70, "9" * 63),
    ],
)
def test_a_version_is_made_a_valid_label_value(version, value):
    assert label_value(version) == value


def test_exporter_uninstall_removes_the_objects_when_only_play_nodes_select_it():
    steps = exporter_uninstall_steps(["n1", "n2"], ["n1", "n2"], "n1", "x.tar", False)
    assert steps == {
        "remove_objects": True,
        "stays": False,
        "wait_pod": True,
        "remove_image": True,
    }


def test_exporter_uninstall_stays_for_other_nodes():
    # n3 outside the play still selects it: the DaemonSet stays, and on n1 (still labelled) too.
    steps = exporter_uninstall_steps(["n1", "n3"], ["n1"], "n1", "x.tar", False)
    assert steps == {
        "remove_objects": False,
        "stays": True,
        "wait_pod": False,
        "remove_image": False,
    }
    # n2 lost its labels already: the pod leaves it, so its image goes.
    steps = exporter_uninstall_steps(["n3"], ["n1", "n2"], "n2", "", True)
    assert steps == {
        "remove_objects": False,
        "stays": False,
        # Check mode: the pod is not waited for; no archive was copied: nothing to remove.
        "wait_pod": False,
        "remove_image": False,
    }
