# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Pure functions that add or remove one OCI runtime in Docker's daemon.json while
# keeping every other key, the key order and the indentation style of the file.
#
# Entry points:
#   load(text)                         -> dict ({} for an empty file), raises DaemonJsonError
#   detect_style(text)                 -> JsonStyle (indent, separators, final new line)
#   dump(data, style)                  -> text
#   edit_daemon_json(text, ...)        -> (new_text, new_data, actions, warnings); new_text
#                                         is the input text itself when nothing changes
#   DaemonJsonError                    the only exception raised for input that cannot be used

from __future__ import annotations

import copy
import json
import re

__all__ = [
    "DaemonJsonError",
    "JsonStyle",
    "detect_style",
    "dump",
    "edit_daemon_json",
    "load",
]


class DaemonJsonError(ValueError):
    """daemon.json cannot be used; the message says where and how to fix it."""


class JsonStyle:
    def __init__(
        self, indent="    ", item_separator=",", key_separator=": ", final_newline=True
    ):
        self.indent = indent
        self.item_separator = item_separator
        self.key_separator = key_separator
        self.final_newline = final_newline
        self.inline_arrays = (
            set()
        )  # keys whose arrays of scalars the file writes on one line


def load(text):
    """The daemon.json object; an empty (or blank) file is an empty object."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        lineno = getattr(exc, "lineno", None)
        colno = getattr(exc, "colno", None)
        where = " at line %s, column %s" % (lineno, colno) if lineno else ""
        reason = getattr(exc, "msg", str(exc))
        raise DaemonJsonError(
            "is not valid JSON%s: %s. Docker refuses to start with this file too; fix the file "
            "(or move it away) and run again, it was left untouched" % (where, reason)
        ) from None
    if not isinstance(data, dict):
        raise DaemonJsonError(
            "must hold a JSON object ({...}) at the top level, found %s; fix the file (or move "
            "it away) and run again, it was left untouched" % type(data).__name__
        )
    return data


_INLINE_ARRAY = re.compile(r'"((?:[^"\\]|\\.)*)"[ \t]*:[ \t]*\[[ \t]*(?=[^\s\]])')


def detect_style(text):
    """How the file is laid out, so that a rewrite looks like the original."""
    style = JsonStyle(final_newline=text.endswith("\n") or not text.strip())
    body = text.strip()
    style.inline_arrays = set()
    for m in _INLINE_ARRAY.finditer(body):
        try:
            style.inline_arrays.add(json.loads('"%s"' % m.group(1)))
        except ValueError:
            pass
    if not body:
        return style
    m = re.search(r"[{\[][ \t]*\r?\n([ \t]*)[^\s]", body)
    if m is None:
        # Everything on one line.
        style.indent = None
        style.item_separator = "," if re.search(r",[^ \t]", body) else ", "
        style.key_separator = ":" if re.search(r'"[ \t]*:[^ \t]', body) else ": "
        return style
    indent = m.group(1)
    if indent.startswith("\t"):
        style.indent = "\t"
    elif indent:
        style.indent = indent
    style.key_separator = (
        ": " if re.search(r'"[ \t]*:[ \t]', body) or ":" not in body else ":"
    )
    return style


def _scalar(value):
    return not isinstance(value, (dict, list))


def _dump(value, style, level, key=None):
    if not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=False)
    pad = style.indent * (level + 1)
    end = style.indent * level
    if isinstance(value, list):
        if key in style.inline_arrays and all(_scalar(v) for v in value):
            return (
                "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
            )
        items = [pad + _dump(v, style, level + 1) for v in value]
        return "[\n" + (style.item_separator + "\n").join(items) + "\n" + end + "]"
    items = [
        pad
        + json.dumps(k, ensure_ascii=False)
        + style.key_separator
        + _dump(v, style, level + 1, k)
        for k, v in value.items()
    ]
    return "{\n" + (style.item_separator + "\n").join(items) + "\n" + end + "}"


def dump(data, style):
    """The daemon.json text of ``data`` laid out in ``style``."""
    if style.indent is None:
        text = json.dumps(
            data,
            separators=(style.item_separator, style.key_separator),
            ensure_ascii=False,
        )
    else:
        text = _dump(data, style, 0)
    return text + "\n" if style.final_newline else text


def edit_daemon_json(
    text, name, runtime_path, runtime_args=None, default=False, state="present"
):
    """Apply the wanted runtime state to the daemon.json ``text``.

    Returns ``(new_text, new_data, actions, warnings)``. When no action is needed
    ``new_text`` is ``text`` itself, byte for byte.
    """
    data = load(text)
    new = copy.deepcopy(data)
    actions = []
    warnings = []
    runtime_args = list(runtime_args or [])
    runtimes = new.get("runtimes")
    if runtimes is not None and not isinstance(runtimes, dict):
        raise DaemonJsonError(
            'has "runtimes" of type %s; Docker expects an object of runtimes, fix the file and '
            "run again, it was left untouched" % type(runtimes).__name__
        )
    entry = (runtimes or {}).get(name)
    if entry is not None and not isinstance(entry, dict):
        raise DaemonJsonError(
            'has "runtimes"."%s" of type %s; Docker expects an object with "path", fix the file '
            "and run again, it was left untouched" % (name, type(entry).__name__)
        )
    current_default = new.get("default-runtime")

    if state == "present":
        if runtimes is None:
            runtimes = new["runtimes"] = {}
        if entry is None:
            runtimes[name] = {"path": runtime_path, "runtimeArgs": runtime_args}
            actions.append("added runtime %r (path %s)" % (name, runtime_path))
        else:
            if entry.get("path") != runtime_path:
                actions.append(
                    "set path of runtime %r to %s (was %r)"
                    % (name, runtime_path, entry.get("path"))
                )
                entry["path"] = runtime_path
            if entry.get("runtimeArgs") != runtime_args:
                actions.append(
                    "set runtimeArgs of runtime %r to %s (was %s)"
                    % (
                        name,
                        json.dumps(runtime_args),
                        json.dumps(entry.get("runtimeArgs")),
                    )
                )
                entry["runtimeArgs"] = runtime_args
        if default and current_default != name:
            new["default-runtime"] = name
            was = (
                "was %r" % current_default
                if current_default is not None
                else "was not set"
            )
            actions.append("set default-runtime to %r (%s)" % (name, was))
            if current_default not in (None, "runc"):
                warnings.append(
                    "default-runtime was %r; state=absent or default=false removes the key, so "
                    "Docker then uses runc, not %r" % (current_default, current_default)
                )
    elif entry is not None:
        del runtimes[name]
        actions.append("removed runtime %r" % name)
        if not runtimes:
            del new["runtimes"]
            actions.append('removed the "runtimes" object, now empty')
    if (state == "absent" or not default) and current_default == name:
        del new["default-runtime"]
        actions.append("removed default-runtime %r (Docker falls back to runc)" % name)

    if not actions:
        return text, data, actions, warnings
    return dump(new, detect_style(text)), new, actions, warnings
