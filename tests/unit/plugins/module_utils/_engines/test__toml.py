# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The TOML reader against Python's tomllib, and the line editor on real containerd files."""

from __future__ import annotations

import datetime
import difflib
import math
import pathlib
import string

import pytest
import tomllib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    TomlDateTime,
    TomlDocument,
    TomlEditError,
    TomlError,
    loads,
    render_value,
)

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "engine-config"
TOML_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.toml"))


def same(ours, theirs):
    """Deep equality that also checks types (True is not 1) and reads dates back."""
    if isinstance(ours, TomlDateTime):
        assert isinstance(theirs, (datetime.date, datetime.time))
        return tomllib.loads("x = " + ours)["x"] == theirs
    if isinstance(ours, float) and math.isnan(ours):
        return isinstance(theirs, float) and math.isnan(theirs)
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, dict):
        return list(ours) == list(theirs) and all(
            same(ours[k], theirs[k]) for k in ours
        )
    if isinstance(ours, list):
        return len(ours) == len(theirs) and all(
            same(a, b) for a, b in zip(ours, theirs)
        )
    return ours == theirs


@pytest.mark.parametrize("name", TOML_FIXTURES)
def test_reader_equals_tomllib_on_real_files(name):
    text = (FIXTURES / name).read_text()
    assert same(loads(text), tomllib.loads(text))


def test_fixture_set_covers_the_three_config_versions():
    versions = {
        tomllib.loads((FIXTURES / n).read_text()).get("version", 1)
        for n in TOML_FIXTURES
    }
    assert versions == {1, 2, 3}


VALID = [
    'a = "x\\ty\\u00e9\\U0001F600"',
    "a = 'C:\\path\\'",
    'a = """\nline1\nline2"""',
    'a = """one \\\n      two"""',
    'a = """a""""',
    'a = """a"""""',
    "a = '''\nraw \\n'''",
    "a = ''''quoted'''''",
    "a = 0xDEAD_beef",
    "a = 0o755\nb = 0b1010\nc = -17\nd = +99\ne = 1_000",
    "a = 3.14\nb = -0.0\nc = 5e+22\nd = 1e06\ne = 6.626e-34\nf = 224_617.445_991",
    "a = inf\nb = -inf\nc = nan\nd = +inf",
    "a = true\nb = false",
    "a = 1979-05-27T07:32:00Z\nb = 1979-05-27 00:32:00.999999-07:00\nc = 1979-05-27\nd = 07:32:00\ne = 1979-05-27t07:32:00",
    "a = [ 1, 2, ]\nb = [\n  # comment\n  'x', # more\n  \"y\",\n]\nc = [[1, 2], ['a'], []]\nd = [1, 'mixed', {x = 1}]",
    "a = { x = 1, y.z = 2, 'q' = \"w\" }\nb = {}",
    "[a.b.c]\nx = 1\n[a]\ny = 2",
    "[a]\nb.c = 1\nb.d = 2\n[a.b.e]\nf = 3",
    "[[fruits]]\nname = 'apple'\n[fruits.physical]\ncolor = 'red'\n[[fruits.varieties]]\nname = 'red delicious'\n"
    "[[fruits]]\nname = 'banana'\n[[fruits.varieties]]\nname = 'plantain'",
    '"quoted key" = 1\n\'literal key\' = 2\n"" = 3\n"a.b" = 4\n1234 = 5\n-_ = 6',
    'site."google.com" = true\n  a . b . c = 1',
    "# only a comment\r\na = 1\r\n[t]\r\nb = 'x' # trailing\r\n",
    "a = 1 # comment\n\n\n",
    "",
    'a = "\\""',
]


@pytest.mark.parametrize("text", VALID)
def test_reader_equals_tomllib_on_valid_documents(text):
    assert same(loads(text), tomllib.loads(text))


