# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The doctor's findings (module_utils/_checks/_doctor.py) on real fact snapshots: a sandbox node built
from the real installed files (../conftest.py) read by ascend_facts, real npu-smi output, the
real engine config files and the exporter's real rules file."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
    DoctorError,
    diagnose,
    format_line,
    temperature_threshold,
    validate_rows,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    expected_davinci_count,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    parse_info,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

HERE = Path(__file__).resolve().parents[1]
FIXTURES = HERE / "fixtures"
COLLECTION = HERE.parents[3]
TABLE = validate_rows(
    yaml.safe_load((COLLECTION / "data" / "troubleshooting.yml").read_text())
)
CATALOGUE = validate_catalogue(
    yaml.safe_load((COLLECTION / "data" / "catalogue.yml").read_text())
)
RULES = yaml.safe_load(
    (COLLECTION / "roles" / "exporter" / "files" / "ascend-npu.rules.yml").read_text()
)
NPU_SMI_TEXT = (
    FIXTURES / "npu-smi" / "910b3-8card-23.0.7-with-processes.txt"
).read_text()
CONTAINERD_ASCEND = (
    FIXTURES / "engine-config" / "containerd-1.6.20-vendor-runc-edit.toml"
).read_text()
CONTAINERD_DEFAULT = (
    FIXTURES / "engine-config" / "containerd-1.7.24-default.toml"
).read_text()
DOCKER_ASCEND = (FIXTURES / "engine-config" / "vendor-template.json").read_text()
DOCKER_PLAIN = (FIXTURES / "engine-config" / "notes-registry-mirrors.json").read_text()
ENV_FILE = (
    "ASCEND_HOME_PATH=/usr/local/Ascend/cann-8.5.0\n"
    "LD_LIBRARY_PATH=/usr/local/Ascend/cann-8.5.0/lib64:/usr/local/Ascend/driver/lib64\n"
)


@pytest.fixture
def healthy(ascend_node):
    """The full sandbox node (4 x 910B, driver 23.0.7, CANN, runtime for containerd)."""
    root, sysfs = ascend_node("full")
    return _params(ascend_facts.gather(root, sysfs, None))


def _params(facts):
    return {
        "ascend": facts,
        "npu_smi": parse_info(NPU_SMI_TEXT),
        "npu_smi_error": "",
        "compat_findings": [],
        "temperature_threshold": temperature_threshold(RULES),
        "cann_env_file": {
            "path": "/etc/ascend/cann.env",
            "exists": True,
            "content": ENV_FILE,
        },
        "containerd_config": CONTAINERD_ASCEND,
        "engine": "auto",
        "containers": [],
    }


def rows(params) -> list:
    return [f["row"] for f in diagnose(TABLE, params, CATALOGUE)]


def test_the_table_holds_the_npu_driver_rows_and_the_doctor_rows():
    ids = [int(rid[1:]) for rid in TABLE]
    assert ids == sorted(set(ids)), "row ids ascend, each once"
    assert {f"T{n}" for n in [*range(1, 42), 43, 44]} <= set(TABLE)
    readme = (COLLECTION / "roles" / "npu_driver" / "README.md").read_text()
    for rid in [f"T{n}" for n in range(1, 16)] + ["T31", "T32", "T33"]:
        assert f"| {rid} |" in readme
        assert TABLE[rid]["source"] == "roles/npu_driver"


def test_the_threshold_is_the_exporters_rule():
    assert temperature_threshold(RULES) == 80.0
    with pytest.raises(DoctorError, match="AscendNpuTemperatureHigh"):
        temperature_threshold(
            {"groups": [{"rules": [{"alert": "Other", "expr": "up == 0"}]}]}
        )


def test_a_healthy_node_has_no_findings(healthy):
    assert diagnose(TABLE, healthy, CATALOGUE) == []


def test_a_chip_in_alarm(healthy):
    text = NPU_SMI_TEXT.replace(
        "| 3     910B3               | OK      ",
        "| 3     910B3               | Alarm   ",
    )
    healthy["npu_smi"] = parse_info(text)
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == ["T12"]
    assert findings[0]["symptom"] == "not healthy: NPU 3 chip 0 Alarm"
    assert findings[0]["severity"] == "error"
    assert findings[0]["fix"] == TABLE["T12"]["fix"].strip()
    assert format_line(findings[0]).startswith(
        "[T12] ERROR: not healthy: NPU 3 chip 0 Alarm | cause: "
    )


