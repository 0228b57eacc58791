# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Free space, mounts, programs on PATH and kernel headers (module_utils/_node/_host.py)."""

from __future__ import annotations

import os

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._host import (
    find_program,
    kernel_headers,
    mount_of,
    nearest_existing,
    parse_mountinfo,
    space,
)

# /proc/self/mountinfo of a container like the simulated node (overlay root, tmpfs /tmp, a
# bind mount with optional fields) plus a mount point with an escaped blank.
MOUNTINFO = """\
1480 1300 0:310 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/l/A,upperdir=/u,workdir=/w
1481 1480 0:313 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
1490 1480 0:315 / /tmp rw,nosuid,nodev,relatime - tmpfs tmpfs rw
1491 1480 253:0 /srv/sim /opt/ascend-sim ro,relatime shared:5 master:2 - ext4 /dev/vda ro,discard
1492 1480 253:1 / /data/my\\040disk rw,relatime - xfs /dev/sdb1 rw
"""

PROC_MOUNTS = """\
/dev/mapper/root / xfs rw,relatime 0 0
proc /proc proc rw 0 0
/dev/nvme0n1p1 /usr/local xfs rw,relatime 0 0
tmpfs /tmp tmpfs rw,nosuid 0 0
"""


def test_mountinfo_gives_mount_point_type_and_source():
    mounts = parse_mountinfo(MOUNTINFO)
    assert [m["mount"] for m in mounts] == [
        "/",
        "/proc",
        "/tmp",
        "/opt/ascend-sim",
        "/data/my disk",
    ]
    assert mounts[0] == {"mount": "/", "fstype": "overlay", "source": "overlay"}
    assert mounts[3]["fstype"] == "ext4" and mounts[3]["source"] == "/dev/vda"
    assert mounts[2]["fstype"] == "tmpfs"


def test_proc_mounts_format_is_read_too():
    mounts = parse_mountinfo(PROC_MOUNTS)
    assert [(m["mount"], m["fstype"]) for m in mounts] == [
        ("/", "xfs"),
        ("/proc", "proc"),
        ("/usr/local", "xfs"),
        ("/tmp", "tmpfs"),
    ]


def test_empty_or_garbage_gives_no_mounts():
    assert parse_mountinfo(None) == []
    assert parse_mountinfo("") == []
    assert parse_mountinfo("garbage\n1 2 3 - x\n") == []


def test_the_longest_mount_point_holds_the_path():
    mounts = parse_mountinfo(PROC_MOUNTS)
    assert mount_of("/usr/local/Ascend", mounts)["mount"] == "/usr/local"
    assert mount_of("/usr/local", mounts)["mount"] == "/usr/local"
    assert mount_of("/usr/localized", mounts)["mount"] == "/"
    assert mount_of("/usr", mounts)["mount"] == "/"
    assert mount_of("/tmp/x/y", mounts)["fstype"] == "tmpfs"
    assert mount_of("/usr/local/Ascend/", mounts)["mount"] == "/usr/local"


def test_a_later_mount_on_the_same_point_wins():
    mounts = parse_mountinfo(
        "/dev/sda1 /data ext4 rw 0 0\n/dev/sdb1 /data xfs rw 0 0\n"
    )
    assert mount_of("/data/x", mounts)["fstype"] == "xfs"


def test_no_mount_holds_a_path_outside_every_mount():
    assert mount_of("/data", parse_mountinfo("tmpfs /tmp tmpfs rw 0 0\n")) is None


def test_nearest_existing_parent(tmp_path):
    (tmp_path / "a").mkdir()
    assert nearest_existing(str(tmp_path / "a" / "b" / "c")) == str(tmp_path / "a")
    assert nearest_existing(str(tmp_path / "a")) == str(tmp_path / "a")
    assert nearest_existing("/") == "/"


def test_space_of_a_path_that_does_not_exist_yet(tmp_path):
    mounts = [{"mount": "/", "fstype": "ext4", "source": "/dev/root"}]
    result = space(str(tmp_path / "Ascend" / "driver"), mounts)
    stat = os.statvfs(str(tmp_path))
    assert result["exists"] is False
    assert result["checked_path"] == str(tmp_path)
    assert result["mount"] == "/" and result["fstype"] == "ext4"
    assert result["size_bytes"] == stat.f_blocks * stat.f_frsize
    assert result["free_bytes"] > 0
    assert result["free_gb"] == round(result["free_bytes"] / float(1 << 30), 1)


def test_space_without_mount_information_still_reads_free_space(tmp_path):
    result = space(str(tmp_path), [])
    assert result["exists"] is True
    assert result["mount"] is None and result["fstype"] is None
    assert result["free_bytes"] > 0


def test_programs_are_found_like_command_v(tmp_path):
    first = tmp_path / "first"
    second = tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "lspci").write_text("not executable")
    (second / "lspci").write_text("#!/bin/sh\n")
    (second / "lspci").chmod(0o755)
    (first / "ifconfig").mkdir()  # a directory is not a program
    search = os.pathsep.join(["", str(first), str(second)])
    assert find_program("lspci", search) == str(second / "lspci")
    assert find_program("ifconfig", search) is None
    assert find_program("dkms", search) is None
    assert find_program("lspci", None) is None


def test_kernel_headers(tmp_path):
    (tmp_path / "lib" / "modules" / "6.1.0-18-amd64" / "build").mkdir(parents=True)
    assert kernel_headers("6.1.0-18-amd64", str(tmp_path)) == {
        "release": "6.1.0-18-amd64",
        "build_dir": "/lib/modules/6.1.0-18-amd64/build",
        "headers": True,
    }
    assert kernel_headers("6.1.0-99-amd64", str(tmp_path))["headers"] is False
