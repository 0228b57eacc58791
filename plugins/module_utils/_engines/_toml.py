# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. A TOML 1.0 reader that remembers where every table and value sits in the text, and
# a line-based editor built on it that changes only the lines it must.
#
# Managed nodes may run Python 3.8 with nothing but the standard library, so neither tomllib
# (3.11+) nor tomlkit can be used. The reader accepts what TOML 1.0 accepts and refuses what it
# refuses (checked against tomllib in the unit tests), with one documented simplification:
# dates, times and date-times are validated but returned as ``TomlDateTime``, a ``str``
# subclass holding their source text, instead of ``datetime`` objects.
#
# Entry points:
#   loads(text)            -> dict, like tomllib.loads (raises TomlError)
#   TomlDocument(text)     parsed document with positions; ``.data`` is what loads returns
#     .get(path)           value at a key path or None
#     .set_key(table, key, value)     replace a value in place or add one ``key = value`` line
#     .insert_table(path, items, subtables, after, template)  add a [table] block
#     .delete_path(path)   remove the lines of a table or key (and its sub-tables)
#     .insert_line_at_top(line)
#   render_value(value, literal)  one TOML value as text
#   TomlError, TomlEditError

from __future__ import annotations

import bisect
import datetime
import math
import re

__all__ = [
    "TomlDateTime",
    "TomlDocument",
    "TomlEditError",
    "TomlError",
    "loads",
    "render_value",
]


class TomlError(ValueError):
    """The text is not valid TOML. ``line`` and ``column`` are 1-based."""

    def __init__(self, msg, line=None, column=None):
        self.msg = msg
        self.line = line
        self.column = column
        text = msg if line is None else "line %d, column %d: %s" % (line, column, msg)
        super().__init__(text)


class TomlEditError(ValueError):
    """The requested change cannot be made by editing lines (the text is left alone)."""


class TomlDateTime(str):
    """A TOML date, time or date-time, validated and kept as its source text."""

    __slots__ = ()


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_WS = " \t"
# Characters allowed as-is inside basic and literal strings: anything but control characters
# (tab is allowed), quotes and backslashes are handled by the callers.
_BASIC_RUN = re.compile(r'[^"\\\x00-\x08\x0a-\x1f\x7f]+')
_ML_BASIC_RUN = re.compile(r'[^"\\\x00-\x08\x0b-\x1f\x7f]+')
_LITERAL_RUN = re.compile(r"[^'\x00-\x08\x0a-\x1f\x7f]+")
_ML_LITERAL_RUN = re.compile(r"[^'\x00-\x08\x0b-\x1f\x7f]+")
_COMMENT_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    '"': '"',
    "\\": "\\",
}
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?"
)
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?")
_DEC = re.compile(
    r"[+-]?(?:0|[1-9](?:_?[0-9])*)(\.[0-9](?:_?[0-9])*)?([eE][+-]?[0-9](?:_?[0-9])*)?"
)
_PREFIXED = {
    "0x": (re.compile(r"0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*"), 16),
    "0o": (re.compile(r"0o[0-7](?:_?[0-7])*"), 8),
    "0b": (re.compile(r"0b[01](?:_?[01])*"), 2),
}
_SPECIAL_FLOAT = re.compile(r"[+-]?(?:inf|nan)")

_EXPLICIT = (
    "explicit"  # table declared by a [header] or by dotted keys of a finished section
)
_FROZEN = "frozen"  # inline table or array value: nothing may be added to it


class _Flags:
    """Which key paths (without array indices) are declared or frozen."""

    def __init__(self):
        self._flags = {}
        self._recursive = {}
        self._pending = []

    def is_set(self, key, flag):
        for i in range(1, len(key) + 1):
            if flag in self._recursive.get(key[:i], ()):
                return True
        return flag in self._flags.get(key, ())

    def set(self, key, flag, recursive=False):
        store = self._recursive if recursive else self._flags
        store.setdefault(key, set()).add(flag)

    def unset_all(self, key):
        n = len(key)
        for store in (self._flags, self._recursive):
            for k in [k for k in store if k[:n] == key]:
                del store[k]

    def add_pending(self, key, flag):
        self._pending.append((key, flag))

    def finalize_pending(self):
        for key, flag in self._pending:
            self.set(key, flag)
        self._pending = []