def test_a_warning_chip_is_a_warning(healthy):
    healthy["npu_smi"]["npus"][1]["chips"][0]["health"] = "Warning"
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (finding["row"], finding["severity"]) == ("T12", "warning")


def test_minus_8005(healthy):
    healthy["npu_smi"] = None
    healthy["npu_smi_error"] = "dcmi module initialize failed. ret is -8005"
    assert rows(healthy) == ["T11"]


def test_npu_smi_fails_otherwise(healthy):
    healthy["npu_smi"] = None
    healthy["npu_smi_error"] = (
        "npu-smi: error while loading shared libraries: libdrvdsmi_host.so"
    )
    assert rows(healthy) == ["T16"]
    healthy["npu_smi_error"] = "open /dev/davinci_manager failed: Permission denied"
    assert rows(healthy) == ["T17"]


def test_davinci_missing(healthy):
    healthy["ascend"]["davinci_devices"] = 3
    healthy["ascend"]["davinci_ids"] = [0, 1, 2]
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T10"
    assert "3 /dev/davinci node(s) for 4 NPU chip(s)" in finding["symptom"]


DUO_NPU_SMI = (
    FIXTURES / "npu-smi" / "310p3-300i-duo-1card-2chip-25.2.0-truncated.txt"
).read_text()


def _duo_node(ascend_node, davinci):
    root, sysfs = ascend_node("full")
    devices = Path(sysfs) / "bus" / "pci" / "devices"
    for bus in devices.iterdir():
        if (bus / "device").read_text().strip() == "0xd802":
            for item in bus.iterdir():
                item.unlink()
            bus.rmdir()
    duo = devices / "0000:01:00.0"
    duo.mkdir()
    for name, value in (
        ("vendor", "0x19e5"),
        ("device", "0xd500"),
        ("subsystem_vendor", "0x19e5"),
        ("subsystem_device", "0x0110"),
        ("class", "0x120000"),
        ("numa_node", "0"),
    ):
        (duo / name).write_text(value + "\n")
    for n in range(4):
        if n >= davinci:
            (Path(root) / "dev" / ("davinci%d" % n)).unlink()
    return ascend_facts.gather(root, sysfs, None)


def _t10(params) -> list:
    return [
        f["symptom"] for f in diagnose(TABLE, params, CATALOGUE) if f["row"] == "T10"
    ]


def test_a_300i_duo_missing_a_chip(ascend_node):
    """One PCI function, two chips: one /dev/davinci node is one chip short. npu_driver's verify
    refused it; the doctor compared with the PCI functions and saw nothing (issue 23)."""
    facts = _duo_node(ascend_node, davinci=1)
    assert (facts["pci_npu_count"], facts["npu_model"], facts["davinci_devices"]) == (
        1,
        "Atlas 300I Duo",
        1,
    )
    assert expected_davinci_count(CATALOGUE, facts) == 2
    params = _params(facts)
    params["npu_smi"] = parse_info(DUO_NPU_SMI)
    assert _t10(params) == [
        "1 /dev/davinci node(s) for 2 NPU chip(s) on the PCI bus (1 function(s); present: 0)"
    ]


def test_a_whole_300i_duo_has_every_chip(ascend_node):
    params = _params(_duo_node(ascend_node, davinci=2))
    params["npu_smi"] = parse_info(DUO_NPU_SMI)
    assert params["npu_smi"]["chip_count"] == 2
    assert _t10(params) == []
    params["npu_smi"]["chip_count"] = 1
    assert _t10(params) == ["npu-smi sees 1 chip(s) for 2 on the PCI bus"]


def test_driver_not_loaded(healthy):
    healthy["ascend"]["device_nodes"]["davinci_manager"] = False
    assert rows(healthy) == ["T16"]


def test_no_driver_no_npu_smi(healthy):
    healthy["ascend"]["driver"] = None
    healthy["npu_smi"] = None
    assert rows(healthy) == ["T16"]


