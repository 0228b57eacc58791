# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The record that lets an engine-config module (docker_runtime_config,
# containerd_runtime_config) put an engine's file back exactly as the user had it before the
# runtime was first added: the user's own bytes, or no file at all when there was none.
#
# The record is a small JSON file kept by the caller (a role) outside the engine's directory:
#   {"format": 1, "path": <engine file>, "original": <text or null>, "written": <text>}
# "original" is the file before the first change (null: it did not exist), "written" what the
# module wrote last. On removal the original comes back only when the file is still what the
# module wrote (nobody changed it since); otherwise only the runtime's entries are taken out,
# so a later edit of the user is never lost.
#
# Entry points:
#   load_record(text, path)                             -> dict, raises OriginalRecordError
#   next_record(previous, path, before, after, pristine) -> record text or None
#   plan_restore(record, current, cleaned, same)        -> (target, how)

from __future__ import annotations

import json

__all__ = [
    "FORMAT",
    "OriginalRecordError",
    "load_record",
    "next_record",
    "plan_restore",
]

FORMAT = 1


class OriginalRecordError(ValueError):
    """The record cannot be used; the message says why and what to do."""


def load_record(text, path):
    """The record read from ``text`` (the content of the record file at ``path``)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise OriginalRecordError(
            "the record %s of the engine file's original content is not JSON (%s): move it "
            "away to remove only the runtime's entries" % (path, exc)
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("written"), str)
        or not (data.get("original") is None or isinstance(data.get("original"), str))
    ):
        raise OriginalRecordError(
            "the record %s of the engine file's original content is not a record of format "
            "%d (original, written): move it away to remove only the runtime's entries"
            % (path, FORMAT)
        )
    return data


def next_record(previous, path, before, after, pristine):
    """The record to keep after the module wrote ``after`` over ``before``.

    ``previous`` is the record read before (None when there was none), ``before`` the file
    before this change (None: it did not exist), ``pristine`` whether ``before`` holds nothing
    of the runtime. Returns the record's text, or None when no record should be kept: the file
    held the runtime already without a record (installed by something else, or before records
    existed), or it was changed by someone else since the record was written, so its original
    is no longer the user's latest content.
    """
    if previous is not None:
        if previous["written"] != before:
            return None
        original = previous["original"]
    elif pristine:
        original = before
    else:
        return None
    record = {"format": FORMAT, "path": path, "original": original, "written": after}
    return json.dumps(record, indent=2, sort_keys=True) + "\n"


def plan_restore(record, current, cleaned, same):
    """What the engine file becomes when the runtime is removed.

    ``record`` is the loaded record or None, ``current`` the file's text (None: missing),
    ``cleaned`` the current text with the runtime's entries removed (the module's absent edit),
    ``same(a, b)`` whether two texts configure the engine the same way. Returns
    ``(target, how)``: ``target`` the new text, or None for "no file"; ``how`` one of
    ``original`` (the user's file before the runtime, byte for byte), ``edited`` (the
    runtime's entries removed, no usable record), ``changed_since`` (the runtime's entries
    removed because the file was changed after the module wrote it) and ``missing`` (there
    is no file, nothing to do).
    """
    if current is None:
        return None, "missing"
    if record is None:
        return cleaned, "edited"
    if current == record["written"] or same(current, record["written"]):
        return record["original"], "original"
    return cleaned, "changed_since"
