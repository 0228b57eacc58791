# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ascend_compat's logic against the collection's real matrix (data/version_matrix.yml)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._evaluation import (
    ARGUMENT_SPEC,
    evaluate,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    FAMILIES,
    MatrixError,
    find_release,
    matched_set,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._refusals import (
    refusals,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._node._pci import (
    FAMILIES as PCI_FAMILIES,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._version import compare

COLLECTION = Path(__file__).resolve().parents[5]
MATRIX_FILE = COLLECTION / "data" / "version_matrix.yml"
INSTALLED = Path(__file__).parents[1] / "fixtures" / "installed-files"


@pytest.fixture(scope="module")
def matrix():
    return validate_matrix(yaml.safe_load(MATRIX_FILE.read_text()))


def rules(result, severity=None):
    return [
        f["rule"]
        for f in result["findings"]
        if severity is None or f["severity"] == severity
    ]


def only(result, rule):
    found = [f for f in result["findings"] if f["rule"] == rule]
    assert len(found) == 1, result["findings"]
    return found[0]


# --- the matrix itself --------------------------------------------------------------------------


def test_matrix_rows_in_release_order(matrix):
    hdks = [row["hdk"] for row in matrix["releases"]]
    assert hdks == sorted(hdks, key=functools.cmp_to_key(compare))
    assert hdks[0] == "6.0.RC1"
    assert hdks[-1] == "26.1.0"


def test_matrix_keeps_guess_flags(matrix):
    row = next(r for r in matrix["releases"] if r["hdk"] == "23.0.0")
    assert row["cann"]["guess"] is True
    assert row["mindcluster"]["guess"] is True
    flagged = [
        r["hdk"] for r in matrix["releases"] if (r.get("cann") or {}).get("guess")
    ]
    assert flagged == ["23.0.0"]


def test_matrix_sources_are_declared(matrix):
    used = set()
    for row in matrix["releases"]:
        for part in ("cann", "mindcluster"):
            used.update((row.get(part) or {}).get("evidence") or [])
        for entry in row.get("firmware") or []:
            used.update(entry["evidence"])
    assert used <= set(matrix["sources"])


def test_matrix_hardware_table_agrees_with_pci_module(matrix):
    from_matrix = {d["device_id"]: d["family"] for d in matrix["hardware"]["devices"]}
    assert from_matrix == {
        device: family for device, (family, _chip) in PCI_FAMILIES.items()
    }
    assert set(matrix["os_support"]) <= set(FAMILIES)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda m: m.update(schema=2), "matrix.schema: must be 1, got 2"),
        (lambda m: m.update(releases=[]), "matrix.releases: must be a non-empty list"),
        (
            lambda m: m["releases"][0].update(hdk=6.0),
            "matrix.releases[0].hdk: must be a version string (quote it in YAML), got 6.0",
        ),
        (
            lambda m: m["releases"][1].update(hdk="6.0.RC1"),
            "matrix.releases[1].hdk: 6.0.RC1 is listed twice (also at index 0)",
        ),
        (
            lambda m: m["releases"][2]["cann"].update(version="x.y"),
            "matrix.releases[2].cann.version: 'x.y' is not a version",
        ),
        (
            lambda m: m["releases"][2].update(firmware={}),
            "matrix.releases[2].firmware: must be a list",
        ),
        (
            lambda m: m["tolerance"]["mindcluster"][0].update(cann_lines=[8.5]),
            "matrix.tolerance.mindcluster[0].cann_lines",
        ),
        (
            lambda m: m["os_support"]["910B"]["os"][0].update(versions=[21.1]),
            "matrix.os_support.910B.os[0]",
        ),
        (
            lambda m: m["releases"][8].update(driver_compatible_firmware="7.0.0"),
            "matrix.releases[8].driver_compatible_firmware",
        ),
    ],
)
def test_malformed_matrix(matrix, mutate, message):
    broken = copy.deepcopy(matrix)
    mutate(broken)
    with pytest.raises(MatrixError) as error:
        validate_matrix(broken)
    assert str(error.value).startswith(message)