INVALID = [
    ("a = 1\na = 2", 2),
    ("[a]\n[a]", 2),
    ("[a]\nb.c = 1\n[a.b]", 3),
    ("[a.b]\nc = 1\n[a]\nb.d = 2", 4),
    ("a.b = 1\n[a]", 2),
    ("a = {x = 1}\n[a.b]", 2),
    ("a = {x = 1}\na.y = 2", 2),
    ("a = [1]\n[[a]]", 2),
    ("[a]\n[[a]]", 2),
    ("[[a]]\n[a]", 2),
    ("a = 1\n[a.b]", 2),
    ("a = { x = 1, }", 1),
    ("a = { x = 1,\n y = 2 }", 1),
    ("a = {x = 1, x = 2}", 1),
    ("a = {x.y = 1, x = 2}", 1),
    ('a = "unterminated', 1),
    ('a = "bad \\e escape"', 1),
    ('a = "\\uD800"', 1),
    ("a = 'line\nbreak'", 1),
    ("a = 01", 1),
    ("a = 1__0", 1),
    ("a = 1.", 1),
    ("a = .5", 1),
    ("a = +0x10", 1),
    ("a = 1979-02-30", 1),
    ("a = 24:00:00", 1),
    ("a = 1979-05-27T07:32", 1),
    ("a = truex", 1),
    ("a = 1 b = 2", 1),
    ("a =", 1),
    ("= 1", 1),
    ("[a", 1),
    ("[[a]", 1),
    ("a = [1 2]", 1),
    ('x = 1\n\na = "ctl\x01"', 3),
    ("# comment with \x7f\n", 1),
    ("a = 1\rb = 2", 1),
    ('a = """abc""""""', 1),
    ("a = 1\n[b]\nc = 1\n[b.c]", 4),
]


@pytest.mark.parametrize(("text", "line"), INVALID)
def test_reader_refuses_what_tomllib_refuses(text, line):
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    with pytest.raises(TomlError) as exc:
        loads(text)
    assert exc.value.line == line
    assert str(exc.value).startswith("line %d, column " % line)


def test_error_names_line_and_column_in_a_real_file():
    text = (FIXTURES / "containerd-1.6.20-default.toml").read_text()
    broken = text.replace(
        '  [plugins."io.containerd.grpc.v1.cri".cni]',
        '  [plugins."io.containerd.grpc.v1.cri".cni',
        1,
    )
    line = broken.splitlines().index('    [plugins."io.containerd.grpc.v1.cri".cni') + 1
    with pytest.raises(TomlError) as exc:
        loads(broken)
    assert exc.value.line == line
    assert "close the table header" in exc.value.msg


# -- hypothesis: random documents read like tomllib reads them --------------------------------

KEY_CHARS = string.ascii_letters + string.digits + "_-"
bare_keys = st.text(KEY_CHARS, min_size=1, max_size=8)
any_keys = st.one_of(
    bare_keys, st.text(min_size=0, max_size=8).filter(lambda s: "\x7f" not in s)
)
text_values = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f"),
    max_size=20,
)
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    text_values,
    st.dates().map(lambda d: TomlDateTime(d.isoformat())),
    st.times().map(lambda t: TomlDateTime(t.replace(tzinfo=None).isoformat())),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(any_keys, children, max_size=4),
    ),
    max_leaves=12,
)


def quote_key(key, literal):
    return (
        render_value(key, literal)
        if key == "" or any(c not in KEY_CHARS for c in key)
        else key
    )


@st.composite
def documents(draw):
    """A random document written in one of several styles (headers, dotted keys, inline)."""
    literal = draw(st.booleans())
    root = draw(st.dictionaries(bare_keys, scalars, max_size=3))
    tables = draw(
        st.dictionaries(
            st.tuples(any_keys, any_keys),
            st.dictionaries(any_keys, values, max_size=4),
            max_size=4,
        )
    )
    lines = ["# generated"]
    lines += [
        "%s = %s" % (quote_key(k, literal), render_value(v, literal))
        for k, v in root.items()
    ]
    expected = dict(root)
    seen_parents = set()
    for (parent, child), body in tables.items():
        if parent in expected and (
            parent not in seen_parents or child in expected[parent]
        ):
            continue
        seen_parents.add(parent)
        expected.setdefault(parent, {})[child] = body
        header = "%s.%s" % (quote_key(parent, literal), quote_key(child, literal))
        lines.append("")
        lines.append("[%s]  # a table" % header)
        for k, v in body.items():
            lines.append(
                "  %s = %s" % (quote_key(k, literal), render_value(v, literal))
            )
    return "\n".join(lines) + "\n", expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_hypothesis_reader_equals_tomllib(doc):
    text, expected = doc
    ours = loads(text)
    assert same(ours, tomllib.loads(text))
    assert same_data(ours, expected)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans())