def test_partial_driver_and_directory_npu_smi(healthy):
    healthy["ascend"]["driver"]["complete"] = False
    healthy["ascend"]["npu_smi"]["is_directory"] = True
    assert rows(healthy) == ["T5", "T14"]


def test_no_npu_on_the_bus(healthy):
    healthy["ascend"]["pci_npu_count"] = 0
    assert rows(healthy) == ["T1"]


def test_running_driver_differs(healthy):
    healthy["npu_smi"]["driver_version"] = "24.1.rc3"
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T13"
        and "npu-smi reports driver 24.1.rc3 but 23.0.7" in finding["symptom"]
    )


def test_hot_chip(healthy):
    healthy["npu_smi"]["npus"][5]["chips"][0]["temp_c"] = 85
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T18" and finding["severity"] == "warning"
    assert finding["symptom"].startswith("NPU 5 chip 0 at 85 C (threshold 80 C")
    healthy["temperature_threshold"] = 90
    assert rows(healthy) == []


def test_compat_findings_map_to_t3_and_t20(healthy):
    healthy["compat_findings"] = [
        {
            "rule": "driver.accepts-firmware",
            "severity": "error",
            "message": "m1",
            "fix": "f1",
        },
        {"rule": "cann.matched", "severity": "warning", "message": "m2", "fix": "f2"},
        {"rule": "os.supported", "severity": "error", "message": "debian", "fix": "x"},
        {"rule": "matrix.guess", "severity": "info", "message": "guess", "fix": ""},
    ]
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [(f["row"], f["severity"]) for f in findings] == [
        ("T3", "error"),
        ("T20", "warning"),
    ]
    assert findings[1]["symptom"] == "[cann.matched] m2"
    assert findings[1]["cause"].startswith("ascend_compat: f2; ")


def test_device_permissions(healthy):
    good = {
        "path": "/dev/davinci0",
        "mode": "0660",
        "gid": 1000,
        "gr_name": "HwHiAiUser",
        "pw_name": "root",
    }
    bad = {
        "path": "/dev/davinci1",
        "mode": "0600",
        "gid": 0,
        "gr_name": "root",
        "pw_name": "root",
    }
    healthy["device_files"] = [good, bad]
    healthy["device_group"] = ""
    assert rows(healthy) == []
    healthy["device_group"] = "HwHiAiUser"
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T17" and "/dev/davinci1 root:root 0600" in finding["symptom"]
    )
    healthy["device_files"] = [good, dict(bad, mode="0666")]
    assert rows(healthy) == []


def test_cann_env_file(healthy):
    healthy["cann_env_file"] = {"path": "/etc/ascend/cann.env", "exists": False}
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T19"
        and "/etc/ascend/cann.env does not exist" in finding["symptom"]
    )
    healthy["cann_env_file"] = {
        "path": "/etc/ascend/cann.env",
        "exists": True,
        "content": "PATH=/bin\n",
    }
    assert rows(healthy) == ["T19"]
    healthy["ascend"]["cann"] = None
    assert rows(healthy) == []


def test_containerd_runtime_registered_and_default(healthy):
    healthy["containerd_config"] = CONTAINERD_DEFAULT
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T21"
    healthy["containerd_config"] = None
    assert rows(healthy) == ["T21"]
    healthy["containerd_config"] = CONTAINERD_ASCEND.replace(
        'default_runtime_name = "runc"', 'default_runtime_name = "crun"'
    ).replace(
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]',
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n'
        '        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n'
        '          runtime_type = "io.containerd.runc.v2"',
        1,
    )
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T22" and "default_runtime_name is crun" in finding["symptom"]
    )


# The test bed's node: the 7.3.0 installer on cgroup v1 (container-runtime-config.md, 2a).
CONTAINERD_LEGACY = """version = 2
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    [plugins."io.containerd.grpc.v1.cri".containerd]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runtime.v1.linux"
  [plugins."io.containerd.runtime.v1.linux"]
    runtime = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
"""