def test_not_a_mapping():
    with pytest.raises(MatrixError, match="matrix: must be a mapping"):
        validate_matrix(["releases"])


# --- matched sets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("driver", "family", "expected"),
    [
        (
            "24.1.rc3",
            "910B",
            ("24.1.RC3", "7.5.0.1.129", "8.0.RC3", "6.0.RC3", False, None),
        ),
        (
            "24.1.RC3",
            None,
            ("24.1.RC3", "7.5.0.1.129", "8.0.RC3", "6.0.RC3", False, None),
        ),
        ("24.1.0", "310P", ("24.1.0", "7.5.0.2.220", "8.0.0", "6.0.0", False, None)),
        ("23.0.rc2.2", "910B", ("23.0.RC2", None, "6.3.RC2", "5.0.RC2", False, None)),
        ("23.0.7", "910", ("23.0.7", "7.1.0.11.220", "7.0.0", "5.0.0", True, "23.0.0")),
        ("23.0.2", "910", ("23.0.0", None, "7.0.0", "5.0.0", True, None)),
        (
            "25.0.rc1.3",
            "A3",
            ("25.0.RC1", "7.7.0.3.228", "8.1.RC1", "7.0.RC1", False, None),
        ),
        ("25.5.1", "910B", ("25.5.0", "7.8.0.6.201", "8.5.0", "7.3.0", False, None)),
        ("26.0.rc1", "910B", ("26.0.RC1", None, "9.0.0", "26.0.0", False, None)),
    ],
)
def test_matched_set(matrix, driver, family, expected):
    result = matched_set(matrix, driver_version=driver, family=family)
    got = (
        result["hdk"],
        result["firmware"],
        result["cann"],
        result["mindcluster"],
        result["guess"],
        result["inherited_from"],
    )
    assert got == expected
    assert result["docker_runtime"] == result["mindcluster"]
    assert result["driver"] == driver


def test_matched_set_by_cann(matrix):
    result = matched_set(matrix, cann_version="8.0.rc3")
    assert (result["hdk"], result["driver"], result["mindcluster"]) == (
        "24.1.RC3",
        "24.1.rc3",
        "6.0.RC3",
    )
    assert matched_set(matrix, cann_version="7.0.1")["hdk"] == "23.0.0"
    assert matched_set(matrix, cann_version="5.1.0") is None
    assert matched_set(matrix) is None


def test_find_release_unknown(matrix):
    assert find_release(matrix, "99.0.0") == (None, None)
    assert find_release(matrix, "24.1.rc9") == (None, None)


# --- evaluation -------------------------------------------------------------------------------


def test_nothing_given_is_ok(matrix):
    assert evaluate(matrix, {}) == {
        "ok": True,
        "policy": "strict",
        "findings": [],
        "refused": [],
        "recommended": None,
    }


def test_real_pair_23_0_7_with_version_info_ranges(matrix):
    result = evaluate(
        matrix,
        {
            "driver_version": "23.0.7",
            "firmware_version": "7.1.0.11.220",
            "driver_compatible_firmware": "[7.0.0,7.1.99]",
            "firmware_compatible_driver": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
            "npu_family": "910",
        },
    )
    assert result["ok"] is True
    assert rules(result) == ["matrix.guess"]
    assert result["recommended"]["firmware"] == "7.1.0.11.220"


def test_firmware_refuses_a_newer_driver(matrix):
    result = evaluate(
        matrix,
        {
            "driver_version": "24.1.0",
            "firmware_version": "7.1.0.11.220",
            "firmware_compatible_driver": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
        },
    )
    assert result["ok"] is False
    finding = only(result, "firmware.accepts-driver")
    assert finding["severity"] == "error"
    assert finding["component"] == "driver"
    assert finding["message"] == (
        "firmware 7.1.0.11.220 accepts drivers [23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.] (its version.info); driver 24.1.0 is outside"
    )


def test_driver_refuses_firmware_from_the_matrix_copy_of_version_info(matrix):
    result = evaluate(
        matrix, {"driver_version": "24.1.rc1", "firmware_version": "7.3.0.1.231"}
    )
    finding = only(result, "driver.accepts-firmware")
    assert finding["message"] == (
        "driver 24.1.rc1 accepts firmware [7.0.0,7.2.99] (the version.info of driver 24.1.RC1 (matrix)); firmware 7.3.0.1.231 is outside"
    )


