# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The MindCluster image contents of `make sim-images` (k8s/build_images.py), without Go."""

from __future__ import annotations

import os
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "k8s"))

import build_images  # noqa: E402


def test_versions_are_those_of_the_release_trains():
    assert build_images.versions() == ["6.0.0", "7.3.0", "26.1.0"]


def test_rootfs_has_what_the_daemonsets_call():
    layer, hosts = build_images.rootfs("device-plugin", "/usr/bin/true")
    entries = layer.entries
    kind, _data, mode = entries["usr/local/bin/device-plugin"]
    assert (kind, stat.S_IMODE(mode)) == ("file", 0o550)
    for tool in ("bash", "sh", "mkdir", "chmod", "chown"):
        path = os.path.realpath("/bin/" + tool).strip("/")
        assert entries[path][0] == "file", tool
    if os.path.islink("/bin"):  # merged /usr: the link is in the image as on the host
        assert entries["bin"] == ("link", os.readlink("/bin"), 0o777)
    assert entries["etc/passwd"][1].startswith(b"root:x:0:0:")
    assert any(h.endswith("/libc.so.6") for h in hosts)
    loader = [h for h in hosts if "ld-linux" in h]
    assert loader and os.path.realpath(loader[0]).strip("/") in entries
