# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""When ascend_facts with reuse may answer from the facts already read in this run."""

from __future__ import annotations

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._facts_reuse import (
    read_options,
    reusable,
    stamp,
)

RUN = "ops-01:81723:5512345"
ARGS = {"sysfs_root": "/sys", "install_path": "/usr/local/Ascend"}


def facts_read_with(read):
    return {"npu_family": "910B", "driver": {"version": "25.5.0"}, "read": read}


def test_defaults_fill_the_options_a_read_was_made_with():
    assert read_options({}) == {
        "root": "/",
        "sysfs_root": "/sys",
        "proc_root": "/proc",
        "state_dir": "/var/lib/cubestudio-ascend",
        "install_path": None,
    }
    # An option given as null (omit in a task) is its default.
    assert read_options({"root": None, "sysfs_root": "/srv/sys"})["root"] == "/"


def test_the_same_run_and_options_are_reused():
    previous = facts_read_with(stamp(RUN, ARGS))
    assert reusable(previous, RUN, dict(ARGS))
    # The default written out is the same option as the default left out.
    assert reusable(previous, RUN, {**ARGS, "root": "/"})


def test_anything_else_reads_the_node():
    previous = facts_read_with(stamp(RUN, ARGS))
    # Another run: facts a fact cache kept from an earlier ansible-playbook.
    assert not reusable(previous, "ops-01:81724:5519999", ARGS)
    # Another option: another read.
    assert not reusable(previous, RUN, {**ARGS, "install_path": "/opt/Ascend"})
    assert not reusable(previous, RUN, {**ARGS, "sysfs_root": "/srv/sys"})
    # A read without reuse came after (a full run of a layer): no stamp.
    assert not reusable(facts_read_with(None), RUN, ARGS)
    # Facts of an older collection (no stamp at all), none yet, or no run known.
    assert not reusable({"npu_family": "910B"}, RUN, ARGS)
    assert not reusable(None, RUN, ARGS)
    assert not reusable(facts_read_with(stamp("", ARGS)), "", ARGS)