def test_containerd_legacy_cgroup_v1_layout(healthy):
    healthy["containerd_config"] = CONTAINERD_LEGACY
    assert rows(healthy) == []
    healthy["containerd_config"] = CONTAINERD_LEGACY.replace(
        'runtime_type = "io.containerd.runtime.v1.linux"',
        'runtime_type = "io.containerd.runc.v2"',
    )
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T22" and "no runtime has runtime_type" in finding["symptom"]
    )


def test_docker_runtime_registered_and_default(healthy):
    healthy["engine"] = "docker"
    healthy["docker_daemon_json"] = DOCKER_ASCEND
    assert rows(healthy) == []
    healthy["docker_daemon_json"] = DOCKER_PLAIN
    assert rows(healthy) == ["T21"]
    healthy["docker_daemon_json"] = DOCKER_ASCEND.replace(
        '"default-runtime":      "ascend"', '"debug": true'
    )
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T22"
        and "default-runtime is runc (unset)" in finding["symptom"]
    )
    healthy["docker_daemon_json"] = "{"
    assert rows(healthy) == ["T21"]


def test_containers(healthy):
    base = {"engine": "docker", "name": "train", "pod": None, "all_devices": False}
    healthy["containers"] = [
        dict(
            base,
            devices=["/dev/davinci0", "/dev/davinci_manager"],
            visible_devices="0-3",
        ),
        dict(
            base, name="manual", devices=["/dev/davinci_manager"], visible_devices=None
        ),
        dict(base, name="all", devices=[], visible_devices="0-7"),
        dict(base, name="priv", devices=[], visible_devices=None, all_devices=True),
    ]
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == ["T23", "T24"]
    assert (
        "names 4 NPU(s) in ASCEND_VISIBLE_DEVICES (0-3) but maps only /dev/davinci0"
        in findings[1]["symptom"]
    )


def node(labels=None, allocatable=None):
    return {
        "metadata": {
            "name": "atlas-01",
            "labels": labels if labels is not None else dict(LABELS),
        },
        "status": {
            "allocatable": allocatable
            if allocatable is not None
            else {"cpu": "2", "huawei.com/Ascend910": "8"}
        },
    }


LABELS = {
    "accelerator": "huawei-Ascend910",
    "host-arch": "huawei-x86",
    "workerselector": "dls-worker-node",
}
DAEMONSET = {
    "metadata": {"namespace": "kube-system", "name": "ascend-device-plugin-daemonset"},
    "spec": {
        "selector": {"matchLabels": {"name": "ascend-device-plugin-ds"}},
        "template": {
            "spec": {
                "nodeSelector": dict(LABELS),
                "containers": [
                    {
                        "name": "device-plugin-01",
                        "image": "ascend-k8sdeviceplugin:v7.3.0",
                    }
                ],
                "volumes": [
                    {
                        "name": "device-plugin",
                        "hostPath": {"path": "/var/lib/kubelet/device-plugins"},
                    }
                ],
            }
        },
    },
}
PLUGIN_POD = {
    "metadata": {
        "namespace": "kube-system",
        "name": "ascend-device-plugin-daemonset-x1",
        "ownerReferences": [
            {"kind": "DaemonSet", "name": "ascend-device-plugin-daemonset"}
        ],
    },
    "spec": {"nodeName": "atlas-01", "containers": [{"name": "device-plugin-01"}]},
    "status": {
        "phase": "Running",
        "containerStatuses": [{"ready": True, "state": {"running": {}}}],
    },
}


def cluster(**kw):
    data = {
        "enabled": True,
        "node_name": "atlas-01",
        "error": "",
        "node": node(),
        "daemonsets": [copy.deepcopy(DAEMONSET)],
        # As playbooks/doctor.yml passes it (lookup ascend_settings).
        "device_plugin_selector": "name=ascend-device-plugin-ds",
        "pods": [copy.deepcopy(PLUGIN_POD)],
        "pending_pods": [],
        "kubelet_root": "/var/lib/kubelet",
        "kubelet_socket": {
            "path": "/var/lib/kubelet/device-plugins/kubelet.sock",
            "exists": True,
            "islnk": False,
        },
    }
    data.update(kw)
    return data


def test_a_healthy_cluster_node(healthy):
    healthy["kubernetes"] = cluster()
    assert rows(healthy) == []