def test_driver_24_1_rc1_with_firmware_7_1_0_11_220_is_accepted(matrix):
    # The doc example in the driver-version.info.24.1.rc1 source pairs exactly these.
    ranges = (
        (INSTALLED / "driver-version.info.24.1.rc1")
        .read_text()
        .split("compatible_version_fw=")[1]
        .split()[0]
    )
    result = evaluate(
        matrix,
        {
            "driver_version": "24.1.rc1",
            "firmware_version": "7.1.0.11.220",
            "driver_compatible_firmware": ranges,
        },
    )
    assert "driver.accepts-firmware" not in rules(result)


def test_firmware_not_seen_with_the_release(matrix):
    strict = evaluate(
        matrix,
        {
            "driver_version": "24.1.rc3",
            "firmware_version": "7.5.0.9.999",
            "npu_family": "910B",
        },
    )
    assert only(strict, "driver.firmware.matrix")["severity"] == "warning"
    assert (
        only(strict, "driver.firmware.matrix")["message"]
        == "firmware 7.5.0.9.999 is not a build seen with HDK 24.1.RC3 (7.5.0.1.129)"
    )
    tolerant = evaluate(
        matrix,
        {
            "driver_version": "24.1.rc3",
            "firmware_version": "7.5.0.9.999",
            "policy": "tolerant",
        },
    )
    assert only(tolerant, "driver.firmware.matrix")["severity"] == "info"
    unknown = evaluate(
        matrix, {"driver_version": "26.1.0", "firmware_version": "7.9.0.1.1"}
    )
    assert only(unknown, "driver.firmware.matrix")["severity"] == "info"


def test_strict_refuses_a_firmware_build_never_seen_with_the_release(matrix):
    """preflight and npu_driver refuse on `refused`: under strict a firmware build the matrix never
    saw with the driver's HDK release is refused by both (issue 23: preflight passed it, npu_driver
    refused it); tolerant refuses nothing of it; errors are refused under every policy."""
    versions = {
        "driver_version": "24.1.rc3",
        "firmware_version": "7.5.0.9.999",
        "npu_family": "910B",
    }
    strict = evaluate(matrix, dict(versions, policy="strict"))
    assert [f["rule"] for f in strict["refused"]] == ["driver.firmware.matrix"]
    assert strict["refused"][0]["severity"] == "warning"
    assert refusals(strict["findings"], "strict") == strict["refused"]
    tolerant = evaluate(matrix, dict(versions, policy="tolerant"))
    assert tolerant["refused"] == []
    # A warning of another rule is shown, never refused.
    other = {"rule": "cann.known", "severity": "warning"}
    assert refusals([other], "strict") == []
    error = {"rule": "firmware.accepts-driver", "severity": "error"}
    assert refusals([error, other], "tolerant") == [error]


def test_blog_pairing_23_0_rc2_with_cann_7_0_0(matrix):
    result = evaluate(matrix, {"driver_version": "23.0.rc2", "cann_version": "7.0.0"})
    assert result["ok"] is False
    finding = only(result, "cann.matched")
    assert finding["severity"] == "error"
    assert finding["message"] == (
        "CANN 7.0.0 is not the matched set of driver 23.0.rc2: Huawei's bundles pair HDK 23.0.RC2 with CANN 6.3.RC2; "
        "CANN 7.0.0 belongs to HDK 23.0.0 (a guess)"
    )
    assert finding["fix"].startswith(
        "install CANN 6.3.RC2, or the driver of HDK 23.0.0"
    )
    assert result["recommended"]["cann"] == "6.3.RC2"


def test_cann_mismatch_is_a_warning_when_tolerant(matrix):
    result = evaluate(
        matrix,
        {"driver_version": "23.0.rc2", "cann_version": "7.0.0", "policy": "tolerant"},
    )
    assert result["ok"] is True
    assert only(result, "cann.matched")["severity"] == "warning"


