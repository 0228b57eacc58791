# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_preflight: the checks of the preflight role, on the facts ascend_facts reads from sandbox
nodes built of real installed files (../conftest.py), the plan of the collection's
data/catalogue.yml, the version matrix data/version_matrix.yml, the rules data/iommu.yml and the
free space ascend_host_facts reads of real directories."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.cubestudio.ascend.plugins.module_utils._checks._preflight import (
    ARGUMENT_SPEC,
    CHECKS,
    GIB,
    PreflightError,
    check_space,
    run,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _host
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._iommu import (
    validate_rules,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._node_plan import (
    plan,
    validate_catalogue,
)
from ansible_collections.cubestudio.ascend.plugins.modules import ascend_facts

DATA = Path(__file__).resolve().parents[5] / "data"
# The checks of a node without package verification, in the order they are reported.
REPORTED = [c for c in CHECKS if c != "packages"]


def _load(name, validate):
    return validate(yaml.safe_load((DATA / name).read_text()))


@pytest.fixture(scope="module")
def data():
    return {
        "catalogue": _load("catalogue.yml", validate_catalogue),
        "matrix": _load("version_matrix.yml", validate_matrix),
        "iommu": _load("iommu.yml", validate_rules),
    }


def _space(path: Path, free_gb: float, mount: str = "/") -> dict:
    free = int(free_gb * GIB)
    return {
        "path": str(path),
        "exists": True,
        "checked_path": str(path),
        "mount": mount,
        "fstype": "xfs",
        "size_bytes": 4 * free,
        "free_bytes": free,
        "free_gb": round(free / float(GIB), 1),
    }


@pytest.fixture
def node(ascend_node, tmp_path, data):
    """A 910B node with driver 23.0.7 installed ("full" sandbox), Debian 12 on aarch64."""

    def build(layout="full", cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet"):
        root, sysfs = ascend_node(layout)
        proc = tmp_path / ("proc-" + layout)
        proc.mkdir(exist_ok=True)
        (proc / "cmdline").write_text(cmdline + "\n")
        ascend = ascend_facts.gather(root, sysfs, None, proc_root=str(proc))
        node_plan = plan(
            data["catalogue"],
            {
                "facts": ascend,
                "architecture": "aarch64",
                "driver_version": "25.5.0",
                "firmware_version": "7.8.0.5.216",
                "manage_firmware": True,
                "checksums": {},
                "local_dir": "",
                "cann_packages": ["toolkit"],
                "cann_keep_old_versions": True,
            },
        )
        facts = {
            "ascend": ascend,
            "ascend_host": {
                "space": {
                    "/usr/local/Ascend": _space(Path("/usr/local/Ascend"), 158.6, "/"),
                    "/tmp": _space(Path("/tmp"), 15.5, "/tmp"),
                },
                # Every tool of the driver installer found, the either-or chkconfig not.
                "programs": dict(
                    {
                        t: "/usr/bin/" + t
                        for t in node_plan["npu_driver"]["probed_tools"]
                    },
                    chkconfig=None,
                    dkms="/usr/sbin/dkms",
                    docker=None,
                    containerd="/usr/bin/containerd",
                ),
                "kernel": {
                    "release": "6.1.0-28-arm64",
                    "build_dir": "/lib/modules/6.1.0-28-arm64/build",
                    "headers": True,
                },
            },
            "distribution": "Ubuntu",
            "distribution_version": "22.04",
            "architecture": "aarch64",
            "python_version": "3.11.2",
            "python": {"executable": "/usr/bin/python3"},
            "memtotal_mb": 515072,
        }
        return {"facts": facts, "plan": node_plan}

    return build


def params(node, **kw) -> dict:
    base = {key: spec.get("default") for key, spec in ARGUMENT_SPEC.items()}
    base.update(
        facts=node["facts"],
        plan=node["plan"],
        host="atlas-01",
        fleet=[
            {
                "host": "atlas-01",
                "user": node["facts"]["ascend"]["hwhiaiuser"],
                "uid_owners": {
                    "HwHiAiUser": [
                        "x",
                        "1000",
                        "1000",
                        "",
                        "/home/HwHiAiUser",
                        "/bin/bash",
                    ]
                },
                "gid_owners": {"HwHiAiUser": ["x", "1000", ""]},
            }
        ],
        driver_version="25.5.0",
        firmware_version="7.8.0.5.216",
        cann_version="8.5.0",
        runtime_version="7.3.0",
    )
    base.update(kw)
    return base


def by_check(verdict) -> dict:
    return {r["check"]: r for r in verdict["results"]}


def test_a_good_node_passes_every_check(node, data):
    n = node()
    verdict = run(params(n), data["matrix"], data["iommu"])
    results = by_check(verdict)
    assert [r["check"] for r in verdict["results"]] == REPORTED
    assert [r["check"] for r in verdict["results"] if not r["ok"]] == []
    assert (
        verdict["msg"] == ""
        and verdict["failed"] is False
        and verdict["findings"] == []
    )
    assert results["os"]["message"] == "Ubuntu 22.04 on aarch64, Ascend 910B"
    assert (
        results["npu_devices"]["message"]
        == "4 Ascend PCI function(s), 910B (Atlas 800T A2 / Atlas 900 A2 PoD)"
    )
    assert (
        results["disk"]["message"]
        == "158.6 GB free under /usr/local/Ascend (xfs on /), 20 GB needed"
    )
    assert (
        results["hwhiaiuser"]["message"]
        == "HwHiAiUser uid 1000, gid 1000, wanted 1000/1000 on all 1 node(s) of the play"
    )
    assert results["container_engine"]["message"] == "found: containerd (wanted: auto)"
    assert results["iommu"]["message"] == "kernel command line: no IOMMU parameter"
    assert results["versions"]["message"] == (
        "driver 25.5.0, firmware 7.8.0.5.216, CANN 8.5.0, Ascend Docker Runtime 7.3.0 (policy strict)"
    )
    assert verdict["lines"][0] == "ok      os: Ubuntu 22.04 on aarch64, Ascend 910B"
    assert all(
        r["skipped"] is False and r["cause"] == "" == r["fix"]
        for r in verdict["results"]
    )


def test_two_paths_on_one_file_system_add_up(node, data, tmp_path):
    """Issue 23, "enough disk?": the install path and the temporary directory on ONE file system
    (two real directories under tmp_path, read as ascend_host_facts reads them), each with enough
    free space alone (0.6 of it) but not both together. A check per path passes both; the sum
    per file system (_space.py, the rule npu_driver refuses by) fails both."""
    install = tmp_path / "Ascend"
    scratch = tmp_path / "tmp"
    install.mkdir()
    scratch.mkdir()
    mounts = _host.parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    space = {str(p): _host.space(str(p), mounts) for p in (install, scratch)}
    assert space[str(install)]["mount"] == space[str(scratch)]["mount"]
    free_gb = space[str(install)]["free_bytes"] / GIB
    share = round(free_gb * 0.6, 3)
    settings = {
        "install_path": str(install),
        "tmp_path": str(scratch),
        "min_free_gb": share,
        "min_free_tmp_gb": share,
    }
    # Each path alone: enough.
    for need in ("tmp", "disk"):
        alone = check_space(space, settings, skip=[need])
        assert [r["ok"] for r in alone] == [True, True], alone
    # Together, per file system: the sum does not fit, and both checks say why.
    disk, tmp = check_space(space, settings)
    assert disk["ok"] is False and tmp["ok"] is False
    mount = space[str(install)]["mount"]
    for result in (disk, tmp):
        assert result["cause"].startswith(f"the file system {mount} needs ")
        assert f"for preflight_min_free_gb in {install}" in result["cause"]
        assert f"for preflight_min_free_tmp_gb in {scratch}" in result["cause"]
        assert "(its paths share its free space)" in result["cause"]
    # Through run(): the refusal lists disk and tmp, nothing else.
    n = node()
    n["facts"]["ascend_host"]["space"] = space
    verdict = run(params(n, **settings), data["matrix"], data["iommu"])
    assert [r["check"] for r in verdict["results"] if not r["ok"]] == ["disk", "tmp"]
    assert verdict["msg"].startswith(
        "Preflight refused atlas-01: 2 of 13 checks failed."
    )
    assert [f["row"] for f in verdict["findings"]] == ["T32", "T32"]


def test_one_message_lists_every_failed_check(node, data):
    n = node()
    host = n["facts"]["ascend_host"]
    host["programs"].update(lspci=None, ifconfig=None, containerd=None)
    host["kernel"]["headers"] = False
    n["facts"]["memtotal_mb"] = 4096
    n["facts"]["distribution"], n["facts"]["distribution_version"] = "Debian", "12"
    verdict = run(
        params(
            n,
            expected_npu_count=7,
            min_free_gb=100000,
            hwhiaiuser_uid=1,
            hwhiaiuser_gid=1,
            cann_version="8.0.0",
            fleet=[
                {
                    "host": "atlas-01",
                    "user": n["facts"]["ascend"]["hwhiaiuser"],
                    "uid_owners": {"daemon": ["x", "1", "1"]},
                    "gid_owners": {"daemon": ["x", "1", ""]},
                }
            ],
        ),
        data["matrix"],
        data["iommu"],
    )
    failed = [r["check"] for r in verdict["results"] if not r["ok"]]
    assert failed == [
        "os",
        "npu_devices",
        "disk",
        "memory",
        "kernel_headers",
        "driver_tools",
        "hwhiaiuser",
        "container_engine",
        "versions",
    ]
    msg = verdict["msg"]
    lines = msg.splitlines()
    assert lines[0] == (
        "Preflight refused atlas-01: 9 of 13 checks failed. Nothing was changed on the node."
    )
    assert [line.split(":")[0][2:] for line in lines if line.startswith("- ")] == failed
    assert all(
        line.endswith(".") and ". Fix: " in line
        for line in lines
        if line.startswith("- ")
    )
    assert lines[-1].startswith("Every result is in the fact preflight_results.")
    assert "Debian 12 is not a supported OS for Ascend 910B" in msg
    assert (
        "4 Ascend PCI functions are on the bus but preflight_expected_npu_count is 7"
        in msg
    )
    assert "100000 GB are needed (preflight_min_free_gb)" in msg
    assert "lspci and ifconfig not found on the PATH" in msg
    assert "The list of missing tools: lspci,ifconfig," in msg
    assert "/lib/modules/6.1.0-28-arm64/build does not exist" in msg
    assert "uid 1, wanted for HwHiAiUser, belongs to user daemon" in msg
    assert "gid 1, wanted for group HwHiAiUser, belongs to group daemon" in msg
    assert "CANN 8.0.0 is not the matched set of driver 25.5.0" in msg
    assert verdict["failed"] is True
    rows = {f["check"]: f["row"] for f in verdict["findings"]}
    assert (
        rows["driver_tools"] == "T7"
        and rows["kernel_headers"] == "T8"
        and rows["os"] == ""
    )
    assert set(verdict["findings"][0]) == {
        "row",
        "check",
        "symptom",
        "cause",
        "fix",
        "severity",
    }


def test_skipped_and_warned_checks(node, data):
    n = node()
    n["facts"]["memtotal_mb"] = 4096
    n["facts"]["ascend_host"]["programs"]["containerd"] = None
    verdict = run(
        params(
            n,
            skip_checks=["memory"],
            warn_checks=["container_engine"],
            expected_npu_count=7,
        ),
        data["matrix"],
        data["iommu"],
    )
    results = by_check(verdict)
    memory = results["memory"]
    assert memory["ok"] and memory["skipped"] and memory["severity"] == "info"
    assert (
        memory["message"]
        == "skipped (preflight_skip_checks); seen: 4.0 GB of memory, 8 GB needed"
    )
    assert results["container_engine"]["severity"] == "warning"
    assert verdict["msg"].startswith(
        "Preflight refused atlas-01: 1 of 13 checks failed."
    )
    assert (
        "Warnings (they do not stop the run):\n- container_engine: " in verdict["msg"]
    )
    assert "skipped memory: skipped" in "\n".join(verdict["lines"])
    # Warnings alone never refuse the node.
    verdict = run(
        params(n, skip_checks=["memory"], warn_checks=["container_engine"]),
        data["matrix"],
        data["iommu"],
    )
    assert verdict["msg"] == "" and verdict["failed"] is False


def test_hwhiaiuser_elsewhere_in_the_play_warns(node, data):
    n = node()
    other = {
        "host": "atlas-02",
        "user": {"uid": 1001, "gid": 1001, "group_gid": 1001},
        "uid_owners": {"1000": None},
        "gid_owners": {"1000": None},
    }
    p = params(n)
    p["fleet"] = p["fleet"] + [other]
    mine = by_check(run(p, data["matrix"], data["iommu"]))["hwhiaiuser"]
    assert mine["ok"] is False and mine["severity"] == "warning"
    assert mine["cause"].startswith(
        "this node is right, but elsewhere in the play: atlas-02: HwHiAiUser has uid 1001 (1000 wanted)"
    )
    theirs = by_check(run(dict(p, host="atlas-02"), data["matrix"], data["iommu"]))[
        "hwhiaiuser"
    ]
    assert theirs["severity"] == "error"
    assert theirs["cause"].startswith(
        "on this node HwHiAiUser has uid 1001 (1000 wanted), its primary group is gid 1001 (1000 wanted), "
        "group HwHiAiUser has gid 1001 (1000 wanted). Containers run NPU jobs as HwHiAiUser"
    )


def test_a_strict_firmware_warning_refuses_as_npu_driver_does(node, data):
    n = node()
    verdict = run(
        params(n, firmware_version="7.8.0.9.999"), data["matrix"], data["iommu"]
    )
    versions = by_check(verdict)["versions"]
    assert versions["severity"] == "error"
    assert (
        "firmware 7.8.0.9.999 is not a build seen with HDK 25.5.0" in versions["cause"]
    )
    loose = run(
        params(n, firmware_version="7.8.0.9.999", compat_policy="tolerant"),
        data["matrix"],
        data["iommu"],
    )
    assert by_check(loose)["versions"]["severity"] != "error"


def test_the_driver_that_stays_needs_no_headers_nor_tools(node, data):
    n = node()
    n["facts"]["ascend_host"]["kernel"]["headers"] = False
    n["facts"]["ascend_host"]["programs"]["lspci"] = None
    stays = {"facts": n["facts"], "plan": copy.deepcopy(n["plan"])}
    stays["plan"]["npu_driver"]["driver_changes"] = False
    results = by_check(run(params(stays), data["matrix"], data["iommu"]))
    for name in ("kernel_headers", "driver_tools"):
        assert results[name]["ok"], results[name]
        assert results[name]["message"].endswith("(not needed: driver 23.0.7 stays)")


def test_iommu_in_translated_mode_warns(node, data):
    n = node(cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro intel_iommu=on quiet")
    verdict = run(params(n), data["matrix"], data["iommu"])
    iommu = by_check(verdict)["iommu"]
    assert iommu["ok"] is False and iommu["severity"] == "warning"
    assert iommu["cause"].startswith("[T45] ")
    assert verdict["msg"] == ""


def test_packages_verified_on_the_controller(node, data):
    n = node()
    files = n["plan"]["packages"]
    results = [{"item": files[0], "size": 10}] + [
        {
            "item": f,
            "failed": False,
            "msg": "no sha256 is known",
            "fix": "add it to ascend_artifact_checksums",
        }
        for f in files[1:]
    ]
    verdict = run(
        params(
            n,
            verify_packages=True,
            artifact_local_dir="/srv/ascend",
            package_results=results,
        ),
        data["matrix"],
        data["iommu"],
    )
    packages = by_check(verdict)["packages"]
    assert [r["check"] for r in verdict["results"]][-1] == "packages"
    assert packages["ok"] is (len(files) == 1)
    if len(files) > 1:
        assert packages["cause"].startswith(f"{files[1]}: no sha256 is known.")
        assert (
            packages["fix"] == "add it to ascend_artifact_checksums (docs/artifacts.md)"
        )


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p: p["facts"].pop("ascend_host"), "ansible_facts lacks ascend_host"),
        (
            lambda p: p["facts"]["ascend"].pop("pci_npu_count"),
            "ansible_facts.ascend lacks pci_npu_count",
        ),
        (
            lambda p: p.update(min_free_gb="lots"),
            "preflight_min_free_gb must be a number",
        ),
        (
            lambda p: p.update(skip_checks=["disks"]),
            "name checks that do not exist: disks",
        ),
        (
            lambda p: p.update(host="elsewhere"),
            "fleet has no HwHiAiUser ids of elsewhere",
        ),
        (lambda p: p["plan"].pop("npu_driver"), "plan lacks npu_driver"),
        (
            lambda p: p.update(compat_policy="lenient"),
            "the version matrix cannot judge",
        ),
    ],
)
def test_bad_input_is_a_clear_error(node, data, change, message):
    p = params(copy.deepcopy(node()))
    change(p)
    with pytest.raises(PreflightError, match=message):
        run(p, data["matrix"], data["iommu"])


def test_the_installed_driver_range_is_held_against_the_firmware(node, data):
    """Driver 23.0.7 stays (its version.info accepts firmware [7.0.0,7.1.99]); firmware
    7.8.0.5.216 is about to be flashed: the versions check fails, naming the range."""
    n = node()
    n["plan"] = copy.deepcopy(n["plan"])
    n["plan"]["npu_driver"]["driver_changes"] = False
    verdict = run(
        params(n, driver_version="23.0.7", cann_version="", runtime_version=""),
        data["matrix"],
        data["iommu"],
    )
    versions = by_check(verdict)["versions"]
    assert versions["ok"] is False and versions["severity"] == "error", versions
    assert "[7.0.0,7.1.99]" in versions["cause"]
    assert "7.8.0.5.216" in versions["cause"]