def test_labels_do_not_match(healthy):
    healthy["kubernetes"] = cluster(
        node=node(
            labels={"accelerator": "huawei-Ascend310P"}, allocatable={"cpu": "2"}
        ),
        pods=[],
    )
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == ["T25", "T26"]
    assert (
        "accelerator=huawei-Ascend910 (node: huawei-Ascend310P)"
        in findings[1]["symptom"]
    )


@pytest.mark.parametrize(
    "spec, severity, seen",
    [
        ({"unschedulable": True}, "warning", "is cordoned (spec.unschedulable)"),
        (
            {
                "unschedulable": True,
                "taints": [
                    {
                        "key": "cubestudio.ascend/upgrade",
                        "value": "true",
                        "effect": "NoExecute",
                    }
                ],
            },
            "error",
            "is cordoned (spec.unschedulable) and tainted cubestudio.ascend/upgrade=true:NoExecute",
        ),
    ],
)
def test_a_node_an_upgrade_left_out_of_scheduling(healthy, spec, severity, seen):
    held = node()
    held["spec"] = spec
    healthy["kubernetes"] = cluster(node=held)
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T34" and finding["severity"] == severity
    assert seen in finding["symptom"]
    assert "upgrade.yml" in finding["fix"]


def test_other_taints_are_not_ours(healthy):
    held = node()
    held["spec"] = {
        "taints": [{"key": "dedicated", "value": "ai", "effect": "NoSchedule"}]
    }
    healthy["kubernetes"] = cluster(node=held)
    assert rows(healthy) == []


def test_plugin_not_running(healthy):
    crashing = copy.deepcopy(PLUGIN_POD)
    crashing["status"] = {
        "phase": "Running",
        "containerStatuses": [
            {"ready": False, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
        ],
    }
    healthy["kubernetes"] = cluster(
        pods=[crashing], node=node(allocatable={"cpu": "2"})
    )
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == ["T25", "T27"]
    assert (
        "ascend-device-plugin-daemonset-x1 CrashLoopBackOff" in findings[1]["symptom"]
    )
    healthy["kubernetes"] = cluster(pods=[], daemonsets=[])
    assert rows(healthy) == ["T27"]


def test_fewer_allocatable_than_healthy_chips(healthy):
    healthy["kubernetes"] = cluster(
        node=node(allocatable={"huawei.com/Ascend910": "6"})
    )
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (finding["row"], finding["severity"]) == ("T25", "warning")


def test_allocatable_is_held_to_the_healthy_chips_else_the_pci_count(healthy):
    """The count of healthy chips is _mindcluster.healthy_chips (the device plugin's own rule);
    without npu-smi's view the doctor holds allocatable to the chips on the PCI bus."""
    healthy["npu_smi"]["npus"][1]["chips"][0]["health"] = "Warning"
    healthy["kubernetes"] = cluster(
        node=node(allocatable={"huawei.com/Ascend910": "7"})
    )
    assert "T25" not in rows(healthy)
    healthy["kubernetes"] = cluster(
        node=node(allocatable={"huawei.com/Ascend910": "6"})
    )
    (t25,) = [f for f in diagnose(TABLE, healthy, CATALOGUE) if f["row"] == "T25"]
    assert "Ascend910: 6 allocatable for 7 healthy chip(s)" in t25["symptom"]
    # no chip in npu-smi's view: held to the chips on the PCI bus, not to 0
    healthy["npu_smi"] = {"npus": []}
    pci = healthy["ascend"]["pci_npu_count"]
    healthy["kubernetes"] = cluster(
        node=node(allocatable={"huawei.com/Ascend910": str(pci - 1)})
    )
    (t25,) = [f for f in diagnose(TABLE, healthy, CATALOGUE) if f["row"] == "T25"]
    assert "%d allocatable for %d healthy chip(s)" % (pci - 1, pci) in t25["symptom"]


def test_kubelet_socket(healthy):
    healthy["kubernetes"] = cluster(
        kubelet_socket={
            "path": "/var/lib/kubelet/device-plugins/kubelet.sock",
            "exists": False,
        }
    )
    assert rows(healthy) == ["T29"]
    healthy["kubernetes"] = cluster(kubelet_root="/data/kubelet")
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T29" and "/data/kubelet/device-plugins" in finding["symptom"]
    )