def test_field_proven_mix_is_a_note_when_tolerant(matrix):
    tolerant = evaluate(
        matrix,
        {"driver_version": "25.2.0", "cann_version": "8.5.0", "policy": "tolerant"},
    )
    finding = only(tolerant, "cann.matched")
    assert finding["severity"] == "info"
    assert finding["message"].endswith(
        "(this mix is seen working: vllm-ascend issue 6271)"
    )
    strict = evaluate(matrix, {"driver_version": "25.2.0", "cann_version": "8.5.0"})
    assert only(strict, "cann.matched")["severity"] == "error"


def test_case_insensitive_match(matrix):
    result = evaluate(
        matrix,
        {
            "driver_version": "24.1.RC3",
            "cann_version": "8.0.rc3",
            "mindcluster_version": "v6.0.RC3",
            "docker_runtime_version": "6.0.rc3",
        },
    )
    assert result["findings"] == []
    assert result["ok"] is True


def test_patch_levels_are_the_same_release(matrix):
    result = evaluate(
        matrix, {"driver_version": "24.1.rc3.7", "cann_version": "8.0.RC3.alpha001"}
    )
    assert result["findings"] == []


def test_unknown_cann_and_driver(matrix):
    result = evaluate(matrix, {"driver_version": "99.1.0", "cann_version": "5.1.RC1"})
    assert rules(result) == ["driver.known", "cann.known"]
    assert result["ok"] is True
    assert result["recommended"] is None


def test_mindcluster_strict(matrix):
    result = evaluate(
        matrix, {"driver_version": "24.1.0", "mindcluster_version": "6.0.RC3"}
    )
    finding = only(result, "mindcluster.matched")
    assert finding["severity"] == "error"
    assert (
        finding["message"]
        == "MindCluster 6.0.RC3 is not the matched set of driver 24.1.0: HDK 24.1.0 is bundled with MindCluster 6.0.0"
    )


def test_mindcluster_tolerance_tables(matrix):
    inside = evaluate(
        matrix,
        {
            "driver_version": "25.5.0",
            "cann_version": "9.1.0",
            "mindcluster_version": "26.0.0",
            "policy": "tolerant",
        },
    )
    assert [f for f in inside["findings"] if f["rule"].startswith("mindcluster")] == []
    outside = evaluate(
        matrix,
        {
            "driver_version": "25.2.0",
            "cann_version": "8.2.RC1",
            "mindcluster_version": "26.0.0",
            "policy": "tolerant",
        },
    )
    assert rules(outside, "error") == [
        "mindcluster.tolerance.hdk",
        "mindcluster.tolerance.cann",
    ]
    assert only(outside, "mindcluster.tolerance.hdk")["message"] == (
        "MindCluster 26.0.0 is documented for HDK 25.5.x, 26.0.x, not for driver 25.2.0"
    )
    no_table = evaluate(
        matrix,
        {
            "driver_version": "24.1.0",
            "mindcluster_version": "6.0.RC3",
            "policy": "tolerant",
        },
    )
    assert only(no_table, "mindcluster.matched")["severity"] == "warning"


def test_docker_runtime_must_match_the_device_plugin(matrix):
    result = evaluate(
        matrix, {"mindcluster_version": "6.0.RC3", "docker_runtime_version": "v6.0.0"}
    )
    finding = only(result, "docker_runtime.mindcluster")
    assert finding["severity"] == "error"
    assert (
        finding["message"]
        == "Ascend Docker Runtime v6.0.0 and device plugin 6.0.RC3 must be the same release"
    )
    tolerant = evaluate(
        matrix,
        {
            "mindcluster_version": "6.0.RC3",
            "docker_runtime_version": "6.0.0",
            "policy": "tolerant",
        },
    )
    assert tolerant["ok"] is False


def test_docker_runtime_minimum(matrix):
    result = evaluate(matrix, {"docker_runtime_version": "3.0.0"})
    assert only(result, "docker_runtime.minimum")["message"] == (
        "Ascend Docker Runtime 3.0.0 is older than 5.0.RC1, the oldest the device plugin supports"
    )


