# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PRIVATE to the cubestudio.ascend collection: the layer records behind a fast re-run.

A layer role that finished (and verified) writes a record on the node: the fingerprint of its
inputs (its variables and the collection's code), the state of every file it manages (sha256,
link target, or absent) and the facts it left (versions, device counts). A later run reads the
records with ``ascend_facts`` and ``converged`` says whether the node is still exactly as the
role left it with the same inputs; only then may the role be skipped. Anything else - no
record, other inputs, a file edited or removed, a version changed - runs the role in full.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

SCHEMA = 1
LAYERS_DIR = "layers"
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_MAX_RECORD = 1 << 20


class LayerStateError(Exception):
    """Bad input: the message says which."""


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise LayerStateError(
            "the layer name %r is not valid: lower-case letters, digits and _, starting with a letter"
            % (name,)
        )
    return name


def file_state(path: str) -> str | None:
    """``None`` (absent), ``link:<target>``, ``dir``, ``sha256:<hex>``, or ``other``."""
    try:
        if os.path.islink(path):
            return "link:" + os.readlink(path)
        if os.path.isdir(path):
            return "dir"
        if not os.path.isfile(path):
            return "other" if os.path.lexists(path) else None
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 16), b""):
                digest.update(chunk)
        return "sha256:" + digest.hexdigest()
    except OSError as error:
        return "unreadable:%s" % (error.strerror or error)


def pick(facts: dict, path: str):
    """The value at a dotted path of a facts dict (``driver.version``), None where missing."""
    value = facts
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def build_record(
    name: str,
    fingerprint: str,
    files: list,
    facts: dict,
    fact_paths: list,
    root: str = "/",
) -> dict:
    """The record a layer writes (files are read below ``root``)."""
    check_name(name)
    if not isinstance(fingerprint, str) or not fingerprint:
        raise LayerStateError("fingerprint must be a non-empty string")
    for path in files:
        if not isinstance(path, str) or not path.startswith("/"):
            raise LayerStateError(
                "every file must be an absolute path, got %r" % (path,)
            )
    return {
        "schema": SCHEMA,
        "layer": name,
        "fingerprint": fingerprint,
        "files": {path: file_state(_under(root, path)) for path in sorted(set(files))},
        "facts": {path: pick(facts or {}, path) for path in sorted(set(fact_paths))},
    }


def _under(root: str, path: str) -> str:
    return os.path.join(root, path.lstrip("/")) if root not in ("", "/") else path


def record_path(state_dir: str, name: str, root: str = "/") -> str:
    return _under(root, os.path.join(state_dir, LAYERS_DIR, check_name(name) + ".json"))


def read_layers(state_dir: str, root: str = "/") -> dict:
    """Every record under ``<state_dir>/layers``: ``{name: {record, error, files}}`` where
    ``files`` is the current state of each file the record lists."""
    folder = _under(root, os.path.join(state_dir, LAYERS_DIR))
    layers = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return layers
    for entry in names:
        if not entry.endswith(".json") or not _NAME.match(entry[:-5]):
            continue
        name = entry[:-5]
        record, error = None, None
        try:
            with open(os.path.join(folder, entry), "rb") as handle:
                data = handle.read(_MAX_RECORD + 1)
            if len(data) > _MAX_RECORD:
                raise ValueError("larger than 1 MiB")
            record = json.loads(data.decode("utf-8"))
            if (
                not isinstance(record, dict)
                or record.get("schema") != SCHEMA
                or not isinstance(record.get("files"), dict)
            ):
                raise ValueError("not a schema %d layer record" % SCHEMA)
        except (OSError, ValueError) as exc:
            record, error = None, "%s: %s" % (entry, exc)
        files = {}
        if record is not None:
            files = {path: file_state(_under(root, path)) for path in record["files"]}
        layers[name] = {"record": record, "error": error, "files": files}
    return layers