class _Section:
    """One table section: the root (before any header), a [table] or one [[array]] element."""

    __slots__ = ("end_line", "entries", "header_line", "indent", "kind", "path")

    def __init__(self, kind, path, header_line, indent):
        self.kind = kind  # "root", "table" or "array"
        self.path = path  # key path; array-of-tables elements are addressed by index
        self.header_line = header_line  # 0-based line index, None for the root
        self.end_line = None  # index of the first line after the section
        self.indent = indent
        self.entries = []


class _Entry:
    """One ``key = value`` statement of a section."""

    __slots__ = ("first_line", "indent", "last_line", "path", "rel_key", "section")

    def __init__(self, section, rel_key, path, first_line, last_line, indent):
        self.section = section
        self.rel_key = rel_key
        self.path = path
        self.first_line = first_line
        self.last_line = last_line
        self.indent = indent


class _Parser:
    def __init__(self, src):
        self.src = src
        self.pos = 0
        self.n = len(src)
        self.newlines = [m.start() for m in re.finditer("\n", src)]
        self.root = {}
        self.flags = _Flags()
        self.sections = []
        self.spans = {}  # value path -> (start, end) offsets of its text
        self.key_tokens = {}  # key string -> the raw text it was first written as
        self.string_styles = [0, 0]  # [basic, literal] string values seen
        self.table = self.root
        self.table_path = ()
        self.table_key = ()

    # -- positions and errors -------------------------------------------------------------

    def line_index(self, pos):
        return bisect.bisect_left(self.newlines, pos)

    def error(self, msg, pos=None):
        if pos is None:
            pos = self.pos
        line = self.line_index(pos)
        line_start = self.newlines[line - 1] + 1 if line else 0
        raise TomlError(msg, line + 1, pos - line_start + 1)

    def peek(self, k=1):
        return self.src[self.pos : self.pos + k]

    def skip_ws(self):
        src, pos, n = self.src, self.pos, self.n
        while pos < n and src[pos] in _WS:
            pos += 1
        self.pos = pos

    def skip_comment(self):
        end = self.src.find("\n", self.pos)
        if end < 0:
            end = self.n
        text = self.src[self.pos : end]
        if text.endswith("\r"):
            text = text[:-1]
        bad = _COMMENT_BAD.search(text)
        if bad:
            self.error(
                "control character %r is not allowed in a comment" % bad.group(),
                self.pos + bad.start(),
            )
        self.pos += len(text)

    def at_newline(self):
        return self.peek() == "\n" or self.peek(2) == "\r\n"

    def skip_newline(self):
        if self.peek() == "\n":
            self.pos += 1
        elif self.peek(2) == "\r\n":
            self.pos += 2
        else:
            self.error("expected a new line")

    def skip_blank(self):
        """Skip whitespace, comments and new lines (inside arrays)."""
        while True:
            self.skip_ws()
            if self.peek() == "#":
                self.skip_comment()
            elif self.at_newline():
                self.skip_newline()
            else:
                return

    # -- document --------------------------------------------------------------------------

    def parse(self):
        self.sections.append(_Section("root", (), None, ""))
        while True:
            self.skip_ws()
            if self.pos >= self.n:
                break
            c = self.src[self.pos]
            if c == "[":
                self.parse_header()
            elif c == "#" or c == "\n" or c == "\r":
                pass
            else:
                self.parse_statement()
            self.skip_ws()
            if self.peek() == "#":
                self.skip_comment()
            if self.pos >= self.n:
                break
            if not self.at_newline():
                self.error(
                    "expected a new line or the end of the document, found %r"
                    % self.peek()
                )
            self.skip_newline()
        self.sections[-1].end_line = len(self.newlines) + 1
        return self.root

    def line_indent(self, pos):
        line = self.line_index(pos)
        start = self.newlines[line - 1] + 1 if line else 0
        return self.src[start:pos]

    def parse_header(self):
        start = self.pos
        array = self.peek(2) == "[["
        self.pos += 2 if array else 1
        self.skip_ws()
        key = self.parse_key()
        self.skip_ws()
        closing = "]]" if array else "]"
        if self.peek(len(closing)) != closing:
            self.error("expected %r to close the table header" % closing)
        self.pos += len(closing)
        self.flags.finalize_pending()
        if array:
            if self.flags.is_set(key, _FROZEN):
                self.error(
                    "cannot append to %s: it is a static array or inline table"
                    % _dotted(key),
                    start,
                )
            self.flags.unset_all(key)
            self.flags.set(key, _EXPLICIT)
            parent, ppath = self.walk(self.root, (), key[:-1], start)
            last = key[-1]
            if last not in parent:
                parent[last] = []
            elif not isinstance(parent[last], list):
                self.error(
                    "cannot define array of tables %s: the key is already defined"
                    % _dotted(key),
                    start,
                )
            parent[last].append({})
            table = parent[last][-1]
            path = ppath + (last, len(parent[last]) - 1)
        else:
            if self.flags.is_set(key, _EXPLICIT) or self.flags.is_set(key, _FROZEN):
                self.error("table %s is defined more than once" % _dotted(key), start)
            self.flags.set(key, _EXPLICIT)
            table, path = self.walk(self.root, (), key, start)
        self.table, self.table_path, self.table_key = table, path, key
        line = self.line_index(start)
        self.sections[-1].end_line = line
        self.sections.append(
            _Section("array" if array else "table", path, line, self.line_indent(start))
        )

    def walk(self, table, path, key, err_pos, create=True):
        """Descend (creating tables) along ``key``; arrays of tables go to their last element."""
        path = tuple(path)
        for k in key:
            if k not in table:
                table[k] = {}
            table = table[k]
            path += (k,)
            if isinstance(table, list):
                if not table or not isinstance(table[-1], dict):
                    self.error(
                        "key %s is an array, not a table" % _dotted(path), err_pos
                    )
                path += (len(table) - 1,)
                table = table[-1]
            elif not isinstance(table, dict):
                self.error(
                    "key %s already holds a value, it is not a table" % _dotted(path),
                    err_pos,
                )
        return table, path

    def parse_statement(self):
        start = self.pos
        key = self.parse_key()
        self.skip_ws()
        if self.peek() != "=":
            self.error("expected '=' after the key %s" % _dotted(key))
        self.pos += 1
        self.skip_ws()
        header = self.table_key
        for i in range(1, len(key)):
            sub = header + key[:i]
            if self.flags.is_set(sub, _EXPLICIT):
                self.error(
                    "cannot add keys to table %s here: it is defined elsewhere"
                    % _dotted(sub),
                    start,
                )
            self.flags.add_pending(sub, _EXPLICIT)
        if self.flags.is_set(header + key[:-1], _FROZEN):
            self.error(
                "cannot add keys to %s: it is an inline table or array"
                % _dotted(header + key[:-1]),
                start,
            )
        parent, ppath = self.walk(self.table, self.table_path, key[:-1], start)
        if key[-1] in parent:
            self.error(
                "key %s is defined more than once" % _dotted(header + key), start
            )
        path = ppath + (key[-1],)
        value = self.parse_value(path)
        parent[key[-1]] = value
        if isinstance(value, (dict, list)):
            self.flags.set(header + key, _FROZEN, recursive=True)
        section = self.sections[-1]
        section.entries.append(
            _Entry(
                len(self.sections) - 1,
                key,
                path,
                self.line_index(start),
                self.line_index(self.pos),
                self.line_indent(start),
            )
        )

    # -- keys ------------------------------------------------------------------------------

    def parse_key(self):
        parts = [self.parse_simple_key()]
        while True:
            save = self.pos
            self.skip_ws()
            if self.peek() != ".":
                self.pos = save
                return tuple(parts)
            self.pos += 1
            self.skip_ws()
            parts.append(self.parse_simple_key())

    def parse_simple_key(self):
        start = self.pos
        c = self.peek()
        if c == '"':
            key = self.parse_basic_string()
        elif c == "'":
            key = self.parse_literal_string()
        else:
            m = _BARE_KEY.match(self.src, self.pos)
            if not m:
                self.error("expected a key, found %r" % (c or "end of document"))
            key = m.group()
            self.pos = m.end()
        self.key_tokens.setdefault(key, self.src[start : self.pos])
        return key

    # -- values ----------------------------------------------------------------------------

    def parse_value(self, path):
        start = self.pos
        c = self.peek()
        if c == '"':
            if self.peek(3) == '"""':
                value = self.parse_ml_basic_string()
            else:
                value = self.parse_basic_string()
            self.string_styles[0] += 1
        elif c == "'":
            if self.peek(3) == "'''":
                value = self.parse_ml_literal_string()
            else:
                value = self.parse_literal_string()
            self.string_styles[1] += 1
        elif c == "[":
            value = self.parse_array(path)
        elif c == "{":
            value = self.parse_inline_table(path)
        elif self.src.startswith("true", self.pos):
            value = True
            self.pos += 4
        elif self.src.startswith("false", self.pos):
            value = False
            self.pos += 5
        else:
            value = self.parse_scalar()
        self.spans[path] = (start, self.pos)
        return value

    def parse_scalar(self):
        src, pos = self.src, self.pos
        m = _DATETIME.match(src, pos)
        if m:
            self.check_datetime(m)
            self.pos = m.end()
            return TomlDateTime(m.group())
        m = _TIME.match(src, pos)
        if m:
            self.check_time(m.group(1), m.group(2), m.group(3), m.start())
            self.pos = m.end()
            return TomlDateTime(m.group())
        m = _SPECIAL_FLOAT.match(src, pos)
        if m:
            self.pos = m.end()
            return float(m.group())
        prefix = src[pos : pos + 2]
        if prefix in _PREFIXED:
            regex, base = _PREFIXED[prefix]
            m = regex.match(src, pos)
            if not m:
                self.error("invalid number")
            self.pos = m.end()
            return int(m.group()[2:].replace("_", ""), base)
        m = _DEC.match(src, pos)
        if not m:
            self.error(
                "invalid value %r" % (src[pos : pos + 20].split("\n")[0] or "(nothing)")
            )
        self.pos = m.end()
        text = m.group().replace("_", "")
        if m.group(1) or m.group(2):
            return float(text)
        return int(text)

    def check_time(self, hour, minute, second, pos):
        if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
            self.error("invalid time", pos)

    def check_datetime(self, m):
        try:
            datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            self.error("invalid date", m.start())
        if m.group(4) is not None:
            self.check_time(m.group(4), m.group(5), m.group(6), m.start())
        if m.group(9) is not None and (int(m.group(10)) > 23 or int(m.group(11)) > 59):
            self.error("invalid time zone offset", m.start())

    def parse_array(self, path):
        self.pos += 1
        array = []
        while True:
            self.skip_blank()
            if self.peek() == "]":
                self.pos += 1
                return array
            array.append(self.parse_value(path + (len(array),)))
            self.skip_blank()
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c == "]":
                self.pos += 1
                return array
            else:
                self.error(
                    "expected ',' or ']' in an array, found %r"
                    % (c or "end of document")
                )

    def parse_inline_table(self, path):
        self.pos += 1
        table = {}
        frozen = set()  # ids of the tables given as inline values inside this one
        dotted = set()
        self.skip_ws()
        if self.peek() == "}":
            self.pos += 1
            return table
        while True:
            start = self.pos
            key = self.parse_key()
            self.skip_ws()
            if self.peek() != "=":
                self.error("expected '=' after the key %s" % _dotted(key))
            self.pos += 1
            self.skip_ws()
            parent = table
            for i, k in enumerate(key[:-1]):
                if k not in parent:
                    parent[k] = {}
                    dotted.add(id(parent[k]))
                parent = parent[k]
                if (
                    not isinstance(parent, dict)
                    or id(parent) in frozen
                    or id(parent) not in dotted
                ):
                    self.error(
                        "key %s is defined more than once" % _dotted(key[: i + 1]),
                        start,
                    )
            if key[-1] in parent:
                self.error("key %s is defined more than once" % _dotted(key), start)
            value = self.parse_value(path + key)
            if isinstance(value, dict):
                frozen.add(id(value))
            parent[key[-1]] = value
            self.skip_ws()
            c = self.peek()
            if c == ",":
                self.pos += 1
                self.skip_ws()
            elif c == "}":
                self.pos += 1
                return table
            else:
                self.error(
                    "expected ',' or '}' in an inline table, found %r"
                    % (c or "end of document")
                )

    # -- strings ---------------------------------------------------------------------------

    def parse_escape(self, out):
        """At a backslash of a basic string: append the escaped character."""
        c = self.src[self.pos + 1 : self.pos + 2]
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
            self.pos += 2
            return
        if c in ("u", "U"):
            size = 4 if c == "u" else 8
            digits = self.src[self.pos + 2 : self.pos + 2 + size]
            if len(digits) != size or not all(
                d in "0123456789abcdefABCDEF" for d in digits
            ):
                self.error("invalid unicode escape")
            code = int(digits, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                self.error("escape is not a unicode scalar value")
            out.append(chr(code))
            self.pos += 2 + size
            return
        self.error("invalid escape sequence %r" % ("\\" + c))

    def parse_basic_string(self):
        self.pos += 1
        out = []
        while True:
            m = _BASIC_RUN.match(self.src, self.pos)
            if m:
                out.append(m.group())
                self.pos = m.end()
            c = self.peek()
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c == "\\":
                self.parse_escape(out)
            elif not c or c in "\r\n":
                self.error("unterminated string")
            else:
                self.error("control character %r is not allowed in a string" % c)

    def parse_ml_basic_string(self):
        self.pos += 3
        if self.at_newline():
            self.skip_newline()
        out = []
        while True:
            m = _ML_BASIC_RUN.match(self.src, self.pos)
            if m:
                out.append(m.group())
                self.pos = m.end()
            c = self.peek()
            if c == '"':
                n = 0
                while self.peek() == '"':
                    n += 1
                    self.pos += 1
                if n >= 3:
                    if n > 5:
                        self.error("too many quotes at the end of a multi-line string")
                    out.append('"' * (n - 3))
                    return "".join(out)
                out.append('"' * n)
            elif c == "\\":
                nxt = self.src[self.pos + 1 : self.pos + 2]
                if nxt and (nxt in _WS or nxt in "\r\n"):
                    self.pos += 1
                    self.skip_ws()
                    if not self.at_newline():
                        self.error(
                            "a backslash ending a line may only be followed by spaces"
                        )
                    while True:
                        self.skip_ws()
                        if not self.at_newline():
                            break
                        self.skip_newline()
                else:
                    self.parse_escape(out)
            elif c == "\r" and self.peek(2) == "\r\n":
                out.append("\r\n")
                self.pos += 2
            elif not c:
                self.error("unterminated multi-line string")
            else:
                self.error("control character %r is not allowed in a string" % c)

    def parse_literal_string(self):
        self.pos += 1
        m = _LITERAL_RUN.match(self.src, self.pos)
        text = ""
        if m:
            text = m.group()
            self.pos = m.end()
        c = self.peek()
        if c != "'":
            if not c or c in "\r\n":
                self.error("unterminated string")
            self.error("control character %r is not allowed in a string" % c)
        self.pos += 1
        return text

    def parse_ml_literal_string(self):
        self.pos += 3
        if self.at_newline():
            self.skip_newline()
        out = []
        while True:
            m = _ML_LITERAL_RUN.match(self.src, self.pos)
            if m:
                out.append(m.group())
                self.pos = m.end()
            c = self.peek()
            if c == "'":
                n = 0
                while self.peek() == "'":
                    n += 1
                    self.pos += 1
                if n >= 3:
                    if n > 5:
                        self.error("too many quotes at the end of a multi-line string")
                    out.append("'" * (n - 3))
                    return "".join(out)
                out.append("'" * n)
            elif c == "\r" and self.peek(2) == "\r\n":
                out.append("\r\n")
                self.pos += 2
            elif not c:
                self.error("unterminated multi-line string")
            else:
                self.error("control character %r is not allowed in a string" % c)


def _dotted(key):
    return ".".join(str(k) for k in key) or "(root)"


def loads(text):
    """Parse TOML text into a dict (dates and times as TomlDateTime)."""
    if not isinstance(text, str):
        raise TypeError("loads() takes a str")
    return _Parser(text).parse()


# -- rendering ---------------------------------------------------------------------------------


def _basic_quote(text):
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\t\n\f\r":
            out.append(
                {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch]
            )
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04X" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _quote(text, literal):
    if literal and "'" not in text and not re.search(r"[\x00-\x08\x0a-\x1f\x7f]", text):
        return "'" + text + "'"
    return _basic_quote(text)


def render_key(key, literal=False, tokens=None):
    if tokens and key in tokens:
        return tokens[key]
    if _BARE_KEY.fullmatch(key):
        return key
    return _quote(key, literal)


def render_value(value, literal=False):
    """One value as TOML text; strings as literal strings when ``literal`` and possible."""
    if isinstance(value, TomlDateTime):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _quote(value, literal)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render_value(v, literal) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = (
            "%s = %s" % (render_key(k, literal), render_value(v, literal))
            for k, v in value.items()
        )
        return "{ " + ", ".join(items) + " }"
    raise TypeError("cannot render %r as TOML" % (value,))


# -- the document editor -----------------------------------------------------------------------


def _is_blank_or_comment(line):
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


class TomlDocument:
    """A parsed TOML text that can be edited line by line.

    Every edit rewrites only the lines it concerns and re-parses the result, so ``.text``,
    ``.data`` and the positions always agree. ``.data`` equals what ``loads(.text)`` returns.
    """

    def __init__(self, text):
        self._load(text)

    def _load(self, text):
        parser = _Parser(text)
        self.data = parser.parse()
        self.text = text
        self.sections = parser.sections
        self.spans = parser.spans
        self.key_tokens = parser.key_tokens
        basic, literal = parser.string_styles
        self.literal = literal > basic
        self.newline = "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"
        self.lines = text.split("\n")
        # ``lines`` keeps no line ends: the text is "\n".join(lines).

    # -- reading -----------------------------------------------------------------------------

    def get(self, path, default=None):
        value = self.data
        for k in path:
            if (isinstance(value, dict) and k in value) or (
                isinstance(value, list)
                and isinstance(k, int)
                and -len(value) <= k < len(value)
            ):
                value = value[k]
            else:
                return default
        return value

    def _section_at(self, path):
        for section in self.sections:
            if section.kind != "root" and section.path == tuple(path):
                return section
        return None

    def _subtree_sections(self, path):
        n = len(path)
        return [
            s for s in self.sections if s.kind != "root" and s.path[:n] == tuple(path)
        ]

    def _trailing_start(self, section):
        """First line of the run of blank and comment lines that ends a section."""
        line = section.end_line
        first = section.header_line + 1 if section.header_line is not None else 0
        if section.entries:
            first = max(first, section.entries[-1].last_line + 1)
        while line > first and _is_blank_or_comment(self.lines[line - 1]):
            line -= 1
        return line

    def _leading_start(self, section):
        """First line of the run of blank and comment lines just above a header."""
        prev = self.sections[self.sections.index(section) - 1]
        floor = prev.header_line + 1 if prev.header_line is not None else 0
        if prev.entries:
            floor = max(floor, prev.entries[-1].last_line + 1)
        line = section.header_line
        while line > floor and _is_blank_or_comment(self.lines[line - 1]):
            line -= 1
        return line

    def table_gap(self):
        """Whether the file separates tables with a blank line (most headers follow one)."""
        headers = [s.header_line for s in self.sections if s.header_line]
        gaps = sum(1 for line in headers if not self.lines[line - 1].strip())
        return not headers or gaps * 2 >= len(headers)

    def indent_unit(self):
        """The indentation the file adds for keys under a header (may be empty)."""
        counts = {}
        for section in self.sections:
            if section.kind == "root" or not section.entries:
                continue
            key_indent = section.entries[0].indent
            if key_indent.startswith(section.indent):
                unit = key_indent[len(section.indent) :]
                counts[unit] = counts.get(unit, 0) + 1
        if not counts:
            return "  "
        return max(sorted(counts), key=lambda u: counts[u])

    # -- low-level edits -----------------------------------------------------------------------

    def _replace_text(self, text):
        try:
            self._load(text)
        except (
            TomlError
        ) as exc:  # pragma: no cover - a bug in an edit, never user input
            raise TomlEditError(
                "editing produced invalid TOML (%s); nothing was written" % exc
            ) from None

    def _set_lines(self, lines):
        self._replace_text("\n".join(lines))

    def _insert_lines(self, index, new_lines):
        lines = list(self.lines)
        cr = "\r" if self.newline == "\r\n" else ""
        if index >= len(lines):
            if lines[-1] == "":
                index = len(lines) - 1
            else:
                lines[-1] += cr
                lines.append("")
                index = len(lines) - 1
        lines[index:index] = [line + cr for line in new_lines]
        self._set_lines(lines)

    def insert_line_at_top(self, line):
        self._insert_lines(0, [line])

    def render_key_path(self, path):
        return ".".join(render_key(k, self.literal, self.key_tokens) for k in path)

    def render_kv(self, key, value):
        return "%s = %s" % (
            render_key(key, self.literal, self.key_tokens),
            render_value(value, self.literal),
        )

    # -- high-level edits ----------------------------------------------------------------------

    def set_key(self, table, key, value):
        """Give ``table.key`` the value ``value``; return True when the text changed."""
        table = tuple(table)
        path = table + (key,)
        if path in self.spans:
            if _same(self.get(path), value):
                return False
            start, end = self.spans[path]
            self._replace_text(
                self.text[:start] + render_value(value, self.literal) + self.text[end:]
            )
            return True
        if self.get(path) is not None:
            raise TomlEditError(
                "cannot locate the value of %s in the text" % _dotted(path)
            )
        container = self.get(table)
        if container is not None and not isinstance(container, dict):
            raise TomlEditError("%s is not a table" % _dotted(table))
        if table in self.spans:
            raise TomlEditError(
                "%s is an inline table; change it by hand" % _dotted(table)
            )
        section = self._section_at(table) if table else self.sections[0]
        if section is not None:
            self._add_entry(section, (key,), value)
            return True
        owner = self._dotted_owner(table)
        if owner is not None:
            section, rel = owner
            self._add_entry(section, rel + (key,), value, group=rel)
            return True
        self.insert_table(table, [(key, value)])
        return True

    def _dotted_owner(self, table):
        """The section whose dotted keys define ``table``, with the key prefix they use."""
        for section in self.sections:
            n = len(section.path)
            if section.path != table[:n] or n >= len(table):
                continue
            rel = table[n:]
            for entry in section.entries:
                if entry.rel_key[: len(rel)] == rel and len(entry.rel_key) > len(rel):
                    return section, rel
        return None

    def _add_entry(self, section, rel_key, value, group=None):
        entries = section.entries
        if group is not None:
            grouped = [e for e in entries if e.rel_key[: len(group)] == group]
            entries = grouped or entries
        if entries:
            line = entries[-1].last_line + 1
            indent = entries[-1].indent
        else:
            line = section.header_line + 1 if section.header_line is not None else 0
            indent = (
                section.indent + self.indent_unit()
                if section.header_line is not None
                else ""
            )
        text = "%s%s = %s" % (
            indent,
            self.render_key_path(rel_key),
            render_value(value, self.literal),
        )
        if section.header_line is None and not entries:
            # Keys of the root table must come before the first header.
            first_header = min(
                (s.header_line for s in self.sections if s.header_line is not None),
                default=None,
            )
            if first_header is not None:
                line = min(line, first_header)
        self._insert_lines(line, [text])

    def insert_table(self, path, items, subtables=(), after=None, template=None):
        """Add ``[path]`` with ``items`` (key, value pairs) and ``[path.sub]`` tables.

        ``after`` is a table path: the block goes after the last section of its subtree (when
        that subtree has sections). Otherwise the block goes before the first section inside
        ``path``, else after the subtree of the parent table, else at the end.
        ``template`` is a table path whose layout (indentation, blank line before a sub-table)
        is copied when it exists.
        """
        path = tuple(path)
        if self.get(path) is not None and not isinstance(self.get(path), dict):
            raise TomlEditError("%s is not a table" % _dotted(path))
        if (
            self._section_at(path) is not None
            or path in self.spans
            or self._dotted_owner(path)
        ):
            raise TomlEditError("table %s already exists" % _dotted(path))
        unit = self.indent_unit()
        header_indent, key_indent, sub_header_indent, sub_key_indent, sub_gap = (
            self._layout(path, template, unit)
        )
        block = []
        block.append("%s[%s]" % (header_indent, self.render_key_path(path)))
        block.extend(key_indent + self.render_kv(k, v) for k, v in items)
        for sub, sub_items in subtables:
            if sub_gap:
                block.append("")
            block.append(
                "%s[%s]" % (sub_header_indent, self.render_key_path(path + tuple(sub)))
            )
            block.extend(sub_key_indent + self.render_kv(k, v) for k, v in sub_items)

        gap = [""] if self.table_gap() else []
        inside = self._subtree_sections(path)
        anchor = self._subtree_sections(after) if after is not None else []
        if anchor:
            line = self._trailing_start(anchor[-1])
            block = gap + block
        elif inside:
            first = inside[0]
            line = self._leading_start(first)
            if line < first.header_line and self.lines[line].strip() == "":
                line += 1
            block = block + gap
        else:
            parent = self._subtree_sections(path[:-1]) if path[:-1] else []
            line = self._trailing_start(parent[-1]) if parent else len(self.lines)
            if line > 0 and any(x.strip() for x in self.lines[:line]):
                block = gap + block
        self._insert_lines(line, block)

    def _layout(self, path, template, unit):
        tmpl = self._section_at(template) if template is not None else None
        if tmpl is not None:
            header_indent = tmpl.indent
            key_indent = (
                tmpl.entries[0].indent if tmpl.entries else header_indent + unit
            )
            sub = [s for s in self._subtree_sections(template) if s is not tmpl]
            if sub:
                sub_header_indent = sub[0].indent
                sub_key_indent = (
                    sub[0].entries[0].indent
                    if sub[0].entries
                    else sub_header_indent + unit
                )
                sub_gap = (
                    sub[0].header_line > 0
                    and self.lines[sub[0].header_line - 1].strip() == ""
                )
            else:
                sub_header_indent, sub_key_indent, sub_gap = (
                    key_indent,
                    key_indent + unit,
                    False,
                )
            return header_indent, key_indent, sub_header_indent, sub_key_indent, sub_gap
        nearest = None
        for n in range(len(path) - 1, 0, -1):
            nearest = self._section_at(path[:n])
            if nearest is not None:
                depth = len(path) - n
                break
        nested_headers = any(s.indent for s in self.sections if s.kind != "root")
        if nearest is not None and nested_headers:
            header_indent = nearest.indent + unit * min(depth, 1)
        else:
            header_indent = ""
        key_indent = header_indent + unit
        sub_header_indent = key_indent if nested_headers else header_indent
        return (
            header_indent,
            key_indent,
            sub_header_indent,
            sub_header_indent + unit,
            False,
        )

    def delete_path(self, path):
        """Remove a table (with its sub-tables) or a key; return True when the text changed."""
        path = tuple(path)
        n = len(path)
        remove = set()
        for section in self.sections:
            if section.kind == "root" or section.path[:n] != path:
                continue
            start = section.header_line
            end = self._trailing_start(section)
            if start > 0 and self.lines[start - 1].strip() == "":
                start -= 1
            remove.update(range(start, end))
        for section in self.sections:
            for entry in section.entries:
                if entry.path[:n] == path:
                    remove.update(range(entry.first_line, entry.last_line + 1))
        if not remove:
            return False
        self._set_lines([line for i, line in enumerate(self.lines) if i not in remove])
        return True


def _same(a, b):
    """Equal values of the same TOML type (True is not 1, 1 is not 1.0)."""
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b