def test_containerd_2_needs_docker_runtime_26_1(matrix):
    result = evaluate(
        matrix, {"docker_runtime_version": "7.3.0", "containerd_version": "2.1.4"}
    )
    assert rules(result) == ["containerd.config-v3"]
    assert only(result, "containerd.config-v3")["severity"] == "warning"
    assert (
        evaluate(
            matrix, {"docker_runtime_version": "26.1.0", "containerd_version": "2.1.4"}
        )["findings"]
        == []
    )
    assert (
        evaluate(
            matrix, {"docker_runtime_version": "7.3.0", "containerd_version": "1.7.22"}
        )["findings"]
        == []
    )


def test_container_stack_ranges(matrix):
    result = evaluate(
        matrix,
        {
            "kubernetes_version": "1.35.0",
            "docker_version": "17.03.2",
            "containerd_version": "2.2.0",
        },
    )
    assert rules(result, "warning") == [
        "stack.docker",
        "stack.containerd",
        "stack.kubernetes",
    ]
    assert (
        only(result, "stack.kubernetes")["message"]
        == "kubernetes 1.35.0 is outside 1.17 - 1.34, what MindCluster 26.0.0 documents"
    )
    fine = evaluate(
        matrix,
        {
            "kubernetes_version": "1.34.2",
            "docker_version": "28.5.1",
            "containerd_version": "1.6.33",
        },
    )
    assert fine["findings"] == []


@pytest.mark.parametrize(
    ("family", "os_id", "os_version", "arch", "supported"),
    [
        ("910B", "openEuler", "22.03 LTS SP4", "aarch64", True),
        ("910B", "openeuler", "22.03-SP4", None, True),
        ("910B", "openEuler", "20.03", "aarch64", False),
        ("910B", "Ubuntu", "22.04.4", "x86_64", True),
        ("910B", "Ubuntu", "22.04", "x86_64", True),
        ("910B", "Ubuntu", "20.04", "x86_64", False),
        ("310", "Ubuntu", "18.04", "x86_64", True),
        ("310", "Ubuntu", "18.04", "aarch64", False),
        ("310", "Ubuntu", "18.04", "amd64", True),
        ("A3", "Kylin", "V10 Halberd", "aarch64", True),
        ("A5", "openEuler", "22.03-SP4", "x86_64", True),
        ("910", "Debian", "12", "x86_64", False),
        ("910", "Kylin Linux Advanced Server", "V10 Sword", "aarch64", True),
        ("910B", "BigCloud Enterprise Linux", "21.10 U4", "aarch64", True),
        ("910B", "Kylinsoft", "V10", "aarch64", False),
    ],
)
def test_os_support(matrix, family, os_id, os_version, arch, supported):
    params = {
        "npu_family": family,
        "os_id": os_id,
        "os_version": os_version,
        "arch": arch,
    }
    result = evaluate(matrix, params)
    assert ("os.supported" in rules(result)) is not supported
    if not supported:
        assert only(result, "os.supported")["severity"] == "error"
        assert (
            evaluate(matrix, {**params, "policy": "tolerant"})["findings"][0][
                "severity"
            ]
            == "warning"
        )


def test_os_without_data_and_unknown_family(matrix):
    assert rules(
        evaluate(
            matrix, {"npu_family": "310B", "os_id": "ubuntu", "os_version": "22.04"}
        )
    ) == ["os.no-data"]
    result = evaluate(matrix, {"npu_family": "920", "os_id": "ubuntu"})
    assert rules(result) == ["family.unknown"]
    assert (
        evaluate(
            matrix, {"npu_family": "910b", "os_id": "openEuler", "os_version": "22.03"}
        )["findings"]
        == []
    )


def test_lifecycle_minimum_for_a_known_product(matrix):
    result = evaluate(
        matrix,
        {
            "npu_family": "310P",
            "npu_product": "Atlas 300I Duo",
            "os_id": "Ubuntu",
            "os_version": "22.04",
            "driver_version": "24.1.rc1",
            "firmware_version": "7.3.0.1.231",
            "driver_compatible_firmware": "[7.0.0,7.9.99]",
        },
    )
    finding = only(result, "lifecycle.driver")
    assert finding["severity"] == "error"
    assert (
        finding["message"]
        == "Atlas 300I Duo on Ubuntu 22.04 needs driver 24.1.RC2 or later; driver is 24.1.rc1"
    )
    assert "lifecycle.firmware" not in rules(result)


