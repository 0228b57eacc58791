# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_compat action plugin: options, matrix loading, failing and the fact."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleActionFail

from ansible_collections.cubestudio.ascend.plugins.action import ascend_compat

COLLECTION = Path(__file__).resolve().parents[4]


def test_default_matrix_is_the_collection_data_file():
    assert (
        Path(ascend_compat.DEFAULT_MATRIX).resolve()
        == COLLECTION / "data" / "version_matrix.yml"
    )


def test_matched_set_passes_and_sets_the_fact(run_action):
    result = run_action(
        ascend_compat,
        {"driver_version": "24.1.rc3", "cann_version": "8.0.RC3", "npu_family": "910B"},
    )
    assert "failed" not in result
    assert result["changed"] is False
    fact = result["ansible_facts"]["ascend_compat"]
    assert fact == result["ascend_compat"]
    assert fact["ok"] is True
    assert fact["policy"] == "strict"
    assert fact["findings"] == []
    assert fact["recommended"]["firmware"] == "7.5.0.1.129"
    assert fact["matrix_file"] == ascend_compat.DEFAULT_MATRIX


def test_error_fails_the_task_with_every_error_listed(run_action):
    result = run_action(
        ascend_compat,
        {
            "driver_version": "23.0.rc2",
            "cann_version": "7.0.0",
            "mindcluster_version": "6.0.0",
            "docker_runtime_version": "5.0.RC2",
        },
    )
    assert result["failed"] is True
    assert result["msg"].splitlines()[0] == "3 Ascend version compatibility error(s):"
    assert (
        result["msg"]
        .splitlines()[1]
        .startswith(
            "- [cann.matched] CANN 7.0.0 is not the matched set of driver 23.0.rc2: Huawei's bundles pair HDK 23.0.RC2 with CANN 6.3.RC2"
        )
    )
    assert "[mindcluster.matched]" in result["msg"]
    assert "[docker_runtime.mindcluster]" in result["msg"]
    assert result["ascend_compat"]["ok"] is False


def test_fail_on_error_false_reports_only(run_action):
    result = run_action(
        ascend_compat,
        {"driver_version": "23.0.rc2", "cann_version": "7.0.0", "fail_on_error": False},
    )
    assert "failed" not in result
    assert result["ansible_facts"]["ascend_compat"]["ok"] is False


def test_warnings_are_shown(run_action):
    result = run_action(
        ascend_compat,
        {"driver_version": "23.0.rc2", "cann_version": "7.0.0", "policy": "tolerant"},
    )
    assert "failed" not in result
    assert result["warnings"][0].startswith(
        "[cann.matched] CANN 7.0.0 is not the matched set"
    )


def test_runs_in_check_mode(run_action):
    result = run_action(
        ascend_compat,
        {"driver_version": "24.1.0", "cann_version": "8.0.0"},
        check_mode=True,
    )
    assert result["ansible_facts"]["ascend_compat"]["ok"] is True


def test_site_matrix(run_action, tmp_path):
    data = yaml.safe_load(Path(ascend_compat.DEFAULT_MATRIX).read_text())
    row = next(r for r in data["releases"] if r["hdk"] == "23.0.RC2")
    row["cann"]["version"] = "7.0.0"  # a site that validated this pairing itself
    site = tmp_path / "site_matrix.yml"
    site.write_text(yaml.safe_dump(data))
    result = run_action(
        ascend_compat,
        {
            "driver_version": "23.0.rc2",
            "cann_version": "7.0.0",
            "matrix_file": str(site),
        },
    )
    assert "failed" not in result
    assert result["ansible_facts"]["ascend_compat"]["matrix_file"] == str(site)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the version matrix {path}: No such file or directory"),
        ("releases: [", "the version matrix {path} is not valid YAML: "),
        (
            "schema: 1\nreleases: []\n",
            "the version matrix {path} is malformed: matrix.releases: must be a non-empty list",
        ),
    ],
)
def test_bad_site_matrix(run_action, tmp_path, content, message):
    site = tmp_path / "matrix.yml"
    if content is not None:
        site.write_text(content)
    with pytest.raises(AnsibleActionFail) as error:
        run_action(ascend_compat, {"matrix_file": str(site)})
    assert str(error.value).startswith(message.format(path=site))


def test_bad_options(run_action):
    with pytest.raises(
        AnsibleActionFail,
        match=r"Invalid options for cubestudio\.ascend\.ascend_compat: driver",
    ):
        run_action(ascend_compat, {"driver": "24.1.0"})
    with pytest.raises(
        AnsibleActionFail, match="value of policy must be one of: strict, tolerant"
    ):
        run_action(ascend_compat, {"policy": "lenient"})


def test_through_the_ansible_cli(ansible_adhoc):
    """ansible localhost -m cubestudio.ascend.ascend_compat, as a user runs it."""
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_compat", "driver_version=23.0.rc2 cann_version=7.0.0"
    )
    assert (rc, status) == (2, "localhost | FAILED!")
    assert result["ascend_compat"]["findings"][0]["rule"] == "cann.matched"
    assert "CANN 6.3.RC2" in result["msg"]
    rc, status, result = ansible_adhoc(
        "cubestudio.ascend.ascend_compat",
        "driver_version=24.1.RC3 cann_version=8.0.rc3",
    )
    assert (rc, status) == (0, "localhost | SUCCESS")
    assert (
        result["ansible_facts"]["ascend_compat"]["recommended"]["mindcluster"]
        == "6.0.RC3"
    )


def test_documentation_matches_the_argument_spec():
    """validate-modules cannot see the action plugin's spec, so compare them here."""
    from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._evaluation import (
        ARGUMENT_SPEC,
    )
    from ansible_collections.cubestudio.ascend.plugins.modules import (
        ascend_compat as doc,
    )

    options = yaml.safe_load(doc.DOCUMENTATION)["options"]
    assert set(options) == set(ARGUMENT_SPEC)
    for name, spec in ARGUMENT_SPEC.items():
        documented = options[name]
        assert documented["type"] == spec["type"], name
        assert documented.get("default") == spec.get("default"), name
        assert documented.get("choices") == spec.get("choices"), name