def test_hypothesis_render_value_round_trips(value, literal):
    text = "v = %s\n" % render_value(value, literal)
    assert same(loads(text)["v"], tomllib.loads(text)["v"])
    assert same_data(
        loads(text)["v"], value if not isinstance(value, tuple) else list(value)
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_hypothesis_reader_accepts_exactly_what_tomllib_accepts(text):
    try:
        theirs = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        with pytest.raises(TomlError):
            loads(text)
    else:
        assert same(loads(text), theirs)


# -- the line editor -----------------------------------------------------------------------


def changed_lines(before, after):
    """(removed, added) lines between two texts."""
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=before.splitlines(), b=after.splitlines()
    ).get_opcodes():
        if op in ("replace", "delete"):
            removed += before.splitlines()[i1:i2]
        if op in ("replace", "insert"):
            added += after.splitlines()[j1:j2]
    return removed, added


def test_set_key_replaces_only_the_value_and_keeps_the_comment():
    text = "[a]\n  x = 1   # keep me\n  y = 'z'\n"
    doc = TomlDocument(text)
    assert doc.set_key(("a",), "x", 2) is True
    assert doc.text == "[a]\n  x = 2   # keep me\n  y = 'z'\n"
    assert doc.set_key(("a",), "x", 2) is False


def test_set_key_does_not_confuse_one_with_true():
    doc = TomlDocument("a = 1\n")
    assert doc.set_key((), "a", True) is True
    assert doc.text == "a = true\n"


def test_set_key_adds_a_line_after_the_last_key_with_its_indentation():
    text = "[a]\n    x = 1\n\n# about b\n[b]\n"
    doc = TomlDocument(text)
    doc.set_key(("a",), "y", "v")
    assert doc.text == '[a]\n    x = 1\n    y = "v"\n\n# about b\n[b]\n'


def test_set_key_uses_literal_strings_in_a_literal_file():
    doc = TomlDocument("[a]\n  x = 'one'\n  y = 'two'\n")
    doc.set_key(("a",), "z", "three")
    assert doc.text.endswith("  z = 'three'\n")
    doc.set_key(("a",), "w", "it's")
    assert doc.text.endswith('  w = "it\'s"\n')


def test_set_key_in_a_table_defined_by_dotted_keys_adds_a_dotted_key():
    doc = TomlDocument("[p]\n  c.x = 1\n  d = 2\n")
    doc.set_key(("p", "c"), "y", 3)
    assert doc.text == "[p]\n  c.x = 1\n  c.y = 3\n  d = 2\n"
    assert tomllib.loads(doc.text) == {"p": {"c": {"x": 1, "y": 3}, "d": 2}}


def test_set_key_in_an_inline_table_replaces_the_value_but_refuses_new_keys():
    doc = TomlDocument("r = { a = 1, b = 'x' }\n")
    doc.set_key(("r",), "a", 5)
    assert doc.text == "r = { a = 5, b = 'x' }\n"
    with pytest.raises(TomlEditError, match="inline table"):
        doc.set_key(("r",), "c", 1)
    assert doc.text == "r = { a = 5, b = 'x' }\n"


def test_set_key_creates_a_missing_table_before_its_sub_tables():
    # The file puts a blank line before its tables, so the new table gets one too.
    text = "x = 1\n\n[q]\n\n# runc\n[p.c.r]\n  k = 1\n"
    doc = TomlDocument(text)
    doc.set_key(("p", "c"), "d", "v")
    assert doc.text == 'x = 1\n\n[q]\n\n[p.c]\n  d = "v"\n\n# runc\n[p.c.r]\n  k = 1\n'


def test_root_keys_go_before_the_first_header():
    doc = TomlDocument("# c\n[a]\nx = 1\n")
    doc.set_key((), "version", 2)
    assert tomllib.loads(doc.text) == {"version": 2, "a": {"x": 1}}


def test_crlf_files_stay_crlf():
    doc = TomlDocument("[a]\r\nx = 1\r\n")
    doc.set_key(("a",), "y", 2)
    assert doc.text == "[a]\r\nx = 1\r\ny = 2\r\n"