def test_requests_differ_from_limits(healthy):
    pod = {
        "metadata": {"namespace": "default", "name": "train"},
        "spec": {
            "nodeSelector": {"accelerator": "huawei-Ascend910"},
            "containers": [
                {
                    "name": "main",
                    "resources": {
                        "requests": {"huawei.com/Ascend910": "2"},
                        "limits": {"huawei.com/Ascend910": "4"},
                    },
                }
            ],
        },
        "status": {"phase": "Pending"},
    }
    healthy["kubernetes"] = cluster(pending_pods=[pod])
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (
        finding["row"] == "T28"
        and "huawei.com/Ascend910 request 2 limit 4" in finding["symptom"]
    )
    pod["spec"]["nodeSelector"] = {"accelerator": "huawei-Ascend310P"}
    assert rows(healthy) == []


def npu_pod(env=None, memory=None, npus="1", owner=None):
    container = {"name": "main", "resources": {"limits": {}, "requests": {}}}
    if npus:
        container["resources"]["limits"]["huawei.com/Ascend910"] = npus
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    for kind, value in (memory or {}).items():
        container["resources"][kind]["memory"] = value
    meta = {"namespace": "default", "name": "train"}
    if owner:
        meta["ownerReferences"] = [{"kind": owner, "name": "x"}]
    return {
        "metadata": meta,
        "spec": {"nodeName": "atlas-01", "containers": [container]},
        "status": {"phase": "Running"},
    }


def test_a_pod_that_sets_ascend_visible_devices_itself(healthy):
    pods = [
        copy.deepcopy(PLUGIN_POD),
        npu_pod(env={"ASCEND_VISIBLE_DEVICES": "0-3"}, npus=None),
    ]
    healthy["kubernetes"] = cluster(pods=pods)
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T40" and finding["severity"] == "error"
    assert (
        "pod default/train container main sets ASCEND_VISIBLE_DEVICES itself"
        in finding["symptom"]
    )
    assert "requests no huawei.com/Ascend*" in finding["symptom"]
    # With an NPU request it still fights the plugin; a DaemonSet's pod (the plugin's) may.
    pods[1] = npu_pod(env={"ASCEND_VISIBLE_DEVICES": "0"})
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T40" and "requests no" not in finding["symptom"]
    pods[1] = npu_pod(env={"ASCEND_VISIBLE_DEVICES": "0"}, owner="DaemonSet")
    assert rows(healthy) == []


@pytest.mark.parametrize(
    ("memory", "headroom", "found"),
    [
        ({"limits": "64Gi", "requests": "64Gi"}, 30, True),
        ({"limits": "64Gi"}, 30, True),  # the request defaults to the limit
        ({"limits": "80Gi", "requests": "64Gi"}, 30, True),  # 25 %
        ({"limits": "84Gi", "requests": "64Gi"}, 30, False),  # 31 %
        ({"limits": "80Gi", "requests": "64Gi"}, 20, False),
        ({"requests": "64Gi"}, 30, False),  # no limit: no headroom problem
        ({"limits": "90G", "requests": "64Gi"}, 30, False),
        ({"limits": "lots"}, 30, False),  # unreadable: not judged
    ],
)
def test_memory_headroom_of_npu_pods(healthy, memory, headroom, found):
    healthy["kubernetes"] = cluster(
        pods=[copy.deepcopy(PLUGIN_POD), npu_pod(memory=memory)]
    )
    healthy["memory_headroom"] = headroom
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == (["T41"] if found else [])
    if found:
        assert findings[0]["severity"] == "warning"
        assert "less than %d %% headroom" % headroom in findings[0]["symptom"]


def test_memory_headroom_ignores_pods_without_npus(healthy):
    pod = npu_pod(memory={"limits": "1Gi", "requests": "1Gi"}, npus=None)
    healthy["kubernetes"] = cluster(pods=[copy.deepcopy(PLUGIN_POD), pod])
    assert rows(healthy) == []


