# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cann_toolkit's decisions (links to move, environment script, driver to meet), on the CANN
packages the reader finds on a real installed tree (the "full" node: toolkit 7.0.T10 linked,
8.1.RC1 not, nnae 8.0.RC3, toolkit 8.5.0 in the new layout)."""

from __future__ import annotations

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers import (
    _ascend_files as files,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._cann_layout import (
    driver_to_meet,
    env_steps,
    installed_packages,
    layout,
)

PRODUCTS = {"toolkit": "ascend-toolkit", "nnae": "nnae", "nnrt": "nnrt"}
ROOT = "/usr/local/Ascend"


@pytest.fixture
def packages(ascend_node):
    root, _sysfs = ascend_node("full")
    return installed_packages(files.cann_packages(root, ROOT))


def test_installed_packages_of_a_null_fact():
    assert installed_packages(None) == []
    assert installed_packages({"packages": None}) == []
    with pytest.raises(ValueError):
        installed_packages(["not", "a", "fact"])


def test_old_layout_moves_the_latest_link_to_the_wanted_version(packages):
    # 8.1.RC1 is installed but `latest` points at 7.0.T10; the version is compared without case.
    out = layout(packages, "8.1.rc1", ["toolkit"], ["toolkit"], False, ROOT, PRODUCTS)
    assert out == {
        "links": [{"path": f"{ROOT}/ascend-toolkit/latest", "src": "8.1.RC1"}],
        "set_env": f"{ROOT}/ascend-toolkit/set_env.sh",
        "source": f"{ROOT}/ascend-toolkit/set_env.sh",
    }


def test_old_layout_leaves_a_link_already_there(packages):
    out = layout(
        packages,
        "7.0.T10",
        ["toolkit", "nnae"],
        ["nnae", "toolkit"],
        False,
        ROOT,
        PRODUCTS,
    )
    assert out["links"] == []
    # The script of the first kind in the plan's order that the role installs.
    assert out["set_env"] == f"{ROOT}/ascend-toolkit/set_env.sh"
    nnae = layout(packages, "8.0.RC3", ["nnae"], ["nnae"], False, ROOT, PRODUCTS)
    assert nnae == {
        "links": [],
        "set_env": f"{ROOT}/nnae/set_env.sh",
        "source": f"{ROOT}/nnae/set_env.sh",
    }


def test_new_layout_uses_the_cann_link_and_the_versioned_script(packages):
    out = layout(packages, "8.5.0", ["toolkit"], ["toolkit"], True, ROOT, PRODUCTS)
    # cann -> cann-8.5.0 already: nothing to move. The env file is read from the version's own
    # script; login shells source the one Huawei's 8.5.0 documents, <install>/cann/set_env.sh.
    assert out == {
        "links": [],
        "set_env": f"{ROOT}/cann-8.5.0/set_env.sh",
        "source": f"{ROOT}/cann/set_env.sh",
    }
    unlinked = [dict(p, latest=False) for p in packages]
    twice = unlinked + [dict(p) for p in unlinked if p["layout"] == "cann"]
    moved = layout(twice, "8.5.0", ["toolkit"], ["toolkit"], True, ROOT, PRODUCTS)
    # One link, however many packages of the version the directory holds.
    assert moved["links"] == [{"path": f"{ROOT}/cann", "src": "cann-8.5.0"}]


def test_not_installed_yet_moves_nothing(packages):
    out = layout(packages, "8.3.RC1", ["toolkit"], ["toolkit"], False, ROOT, PRODUCTS)
    assert out["links"] == []
    # Version numbers that YAML read as numbers are compared as text.
    assert layout([], 8.5, ["toolkit"], ["toolkit"], True, ROOT, PRODUCTS)[
        "set_env"
    ] == (f"{ROOT}/cann-8.5/set_env.sh")


def test_old_layout_without_a_kind_to_install_is_an_error():
    with pytest.raises(ValueError, match="none of the packages nnrt"):
        layout([], "8.0.RC3", ["toolkit"], ["nnrt"], False, ROOT, PRODUCTS)


@pytest.mark.parametrize(
    ("driver", "check_mode", "predicted", "expected"),
    [
        (
            {"version": "24.1.rc2"},
            False,
            "25.5.0",
            {"version": "24.1.rc2", "source": "installed"},
        ),
        (
            {"version": "24.1.rc2"},
            True,
            "25.5.0",
            {
                "version": "25.5.0",
                "source": "about to be installed by npu_driver (check mode)",
            },
        ),
        # Check mode without npu_driver in the play: the installed driver.
        (
            {"version": "24.1.rc2"},
            True,
            "",
            {"version": "24.1.rc2", "source": "installed"},
        ),
        (None, True, None, {"version": "", "source": "installed"}),
        ({"version": None}, False, "", {"version": "", "source": "installed"}),
    ],
)
def test_driver_to_meet(driver, check_mode, predicted, expected):
    # No CANN steps planned: nothing to check against, whatever the driver.
    assert driver_to_meet(driver, check_mode, predicted) == dict(expected, check=False)


@pytest.mark.parametrize(
    ("compat_check", "steps", "driver", "check"),
    [
        (True, ["install"], {"version": "24.1.rc2"}, True),
        # The check is off (cann_toolkit_compat_check: false).
        (False, ["install"], {"version": "24.1.rc2"}, False),
        # Nothing to install: the installed CANN is not checked again.
        (True, [], {"version": "24.1.rc2"}, False),
        # No driver known (a node without one, npu_driver not in the play).
        (True, ["install"], None, False),
    ],
)
def test_driver_to_meet_says_whether_the_cann_is_checked(
    compat_check, steps, driver, check
):
    found = driver_to_meet(driver, False, "", compat_check, steps)
    assert found["check"] is check


def test_env_steps_on_a_node_with_the_script():
    steps = env_steps("/etc/cann.env", "/etc/profile.d/cann.sh", True, False, [])
    assert steps == {
        "missing_script": False,
        "make_env_dir": True,
        "write_env_file": True,
        "write_profile": True,
        "say_pending": False,
    }


def test_env_steps_refuses_a_missing_script_nothing_installs():
    # The package is said to be installed (no steps) yet its set_env.sh is gone.
    assert env_steps("/etc/cann.env", "", False, False, [])["missing_script"] is True
    assert env_steps("", "/etc/profile.d/cann.sh", False, True, [])["missing_script"]
    # Neither file wanted: the script is not needed.
    assert env_steps("", "", False, False, [])["missing_script"] is False


def test_env_steps_in_check_mode_before_the_install():
    steps = env_steps(
        "/etc/cann.env", "/etc/profile.d/cann.sh", False, True, ["install"]
    )
    assert steps == {
        "missing_script": False,
        "make_env_dir": True,
        "write_env_file": False,
        # The profile only names the script, so it can be shown in check mode.
        "write_profile": True,
        "say_pending": True,
    }