def test_lifecycle_minimum_when_only_the_family_is_known(matrix):
    result = evaluate(
        matrix,
        {
            "npu_family": "310P",
            "os_id": "Ubuntu",
            "os_version": "22.04",
            "driver_version": "24.1.rc2",
            "firmware_version": "7.3.0.1.231",
        },
    )
    lifecycle = [f for f in result["findings"] if f["rule"].startswith("lifecycle.")]
    assert [(f["rule"], f["severity"]) for f in lifecycle] == [
        ("lifecycle.driver", "warning"),
        ("lifecycle.firmware", "warning"),
    ]
    assert lifecycle[0]["message"].endswith(
        "driver is 24.1.rc2 (applies if this node is an Atlas 300I Pro)"
    )


def test_lifecycle_respects_arch(matrix):
    params = {
        "npu_family": "310P",
        "npu_product": "Atlas 300I Pro",
        "os_id": "CTyunOS",
        "os_version": "22.06",
        "driver_version": "24.1.rc3",
    }
    assert "lifecycle.driver" in rules(evaluate(matrix, {**params, "arch": "aarch64"}))
    assert "lifecycle.driver" not in rules(
        evaluate(matrix, {**params, "arch": "x86_64"})
    )


def test_bad_input_versions(matrix):
    result = evaluate(
        matrix,
        {"driver_version": "latest", "cann_version": "", "firmware_version": "  "},
    )
    assert result["findings"] == [
        {
            "rule": "input.version",
            "severity": "error",
            "component": "driver",
            "message": "driver_version='latest' is not a version",
            "fix": "pass the version as the driver reports it (for example 24.1.rc3 or 8.0.RC3)",
        }
    ]


def test_bad_ranges_are_findings(matrix):
    result = evaluate(
        matrix,
        {
            "driver_version": "23.0.7",
            "firmware_version": "7.1.0.11.220",
            "firmware_compatible_driver": "23.0.0",
        },
    )
    finding = only(result, "input.version")
    assert finding["message"].startswith("firmware_compatible_driver cannot be read: ")


def test_ranges_as_lists(matrix):
    result = evaluate(
        matrix,
        {
            "driver_version": "23.0.7",
            "firmware_version": "7.1.0.11.220",
            "driver_compatible_firmware": [{"min": "7.0.0", "max": "7.1.99"}],
            "firmware_compatible_driver": [
                ["23.0.rc3", "23.0.rc3."],
                ["23.0.0", "23.0.0."],
            ],
        },
    )
    assert "error" not in [f["severity"] for f in result["findings"]]


def test_unknown_policy(matrix):
    with pytest.raises(ValueError, match="policy must be one of strict, tolerant"):
        evaluate(matrix, {"policy": "lenient"})


VERSIONISH = st.one_of(
    st.none(),
    st.text(max_size=12),
    st.sampled_from(
        [
            "24.1.rc3",
            "23.0.7",
            "8.0.RC3",
            "6.0.RC3",
            "7.1.0.11.220",
            "v7.3.0",
            "25.5.1",
            "2.1.4",
            "1.34.0",
        ]
    ),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.fixed_dictionaries(
        {
            name: VERSIONISH
            for name, spec in ARGUMENT_SPEC.items()
            if spec["type"] in ("str", "raw") and name != "policy"
        }
    ),
    st.sampled_from(["strict", "tolerant"]),
)
def test_any_input_gives_a_verdict(matrix, params, policy):
    params["policy"] = policy
    result = evaluate(matrix, params)
    assert isinstance(result["ok"], bool)
    assert result["ok"] == (
        not any(f["severity"] == "error" for f in result["findings"])
    )
    for finding in result["findings"]:
        assert set(finding) == {"rule", "severity", "component", "message", "fix"}
        assert finding["severity"] in ("error", "warning", "info")