def test_a_file_without_final_newline_gets_one_when_a_table_is_appended():
    doc = TomlDocument("a = 1")
    doc.insert_table(("t",), [("k", "v")])
    assert doc.text == 'a = 1\n\n[t]\n  k = "v"\n'


def test_delete_path_removes_table_subtables_and_the_blank_line_before():
    text = "[a]\nx = 1\n\n[a.r]\ny = 1\n\n[a.r.o]\nz = 1\n\n# next\n[b]\nw = 1\n"
    doc = TomlDocument(text)
    assert doc.delete_path(("a", "r")) is True
    assert doc.text == "[a]\nx = 1\n\n# next\n[b]\nw = 1\n"
    assert doc.delete_path(("a", "r")) is False


def test_delete_path_removes_dotted_and_inline_definitions():
    doc = TomlDocument("[a]\nr.x = 1\nr.y = 2\nk = 3\ns = { q = 1 }\n")
    doc.delete_path(("a", "r"))
    doc.delete_path(("a", "s"))
    assert doc.text == "[a]\nk = 3\n"


def test_multiline_values_are_replaced_whole():
    text = 'a = """\nx\n# not a comment\n"""\nb = [\n  1,\n  2,\n]\n'
    doc = TomlDocument(text)
    doc.set_key((), "b", [3])
    assert doc.text == 'a = """\nx\n# not a comment\n"""\nb = [3]\n'


@pytest.mark.parametrize("name", TOML_FIXTURES)
def test_insert_then_delete_a_table_restores_every_real_file(name):
    text = (FIXTURES / name).read_text()
    doc = TomlDocument(text)
    doc.insert_table(("zz_new",), [("k", "v"), ("n", 1)], [(("sub",), [("b", True)])])
    removed, added = changed_lines(text, doc.text)
    assert removed == []
    assert [line.strip() for line in added if line.strip()] == [
        "[zz_new]",
        "k = 'v'" if doc.literal else 'k = "v"',
        "n = 1",
        "[zz_new.sub]",
        "b = true",
    ]
    assert tomllib.loads(doc.text) == dict(
        tomllib.loads(text), zz_new={"k": "v", "n": 1, "sub": {"b": True}}
    )
    doc.delete_path(("zz_new",))
    assert doc.text == text


# -- hypothesis: random edits change only what they should ------------------------------------

edit_values = st.one_of(
    st.booleans(),
    st.integers(-1000, 1000),
    text_values,
    st.lists(st.integers(0, 9), max_size=3),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(TOML_FIXTURES),
    st.lists(
        st.tuples(
            st.sampled_from(["set", "delete", "table"]),
            st.integers(0, 10_000),
            any_keys,
            edit_values,
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_hypothesis_edits_read_back_as_intended(name, operations):
    text = (FIXTURES / name).read_text()
    doc = TomlDocument(text)
    expected = tomllib.loads(text)
    for op, pick, key, value in operations:
        tables = _tables(expected)
        table = tables[pick % len(tables)]
        node = _get(expected, table)
        if op == "set":
            if key in node and isinstance(node[key], (dict, list)):
                continue
            try:
                doc.set_key(table, key, value)
            except TomlEditError:
                # Only inline tables refuse new keys; the text must be unchanged then.
                assert table in doc.spans
                continue
            node[key] = value
        elif op == "delete":
            if not node:
                continue
            victim = sorted(node)[pick % len(node)]
            doc.delete_path(table + (victim,))
            del node[victim]
        else:
            if key in node or table in doc.spans:
                continue
            doc.insert_table(table + (key,), [("k", value)])
            node[key] = {"k": value}
        assert same_data(tomllib.loads(doc.text), expected)
        assert same_data(loads(doc.text), expected)


def _tables(data, path=()):
    found = [path]
    for k, v in data.items():
        if isinstance(v, dict):
            found += _tables(v, path + (k,))
    return found


def _get(data, path):
    for k in path:
        data = data[k]
    return data


def _empty_table(value):
    return isinstance(value, dict) and all(_empty_table(v) for v in value.values())


def same_data(a, b):
    """Same data and types, key order aside. A table that holds nothing (left by a deletion)
    may be missing on one side: without a header of its own it is not in the text any more."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = {k for k in a if not _empty_table(a[k])} | {
            k for k in b if not _empty_table(b[k])
        }
        return all(k in a and k in b and same_data(a[k], b[k]) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
