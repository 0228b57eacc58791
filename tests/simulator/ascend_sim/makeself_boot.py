# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makeself layer of a simulated .run package (standalone: embedded in the shell header).

The header runs ``python3 -c <this file> "$0" "$MS_META" "$@"``. This code does what the
makeself stub of Huawei's packages does before the embedded install script runs: option
handling (--help, --info, --list, --check, --quiet, --noexec, --extract=), validation of the
script's options against the package's help text (unknown option: help on stderr, exit 1),
archive verification (size, then SHA256: exit 2 on mismatch, like makeself), extraction to a
temporary directory and the run of the install script (``ascend_sim.installers.entry``).

Flavours:
  hdk      driver/firmware (Huawei makeself: verifies on every run; --check also runs the
           script's check, printing the two "Verifying" lines of the real driver output)
  cann     CANN toolkit/nnae/nnrt (same stub)
  runtime  Ascend Docker Runtime (MindCluster stub: no verification except --check; the
           makeself options are "meaningless" and only warned about)
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import zlib

GENERIC_HELP = """\
  --help | -h                       Print this message
  --info                            Print embedded info : title, default target directory, embedded script ...
  --list                            Print the list of files in the archive
  --check                           Checks integrity and version dependency of the archive
  --quiet                           Quiet install mode, skip human-computer interactions
  --nox11                           Do not spawn an xterm
  --noexec                          Do not run embedded script
  --extract=<path>                  Extract directly to a target directory (absolute or relative)
                                    Usually used with --noexec to just extract files without running
  --tar arg1 [arg2 ...]             Access the contents of the archive through the tar command
"""
RUNTIME_MEANINGLESS_MODERN = ("--check", "--info", "--list", "--quiet", "--tar")
RUNTIME_MEANINGLESS_LEGACY = RUNTIME_MEANINGLESS_MODERN + (
    "--nox11",
    "--noexec",
    "--extract",
)


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def err(text):
    sys.stderr.write(text)
    sys.stderr.flush()


def sim_root():
    return os.environ.get("ASCEND_SIM_ROOT") or "/"


def makeself_log(line):
    """Huawei's stub logs to $HOME/log/makeself/makeself.log; return the printed path."""
    home = os.path.expanduser("~")
    shown = os.path.join(home, "log", "makeself", "makeself.log")
    path = os.path.join(sim_root(), shown.lstrip("/"))
    try:
        os.makedirs(os.path.dirname(path), mode=0o750, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError:
        pass
    return shown


def payload_offset(data, skip):
    pos = 0
    for _line in range(skip):
        nxt = data.find(b"\n", pos)
        if nxt < 0:
            return len(data)
        pos = nxt + 1
    return pos


def verify(data, meta, quiet):
    """0 when the payload is intact, 2 (makeself's code) otherwise."""
    offset = payload_offset(data, meta["skip"])
    if not quiet:
        out("Verifying archive integrity...")
    if len(data) - offset != meta["totalsize"]:
        err(" Unexpected archive size.\n")
        return 2
    digest = hashlib.sha256(data[offset:]).hexdigest()
    if digest != meta["sha256"]:
        if not quiet:
            out("\n")
        err(
            "Error in SHA256 checksums: %s is different from %s\n"
            % (digest, meta["sha256"])
        )
        makeself_log(
            "[ERROR] Error in SHA256 checksums: %s is different from %s"
            % (digest, meta["sha256"])
        )
        return 2
    if not quiet:
        out("  100%   SHA256 checksums are OK. All good.\n")
    return 0


def open_payload(data, meta):
    """The payload as a tar archive; the whole gzip stream is decoded first, so a damaged
    payload fails here (CRC) even where tar alone would stop before the damage."""
    offset = payload_offset(data, meta["skip"])
    return tarfile.open(fileobj=io.BytesIO(gzip.decompress(data[offset:])), mode="r:")


def extract(data, meta, target):
    with open_payload(data, meta) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(target, filter="data")
        else:
            archive.extractall(target)


def allowed_options(meta):
    tokens = re.findall(r"--[^ \n]+", meta.get("helpheader", ""))
    return {token.split("=", 1)[0].rstrip(".,)") for token in tokens}


def usage(meta, runfile, error=False):
    if meta["flavour"] == "runtime":
        legacy = meta.get("generation") == "legacy"
        names = RUNTIME_MEANINGLESS_LEGACY if legacy else RUNTIME_MEANINGLESS_MODERN
        text = (
            "Usage: %s [options]\nOptions:\n"
            "  --help | -h                   Print this message\n"
            "  %s    These parameters are meaningless for ascend-docker-runtime and\n"
            "                                will be discarded in the future\n%s\n"
            % (runfile, "|".join(names), meta.get("helpheader", ""))
        )
        return ("Error input\n" if error else "") + text
    return "Usage: %s [options]\nOptions:\n%s%s\n" % (
        runfile,
        GENERIC_HELP,
        meta.get("helpheader", ""),
    )


def info(meta, runfile):
    return (
        "Identification: %s\nTarget directory: %s\nUncompressed size: %d KB\n"
        "Compression: gzip\nDate of packaging: (reproducible build)\n"
        "Built with Makeself version 2.4.5 (simulated by ascend-sim)\n"
        "Script run after extraction:\n     ascend_sim.installers.entry %s\n"
        % (
            meta["label"],
            meta.get("targetdir", "."),
            meta["totalsize"] // 1024 + 1,
            runfile,
        )
    )


def run_script(tmpdir, script_args, meta, runfile):
    sys.path.insert(0, tmpdir)
    try:
        from ascend_sim.installers import entry  # pylint: disable=import-outside-toplevel
    finally:
        sys.path.remove(tmpdir)
    return entry.main(script_args, meta, runfile)


def main(argv):
    runfile, meta_b64 = argv[0], argv[1]
    args = argv[2:]
    meta = json.loads(base64.b64decode(meta_b64).decode("utf-8"))
    flavour = meta["flavour"]
    with open(runfile, "rb") as handle:
        data = handle.read()

    quiet = False
    check = False
    noexec = False
    target = None
    script_args = []
    allowed = allowed_options(meta)
    legacy_runtime = meta.get("generation") == "legacy"
    for arg in args:
        name = arg.split("=", 1)[0]
        if arg in ("-h", "--help"):
            err(usage(meta, runfile))
            return 0
        if flavour == "runtime":
            meaningless = (
                RUNTIME_MEANINGLESS_LEGACY
                if legacy_runtime
                else RUNTIME_MEANINGLESS_MODERN
            )
            if name in meaningless:
                out(
                    "[WARNING]: %s is meaningless for ascend-docker-runtime and will be "
                    "discarded in the future\n" % name
                )
                if name == "--info":
                    out("ascend-docker-runtime pkg\n")
                    return 0
                if name == "--list":
                    with open_payload(data, meta) as archive:
                        out("".join("  %s\n" % n for n in archive.getnames()))
                    return 0
                if name == "--check":
                    rc = verify(data, meta, False)
                    makeself_log(
                        "[INFO] check success" if rc == 0 else "[ERROR] check failed"
                    )
                    return rc
                if name == "--tar":
                    err("--tar is not simulated\n")
                    return 1
                continue
            if name not in allowed:
                err(usage(meta, runfile, error=True))
                return 1
            script_args.append(arg)
            continue
        if arg in ("-q", "--quiet"):
            quiet = True
            script_args.append("--quiet")
        elif arg == "--info":
            out(info(meta, runfile))
            return 0
        elif arg == "--list":
            out("Target directory: %s\n" % meta.get("targetdir", "."))
            with open_payload(data, meta) as archive:
                out("".join("%s\n" % n for n in archive.getnames()))
            return 0
        elif arg == "--check":
            check = True
            script_args.append(arg)
        elif arg == "--nox11":
            script_args.append(
                arg
            )  # makeself option: never spawn an xterm (always true here)
        elif arg == "--noexec":
            noexec = True
        elif name == "--extract":
            target = arg.split("=", 1)[1] if "=" in arg else ""
            if not target:
                err(usage(meta, runfile))
                return 1
        elif arg == "--tar":
            err("--tar is not simulated\n")
            return 1
        elif name in allowed:
            script_args.append(arg)
        else:
            err(usage(meta, runfile))
            return 1

    if flavour != "runtime":
        if check:
            out("Makeself logfile: %s\n" % makeself_log("[INFO] check"))
            rc = verify(data, meta, False)
            if rc:
                return rc
            if meta.get("component") in ("driver", "firmware"):
                rc = verify(data, meta, False)
                if rc:
                    return rc
        elif os.environ.get("SETUP_NOCHECK") != "1":
            rc = verify(data, meta, quiet)
            if rc:
                return rc
    if not quiet:
        out("Uncompressing %s  100%%  \n" % meta["label"])
    if target is not None:
        tmpdir = os.path.abspath(target)
        os.makedirs(tmpdir, mode=0o750, exist_ok=True)
    else:
        base = os.environ.get("TMPDIR") or "/tmp"
        tmpdir = tempfile.mkdtemp(prefix="selfgz%d" % os.getpid(), dir=base)
    try:
        try:
            extract(data, meta, tmpdir)
        except (tarfile.TarError, OSError, EOFError, ValueError, zlib.error):
            err("\nUnable to decompress %s\n" % runfile)
            makeself_log("[ERROR] extract failed, Unable to decompress %s" % runfile)
            return 1
        if noexec:
            return 0
        rc = run_script(tmpdir, script_args, meta, runfile)
        makeself_log(
            "[INFO] install success" if rc in (0, 2) else "[ERROR] install failed"
        )
        return rc
    finally:
        if target is None:
            shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