def test_lifecycle_product_from_ascend_facts_model(matrix):
    # ascend_facts reports the A3 PoD boards as "Atlas 900 A3 PoD" (subsystem 0x3000-0x3002).
    params = {
        "npu_family": "A3",
        "npu_product": "Atlas 900 A3 PoD",
        "os_id": "openEuler",
        "os_version": "24.03 LTS SP1",
    }
    finding = only(
        evaluate(matrix, {**params, "driver_version": "25.0.rc1.3"}), "lifecycle.driver"
    )
    assert finding["severity"] == "error"
    assert finding["message"].startswith(
        "Atlas 900 A3 PoD on openEuler 24.03 LTS SP1 needs driver 25.2.0 or later"
    )
    assert evaluate(matrix, {**params, "driver_version": "25.2.0"})["findings"] == []
    other = evaluate(
        matrix,
        {**params, "npu_product": "Atlas 800I A3", "driver_version": "25.0.rc1.3"},
    )
    assert "lifecycle.driver" not in rules(other)


# --- release sets (ascend_release) ----------------------------------------------------------


def test_release_set_default_is_the_matched_25_5_0_set(matrix):
    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
        release_set,
    )

    assert release_set(matrix) == {
        "release": "25.5.0",
        "driver": "25.5.0",
        "firmware": "7.8.0.5.216",
        "cann": "8.5.0",
        "runtime": "7.3.0",
        "mindcluster": "7.3.0",
        "guess": False,
    }
    # The default is the same set as its name, whatever the case of the name.
    assert (
        release_set(matrix, "25.5.0")
        == release_set(matrix, "")
        == release_set(matrix, "25.5.0".upper())
    )


@pytest.mark.parametrize(
    "name, family, expected",
    [
        # Firmware listed for 310P only: no answer for an unknown family or for 910B.
        ("24.1.0", None, {"driver": "24.1.0", "firmware": None, "cann": "8.0.0"}),
        ("24.1.0", "910B", {"firmware": None}),
        ("24.1.0", "310P", {"firmware": "7.5.0.2.220"}),
        # A family-neutral entry wins over a family-specific one when no family is given.
        ("25.2.0", None, {"firmware": "7.7.0.6.236", "cann": "8.2.RC1"}),
        ("25.2.0", "910B", {"firmware": "7.7.0.2.220"}),
        # Packages with a build number: the newest build is the driver.
        ("23.0.RC2", None, {"driver": "23.0.rc2.2", "mindcluster": "5.0.RC2"}),
        ("25.0.RC1", "A3", {"driver": "25.0.rc1.3", "firmware": "7.7.0.3.228"}),
        # A maintenance release takes CANN and MindCluster of its X.Y.0 row: a guess.
        ("23.0.7", None, {"cann": "7.0.0", "runtime": "5.0.0", "guess": True}),
        # No MindCluster in the train: no runtime either.
        ("6.0.0", None, {"cann": "6.0.1", "runtime": None, "mindcluster": None}),
    ],
)
def test_release_set_picks_each_component(matrix, name, family, expected):
    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
        release_set,
    )

    chosen = release_set(matrix, name, family)
    assert {key: chosen[key] for key in expected} == expected


@pytest.mark.parametrize(
    "name, message",
    [
        ("25.5.1", "25.5.1 is not a release of the version matrix (known: 6.0.RC1,"),
        ("9.9", "9.9 is not a release of the version matrix"),
        ("latest", "'latest' is not a version"),
    ],
)
def test_release_set_refuses_unknown_names(matrix, name, message):
    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
        release_set,
    )

    with pytest.raises(MatrixError, match=message.replace("(", r"\(")):
        release_set(matrix, name)


def test_default_release_must_be_a_release(matrix):
    broken = copy.deepcopy(matrix)
    broken["default_release"] = "99.0.0"
    with pytest.raises(MatrixError, match=r"default_release: 99\.0\.0 is not one of"):
        validate_matrix(broken)
    del broken["default_release"]
    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
        release_set,
    )

    with pytest.raises(MatrixError, match="no default_release: set ascend_release"):
        release_set(validate_matrix(broken))