def render(record: dict) -> str:
    """The record's file content: stable, so an unchanged layer rewrites no byte."""
    return json.dumps(record, indent=2, sort_keys=True) + "\n"


def converged(layers: dict, name: str, fingerprint: str, facts: dict) -> tuple:
    """(True, []) when the node is as the layer's last complete run left it, with the same
    inputs; else (False, reasons)."""
    entry = (layers or {}).get(name)
    if not entry:
        return False, ["no record of a complete run of %s on the node" % name]
    record = entry.get("record")
    if record is None:
        return False, [
            "the record of %s cannot be read (%s)" % (name, entry.get("error"))
        ]
    reasons = []
    if record.get("fingerprint") != fingerprint:
        reasons.append("the settings or the collection changed since the last run")
    current = entry.get("files") or {}
    for path, state in sorted(record["files"].items()):
        now = current.get(path)
        if now != state:
            reasons.append(
                "%s %s since the last run"
                % (
                    path,
                    "appeared"
                    if state is None
                    else "is gone"
                    if now is None
                    else "changed",
                )
            )
    for path, value in sorted((record.get("facts") or {}).items()):
        now = pick(facts or {}, path)
        if now != value:
            reasons.append("%s is %r, was %r" % (path, now, value))
    return not reasons, reasons


def _why(name: str, check, play) -> str:
    if not isinstance(check, dict):
        return "%s_fast_rerun is false" % name
    reasons = [str(r) for r in check.get("reasons") or [] if r]
    if reasons:
        return "; ".join(reasons)
    if play and not all(isinstance(p, dict) and p.get("converged") for p in play):
        return "another node of the play changed"
    return "%s_fast_rerun is false" % name


def verdict(
    name: str, check, play=None, recorded: bool = False, check_mode: bool = False
) -> dict:
    """What a layer does on this run, and the line the summary prints for it.

    ``check`` is this host's ``plan.layer`` of ``ascend_plan`` (None: the fast path did not run,
    ``<layer>_fast_rerun`` is false); ``play`` the ``plan.layer`` of every node of the play when
    the layer is skipped only if all are converged (preflight); ``recorded`` once the complete
    run wrote its record (``check_mode``: it did not, the run was a check).
    Returns ``{converged, line, message}``."""
    check_name(name)
    hosts = [check] if play is None else list(play)
    done = (
        isinstance(check, dict)
        and bool(hosts)
        and all(isinstance(h, dict) and h.get("converged") for h in hosts)
    )
    if done and not recorded:
        return {
            "converged": True,
            "line": "%s: skipped as unchanged (node and settings as its last complete run "
            "left them)" % name,
            "message": "Nothing to do: %s is as the last complete run of %s left it, with the "
            "same settings (record: /var/lib/cubestudio-ascend/layers/%s.json; %s_fast_rerun: "
            "false checks everything again)."
            % (
                "every node of the play" if play is not None else "the node",
                name,
                name,
                name,
            ),
        }
    why = _why(name, check, play)
    if not recorded:
        line = "%s: runs in full (%s)" % (name, why)
    elif check_mode:
        line = "%s: ran in full in check mode, nothing recorded (%s)" % (name, why)
    else:
        line = "%s: ran in full and verified (%s)" % (name, why)
    return {
        "converged": False,
        "line": line,
        "message": "Running %s in full: %s." % (name, why),
    }


def with_result(results, name: str, check, result: dict) -> dict:
    """``results`` (layer name -> ``{line, check}``, the fact ``_layer_results``) with this
    layer's line and check; the record step finds the check there again."""
    merged = dict(results) if isinstance(results, dict) else {}
    merged[check_name(name)] = {"line": result["line"], "check": check}
    return merged


def recorded_check(results, name: str):
    """The check the layer's fast path kept in ``results`` (None: the fast path did not run)."""
    entry = (results if isinstance(results, dict) else {}).get(name)
    return entry.get("check") if isinstance(entry, dict) else None
