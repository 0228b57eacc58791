# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_release lookup on the collection's matrix and on broken site copies."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleLookupError
from ansible.plugins.loader import lookup_loader


def lookup(*terms, **kwargs):
    plugin = lookup_loader.get("cubestudio.ascend.ascend_release")
    return plugin.run(list(terms), variables={}, **kwargs)


def test_no_name_is_the_default_release():
    assert lookup() == lookup("") == lookup("25.5.0")
    assert lookup()[0]["release"] == "25.5.0"


@pytest.mark.parametrize(
    "component, expected",
    [
        ("driver", "24.1.0"),
        ("cann", "8.0.0"),
        ("runtime", "6.0.0"),
        ("mindcluster", "6.0.0"),
    ],
)
def test_one_component(component, expected):
    assert lookup("24.1.0", component=component) == [expected]


def test_missing_component_is_empty():
    # Not an error: argument specs template their defaults even when the variable is set.
    assert lookup("24.1.0", component="firmware") == [""]
    assert lookup("24.1.0", component="firmware", family="310P") == ["7.5.0.2.220"]
    assert lookup("6.0.0", component="mindcluster") == [""]
    assert lookup("6.0.0")[0]["runtime"] is None


def test_unknown_release_and_two_names():
    with pytest.raises(AnsibleLookupError, match="not a release of the version matrix"):
        lookup("25.5.9")
    with pytest.raises(AnsibleLookupError, match="takes one release name, got 2"):
        lookup("24.1.0", "25.5.0")


def test_site_matrix_file(tmp_path):
    missing = tmp_path / "nope.yml"
    with pytest.raises(AnsibleLookupError, match="cannot read the version matrix"):
        lookup(matrix_file=str(missing))
    broken = tmp_path / "matrix.yml"
    broken.write_text("schema: 2\n")
    with pytest.raises(
        AnsibleLookupError, match=r"malformed: matrix\.schema: must be 1"
    ):
        lookup(matrix_file=str(broken))
    broken.write_text("schema: [1\n")
    with pytest.raises(AnsibleLookupError, match="not valid YAML"):
        lookup(matrix_file=str(broken))
