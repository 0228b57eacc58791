# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes makeself-style .run files: a shell header followed by a gzip-compressed tar.

The header embeds ``makeself_boot.py`` (verification, options, extraction) and the package
metadata; the payload holds a copy of the ``ascend_sim`` package (the install scripts) and
``package.json``. Builds are reproducible: same inputs, same bytes, same sha256.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import tarfile

BOOT_MARKER = "__ASCEND_SIM_BOOT__"
FIXED_MTIME = 1767225600  # 2026-01-01T00:00:00Z


def package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def package_files():
    """{archive name: bytes} of the ascend_sim package (Python sources and sh programs)."""
    base = package_dir()
    files = {}
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".sh")):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, os.path.dirname(base))
                with open(path, "rb") as handle:
                    files[rel] = handle.read()
    return files


def tar_gz(files):
    """Deterministic tar.gz of {name: bytes} (directories implied, mtime fixed, owner root)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as archive:
        dirs = set()
        for name in sorted(files):
            parts = name.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:depth]))
        for name in sorted(dirs):
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            info.mtime = FIXED_MTIME
            info.uname = info.gname = "root"
            archive.addfile(info)
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755 if name.endswith(".sh") else 0o644
            info.mtime = FIXED_MTIME
            info.uname = info.gname = "root"
            archive.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9
    ) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def _header(meta, boot):
    encoded = base64.b64encode(json.dumps(meta, sort_keys=True).encode("utf-8")).decode(
        "ascii"
    )
    return (
        "#!/bin/bash\n"
        "# Simulated Ascend package written by the cubestudio.ascend test simulator\n"
        "# (tests/simulator, ascend-sim build-artifacts). Makeself layout: this shell header,\n"
        "# then a gzip-compressed tar payload starting after line %d.\n"
        "MS_META=%s\n"
        "MS_BOOT=$(cat <<'%s'\n"
        "%s\n"
        "%s\n"
        ")\n"
        'exec python3 -c "$MS_BOOT" "$0" "$MS_META" "$@"\n'
        % (meta["skip"], encoded, BOOT_MARKER, boot.rstrip("\n"), BOOT_MARKER)
    )


def build_run(path, meta, extra_files=None):
    """Write a .run file at ``path``; return its sha256 (hex)."""
    with open(
        os.path.join(package_dir(), "makeself_boot.py"), encoding="utf-8"
    ) as handle:
        boot = handle.read()
    if BOOT_MARKER in boot:
        raise ValueError("the boot code contains the heredoc marker")
    files = package_files()
    files["package.json"] = (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode()
    files.update(extra_files or {})
    payload = tar_gz(files)
    meta = dict(
        meta, totalsize=len(payload), sha256=hashlib.sha256(payload).hexdigest()
    )
    meta["skip"] = 0
    skip = _header(meta, boot).count("\n")
    meta["skip"] = skip
    header = _header(meta, boot)
    if header.count("\n") != skip:
        raise ValueError("header line count changed")
    data = header.encode("utf-8") + payload
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)
    return hashlib.sha256(data).hexdigest()