def test_node_not_in_the_cluster(healthy):
    healthy["kubernetes"] = cluster(node=None)
    assert rows(healthy) == ["T30"]
    healthy["kubernetes"] = cluster(error="Unauthorized")
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert (finding["row"], finding["severity"]) == ("T30", "warning")


def test_skip_rows(healthy):
    healthy["ascend"]["driver"]["complete"] = False
    healthy["skip_rows"] = ["T5"]
    assert rows(healthy) == []


@pytest.mark.parametrize(
    "data, message",
    [
        (None, "schema: 1"),
        ({"schema": 1, "rows": []}, "non-empty"),
        ({"schema": 1, "rows": [{"id": "T1"}]}, "lacks source"),
        (
            {
                "schema": 1,
                "rows": [
                    dict(
                        id="X1",
                        source="s",
                        severity="error",
                        doctor=True,
                        symptom="a",
                        cause="b",
                        fix="c",
                    )
                ],
            },
            "not T<n>",
        ),
        (
            {
                "schema": 1,
                "rows": [
                    dict(
                        id="T1",
                        source="s",
                        severity="fatal",
                        doctor=True,
                        symptom="a",
                        cause="b",
                        fix="c",
                    )
                ],
            },
            "severity",
        ),
        (
            {
                "schema": 1,
                "rows": [
                    dict(
                        id="T1",
                        source="s",
                        severity="error",
                        doctor=True,
                        symptom="a",
                        cause="b",
                        fix="c",
                    )
                ]
                * 2,
            },
            "twice",
        ),
    ],
)
def test_a_malformed_table_is_refused(data, message):
    with pytest.raises(DoctorError, match=message):
        validate_rows(data)


def test_bad_facts_are_refused():
    with pytest.raises(DoctorError, match=r"ansible_facts\.ascend"):
        diagnose(TABLE, {"ascend": {}}, CATALOGUE)
    with pytest.raises(DoctorError, match="no row T12"):
        diagnose(
            {"T1": TABLE["T1"]},
            {
                "ascend": {
                    "pci_npu_count": 1,
                    "driver": {},
                    "npu_smi": {"present": True},
                    "davinci_devices": 1,
                    "device_nodes": {},
                },
                "npu_smi": {
                    "chip_count": 1,
                    "npus": [{"id": 0, "chips": [{"chip": 0, "health": "Alarm"}]}],
                },
            },
            CATALOGUE,
        )


def event(reason, message, name="train", namespace="default", kind="Pod"):
    return {
        "type": "Warning",
        "reason": reason,
        "message": message,
        "count": 3,
        "involvedObject": {"kind": kind, "namespace": namespace, "name": name},
    }


SANDBOX = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd "
    'task: failed to create shim task: OCI runtime create failed: exec: "ascend-docker-runtime": '
    "executable file not found in $PATH"
)
CGROUP = (
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
    "failed: runc create failed: unable to start container process: error during container init: "
    "failed to set up container: devices.allow: write /sys/fs/cgroup/devices/x/devices.allow: "
    "operation not permitted"
)


def test_events_of_pods_on_the_node_name_the_setup_failure(healthy):
    pods = [copy.deepcopy(PLUGIN_POD), npu_pod()]
    events = [
        event("FailedCreatePodSandBox", SANDBOX),
        # The kubelet retries: a second event of the same row is one finding with both.
        event(
            "FailedCreatePodSandBox", SANDBOX.replace("rpc error", "rpc error again")
        ),
        event("Failed", CGROUP),
        # Not on this node, or not a setup failure: not read.
        event("FailedCreatePodSandBox", SANDBOX, name="elsewhere"),
        event("BackOff", "Back-off restarting failed container"),
    ]
    healthy["kubernetes"] = cluster(pods=pods, events=events)
    findings = diagnose(TABLE, healthy, CATALOGUE)
    assert [f["row"] for f in findings] == ["T43", "T44"]
    assert "devices.allow" in findings[0]["symptom"]
    assert findings[1]["symptom"].startswith(
        "on node atlas-01: FailedCreatePodSandBox default/train: Failed to create pod sandbox"
    )
    assert "(x3)" in findings[1]["symptom"]


