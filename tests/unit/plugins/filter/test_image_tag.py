# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The image_tag filter: the field guide's tag from a node's versions or a release set."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.image_tag import (
    FilterModule,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    release_set,
    validate_matrix,
)

FILTER = FilterModule().filters()["image_tag"]
COLLECTION = Path(__file__).resolve().parents[4]
MATRIX = validate_matrix(
    yaml.safe_load((COLLECTION / "data" / "version_matrix.yml").read_text())
)


def test_the_demo_node():
    """The demo node (make demo: the default release 25.5.0, 8 x 910B) as ascend_facts reads it;
    docs/container-images.md shows this output."""
    facts = {
        "driver": {"version": "25.5.0", "complete": True},
        "firmware": {"version": "7.8.0.5.216"},
        "cann": {"version": "8.5.0"},
    }
    assert FILTER(facts) == "cann8.5.0-drv25.5.0-ascend"
    # The node record's versions, and the release set the demo installs.
    assert FILTER({"driver": "25.5.0", "cann": "8.5.0"}) == "cann8.5.0-drv25.5.0-ascend"
    assert FILTER(release_set(MATRIX)) == "cann8.5.0-drv25.5.0-ascend"


def test_release_sets_and_options():
    assert FILTER(release_set(MATRIX, "24.1.0")) == "cann8.0.0-drv24.1.0-ascend"
    assert FILTER(release_set(MATRIX, "24.1.RC3")) == "cann8.0.rc3-drv24.1.rc3-ascend"
    assert FILTER(release_set(MATRIX, "23.0.RC2")) == "cann6.3.rc2-drv23.0.rc2.2-ascend"
    assert FILTER({"cann": "8.5.0"}, suffix="torch2.8") == "cann8.5.0-torch2.8"
    assert (
        FILTER({"cann": "8.5.0", "driver": "25.5.0"}, driver=False)
        == "cann8.5.0-ascend"
    )
    assert FILTER({"cann": "8.5.0", "driver": ""}, suffix="") == "cann8.5.0"
    assert FILTER({"cann": "8.5.0", "driver": {"version": None}}) == "cann8.5.0-ascend"


@pytest.mark.parametrize(
    "versions",
    [
        None,
        "8.5.0",
        {},
        {"cann": None, "driver": "25.5.0"},  # a node without CANN
        {"cann": "latest"},
        {"cann": "8.5.0", "driver": "new"},
    ],
)
def test_what_cannot_be_a_tag_is_refused(versions):
    with pytest.raises(AnsibleFilterError, match="image_tag"):
        FILTER(versions)


def test_a_suffix_that_breaks_the_tag_is_refused():
    with pytest.raises(AnsibleFilterError, match="not a valid image tag"):
        FILTER({"cann": "8.5.0"}, suffix="a/b")