def pending_npu_pod(name="big", npus="8"):
    pod = npu_pod(npus=npus)
    pod["metadata"]["name"] = name
    del pod["spec"]["nodeName"]
    pod["spec"]["nodeSelector"] = {"accelerator": "huawei-Ascend910"}
    pod["status"] = {"phase": "Pending"}
    return pod


INSUFFICIENT = "0/1 nodes are available: 1 Insufficient huawei.com/Ascend910."


def test_insufficient_npus_all_taken_or_none_advertised(healthy):
    running = npu_pod(npus="8")
    waiting = pending_npu_pod()
    healthy["kubernetes"] = cluster(
        pods=[copy.deepcopy(PLUGIN_POD), running],
        pending_pods=[waiting],
        events=[event("FailedScheduling", INSUFFICIENT, name="big")],
    )
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T25" and finding["severity"] == "warning"
    assert (
        "all 8 advertised NPU(s) are taken (8 requested by pods on the node)"
        in finding["symptom"]
    )
    # None advertised: an error, and the allocatable finding too.
    healthy["kubernetes"] = cluster(
        node=node(allocatable={"cpu": "2", "huawei.com/Ascend910": "0"}),
        pending_pods=[waiting],
        events=[event("FailedScheduling", INSUFFICIENT, name="big")],
    )
    findings = [
        f
        for f in diagnose(TABLE, healthy, CATALOGUE)
        if "scheduler refuses" in f["symptom"]
    ]
    assert findings and findings[0]["severity"] == "error"
    assert "the node advertises no huawei.com/Ascend*" in findings[0]["symptom"]
    # A pod whose nodeSelector does not fit the node is another node's business.
    waiting["spec"]["nodeSelector"] = {"accelerator": "huawei-Ascend310P"}
    healthy["kubernetes"] = cluster(
        pending_pods=[waiting],
        events=[event("FailedScheduling", INSUFFICIENT, name="big")],
    )
    assert rows(healthy) == []


def test_the_plugin_s_log_names_the_kubelet_socket(healthy):
    log = (
        "[INFO] device plugin started.\n"
        "[ERROR] register to kubelet failed, err: check kubelet socket file path failed\n"
        "[WARN] Could not contact Kubelet for Ascend910, retrying. Sleeping 10s\n"
    )
    healthy["kubernetes"] = cluster(plugin_log=log)
    (finding,) = diagnose(TABLE, healthy, CATALOGUE)
    assert finding["row"] == "T29"
    assert "Could not contact Kubelet for Ascend910" in finding["symptom"]
    healthy["kubernetes"] = cluster(
        plugin_log="[INFO] ListAndWatch resp devices: Ascend910-0 Healthy\n"
    )
    assert rows(healthy) == []


def test_plugin_pod_is_the_daemonset_s_pod_on_the_node():
    from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
        plugin_pod,
    )

    other = npu_pod()
    assert plugin_pod([DAEMONSET], [other, copy.deepcopy(PLUGIN_POD)]) == {
        "namespace": "kube-system",
        "name": "ascend-device-plugin-daemonset-x1",
    }
    assert plugin_pod([DAEMONSET], [other]) == {}
    assert plugin_pod([], [copy.deepcopy(PLUGIN_POD)]) == {}


def test_plugin_daemonsets_by_the_given_selector_or_the_image():
    """The selector comes from the caller (the lookup ascend_settings reads data/mindcluster.yml);
    a DaemonSet of a mirrored image under another name is found by it alone."""
    from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._doctor import (
        plugin_daemonsets,
    )

    mirrored = copy.deepcopy(DAEMONSET)
    mirrored["spec"]["template"]["spec"]["containers"][0]["image"] = (
        "registry:5000/npu/plugin:1"
    )
    assert plugin_daemonsets([mirrored], "name=ascend-device-plugin-ds") == [mirrored]
    assert plugin_daemonsets([mirrored], "name=ascend-device-plugin-ds,tier=npu") == []
    assert plugin_daemonsets([mirrored], "") == []
    assert plugin_daemonsets([mirrored]) == []
    # Huawei's image is known without a selector.
    assert plugin_daemonsets([DAEMONSET]) == [DAEMONSET]
