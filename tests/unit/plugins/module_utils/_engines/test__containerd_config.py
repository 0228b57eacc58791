# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runtime edits of containerd's config.toml on real files of containerd 1.6, 1.7 and 2.1."""

from __future__ import annotations

import copy
import difflib
import pathlib

import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._containerd_config import (
    PLUGIN_BY_VERSION,
    ContainerdConfigError,
    RuntimeSpec,
    check_dump,
    edit_config,
)

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "engine-config"
ASCEND = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
# file -> (config version, default_runtime_name in the file, whether it has a runc runtime)
REAL = {
    "containerd-1.6.20-default.toml": (2, "runc", True),
    "containerd-1.6.20-vendor-runc-edit.toml": (2, "runc", True),
    "containerd-1.7.24-default.toml": (2, "runc", True),
    "containerd-2.1.9-default.toml": (3, "runc", True),
    "containerd-docs-1.x-full-commented.toml": (2, "runc", True),
    "containerd-docs-2.x-full.toml": (3, "runc", True),
    "containerd-docs-1.x-runtime-classes.toml": (2, "crun", False),
    "containerd-docs-2.x-runtime-classes.toml": (3, "crun", False),
    "cks-v2-runsc-kata.toml": (2, None, True),
    "kata-tests-v1-runc-kata.toml": (1, None, True),
}


def read(name):
    return (FIXTURES / name).read_text()


def diff(before, after):
    """(removed, added) lines."""
    a, b = before.splitlines(), after.splitlines()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=a, b=b, autojunk=False
    ).get_opcodes():
        if op in ("replace", "delete"):
            removed += a[i1:i2]
        if op in ("replace", "insert"):
            added += b[j1:j2]
    return removed, added


def containerd_table(data, version):
    return (
        data.get("plugins", {})
        .get(PLUGIN_BY_VERSION[version], {})
        .get("containerd", {})
    )


def effective_default(data, version):
    return containerd_table(data, version).get("default_runtime_name", "runc")


@pytest.mark.parametrize("name", sorted(REAL))
def test_present_adds_the_runtime_and_changes_nothing_else(name):
    version, default = REAL[name][:2]
    text = read(name)
    res = edit_config(text, RuntimeSpec())
    assert (
        res.changed
        and res.version == version
        and res.plugin == PLUGIN_BY_VERSION[version]
    )

    # Semantics: the original data plus the runtime and the default, nothing else.
    before, after = tomllib.loads(text), tomllib.loads(res.text)
    runc = containerd_table(before, version).get("runtimes", {}).get("runc", {})
    runtime = containerd_table(after, version)["runtimes"]["ascend"]
    assert runtime["runtime_type"] == "io.containerd.runc.v2"
    assert runtime["options"]["BinaryName"] == ASCEND
    for key, value in runc.items():
        if key not in ("runtime_type", "options"):
            assert runtime[key] == value, key
    for key, value in runc.get("options", {}).items():
        if key != "BinaryName":
            assert runtime["options"][key] == value, key
    expected = copy.deepcopy(before)
    node = expected
    for k in ("plugins", PLUGIN_BY_VERSION[version], "containerd"):
        node = node.setdefault(k, {})
    node.setdefault("runtimes", {})["ascend"] = runtime
    node["default_runtime_name"] = "ascend"
    assert after == expected
    assert res.runtime == runtime and res.default_runtime_name == "ascend"

    # Text: every original line is still there, in order, byte for byte, except the one line
    # holding default_runtime_name; everything added is the new block (or a new header).
    removed, added = diff(text, res.text)
    if default is None:
        assert removed == []
    else:
        assert (
            len(removed) == 1
            and removed[0].split("=")[0].strip() == "default_runtime_name"
        )
        assert removed[0].replace(repr(default)[1:-1], "ascend") in added
    new_keys = {line.split("=")[0].strip() for line in added if "=" in line}
    assert new_keys <= set(runtime) | set(runtime["options"]) | {"default_runtime_name"}
    headers = [line.strip() for line in added if line.strip().startswith("[")]
    assert all(".runtimes.ascend" in h or h.endswith(".containerd]") for h in headers)


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_comment_and_unrelated_table_is_byte_identical(name):
    text = read(name)
    res = edit_config(text, RuntimeSpec())
    lines = res.text.splitlines()
    comments = [line for line in text.splitlines() if line.strip().startswith("#")]
    assert [line for line in lines if line.strip().startswith("#")] == comments
    # The runtime block sits right after the runc tables when there is a runc runtime.
    has_runc = REAL[name][2]
    if has_runc:
        runc_last = max(
            i
            for i, line in enumerate(lines)
            if ".runtimes.runc" in line and line.strip().startswith("[")
        )
        ascend_first = min(
            i for i, line in enumerate(lines) if ".runtimes.ascend]" in line
        )
        between = lines[runc_last + 1 : ascend_first]
        assert all("[" not in line for line in between)


@pytest.mark.parametrize("name", sorted(REAL))
def test_second_run_is_byte_identical(name):
    first = edit_config(read(name), RuntimeSpec())
    second = edit_config(first.text, RuntimeSpec())
    assert not second.changed and second.text == first.text and second.actions == []


@pytest.mark.parametrize("name", sorted(REAL))
def test_present_then_absent_gives_back_the_original_semantics(name):
    version, default = REAL[name][:2]
    text = read(name)
    present = edit_config(text, RuntimeSpec())
    absent = edit_config(present.text, RuntimeSpec(state="absent"))
    assert absent.changed and absent.runtime is None
    before, after = tomllib.loads(text), tomllib.loads(absent.text)
    if default in (None, "runc"):
        # The runtime is gone and the default is containerd's own again.
        assert effective_default(after, version) == "runc"
        for data in (before, after):
            containerd_table(data, version).pop("default_runtime_name", None)
        assert _strip_empty(after) == _strip_empty(before)
    else:
        assert any("not back to 'crun'" in w for w in present.warnings)
    if default == "runc":
        assert absent.text == text
    again = edit_config(absent.text, RuntimeSpec(state="absent"))
    assert not again.changed and again.text == absent.text


def _strip_empty(data):
    if isinstance(data, dict):
        return {
            k: _strip_empty(v) for k, v in data.items() if v != {} or k != "containerd"
        }
    return data


def test_v3_file_keeps_single_quotes_and_indentation():
    res = edit_config(read("containerd-2.1.9-default.toml"), RuntimeSpec())
    added = diff(read("containerd-2.1.9-default.toml"), res.text)[1]
    assert (
        "        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.ascend]"
        in added
    )
    assert "          runtime_type = 'io.containerd.runc.v2'" in added
    assert (
        "          [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.ascend.options]"
        in added
    )
    assert "            BinaryName = '%s'" % ASCEND in added
    assert "      default_runtime_name = 'ascend'" in added
    assert not any('"' in line for line in added)


def test_v2_file_uses_double_quotes_and_the_runc_layout():
    text = read("containerd-1.6.20-default.toml")
    res = edit_config(text, RuntimeSpec())
    added = diff(text, res.text)[1]
    assert added[0] == '      default_runtime_name = "ascend"'
    lines = res.text.splitlines()
    at = lines.index(
        '        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend]'
    )
    assert lines[at - 2 : at + 2] == [
        "            SystemdCgroup = false",
        "",
        lines[at],
        '          base_runtime_spec = ""',
    ]
    assert (
        '          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend.options]'
        in added
    )
    assert '            BinaryName = "%s"' % ASCEND in added
    assert not any("'" in line for line in added)


def test_v1_file_uses_the_short_plugin_name():
    res = edit_config(read("kata-tests-v1-runc-kata.toml"), RuntimeSpec())
    data = tomllib.loads(res.text)
    assert res.plugin == "cri"
    assert data["plugins"]["cri"]["containerd"]["runtimes"]["ascend"] == {
        "runtime_type": "io.containerd.runc.v2",
        "options": {"BinaryName": ASCEND, "Root": ""},
    }
    assert data["plugins"]["cri"]["containerd"]["default_runtime_name"] == "ascend"


def test_copy_runc_options_copies_systemd_cgroup_only_when_creating():
    text = read("containerd-2.1.9-default.toml").replace(
        "SystemdCgroup = false", "SystemdCgroup = true"
    )
    res = edit_config(text, RuntimeSpec())
    assert res.runtime["options"]["SystemdCgroup"] is True
    assert "options.SystemdCgroup" in res.actions[0]
    bare = edit_config(text, RuntimeSpec(copy_runc_options=False))
    assert bare.runtime == {
        "runtime_type": "io.containerd.runc.v2",
        "options": {"BinaryName": ASCEND},
    }
    # An existing runtime is not re-synchronised with runc.
    later = edit_config(
        res.text.replace("SystemdCgroup = true", "SystemdCgroup = false", 1),
        RuntimeSpec(),
    )
    assert not later.changed


def test_runtime_options_are_enforced():
    text = read("containerd-1.7.24-default.toml")
    res = edit_config(text, RuntimeSpec(options={"SystemdCgroup": True}))
    assert res.runtime["options"]["SystemdCgroup"] is True
    changed = edit_config(res.text, RuntimeSpec(options={"SystemdCgroup": False}))
    removed, added = diff(res.text, changed.text)
    assert removed == ["            SystemdCgroup = true"] and added == [
        "            SystemdCgroup = false"
    ]


def test_existing_runtime_only_differing_values_change():
    text = read("containerd-1.6.20-default.toml")
    first = edit_config(text, RuntimeSpec())
    moved = edit_config(
        first.text, RuntimeSpec(binary_name="/opt/ascend-docker-runtime")
    )
    removed, added = diff(first.text, moved.text)
    assert removed == ['            BinaryName = "%s"' % ASCEND]
    assert added == ['            BinaryName = "/opt/ascend-docker-runtime"']
    assert moved.actions == [
        "set options.BinaryName of runtime 'ascend' to '/opt/ascend-docker-runtime'"
    ]


def test_default_false_sets_runc_back_only_when_it_named_the_runtime():
    text = read("containerd-2.1.9-default.toml")
    kept = edit_config(text, RuntimeSpec(default=False))
    assert kept.default_runtime_name == "runc"
    assert not any("default_runtime_name" in a for a in kept.actions)
    made_default = edit_config(text, RuntimeSpec())
    back = edit_config(made_default.text, RuntimeSpec(default=False))
    assert back.default_runtime_name == "runc"
    removed, added = diff(made_default.text, back.text)
    assert removed == ["      default_runtime_name = 'ascend'"] and added == [
        "      default_runtime_name = 'runc'"
    ]


def test_vendor_runc_edit_is_reported_and_left_alone():
    text = read("containerd-1.6.20-vendor-runc-edit.toml")
    res = edit_config(text, RuntimeSpec())
    assert any("in-place edit" in w and "<= 26.0.0" in w for w in res.warnings)
    data = tomllib.loads(res.text)
    runc = data["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"][
        "runc"
    ]
    assert runc["options"]["BinaryName"] == ASCEND
    assert (
        tomllib.loads(text)["plugins"]["io.containerd.grpc.v1.cri"]["containerd"][
            "runtimes"
        ]["runc"]
        == runc
    )


def test_legacy_runtime_type_of_runc_is_reported():
    text = read("containerd-1.6.20-default.toml").replace(
        'runtime_type = "io.containerd.runc.v2"',
        'runtime_type = "io.containerd.runtime.v1.linux"',
        1,
    )
    res = edit_config(text, RuntimeSpec())
    assert any("io.containerd.runtime.v1.linux" in w for w in res.warnings)
    assert res.runtime["runtime_type"] == "io.containerd.runc.v2"


def test_versionless_file_with_full_plugin_names_warns():
    text = '[plugins."io.containerd.grpc.v1.cri".containerd]\n  snapshotter = "overlayfs"\n'
    res = edit_config(text, RuntimeSpec())
    assert res.version == 1 and res.plugin == "cri"
    assert any("version = 2" in w for w in res.warnings)


@pytest.mark.parametrize(
    ("text", "config_version", "message"),
    [
        ("version = 2\n", "3", "declares `version = 2`"),
        ("[plugins.cri]\n", "2", "reads it as version 1"),
        ("version = 4\n", "auto", "not supported"),
        ("version = 'x'\n", "auto", "must be an integer"),
        ("", "auto", "cannot be told"),
        (
            'version = 2\n[plugins."io.containerd.grpc.v1.cri"]\ncontainerd = 1\n',
            "auto",
            "must be a table",
        ),
        (
            'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\nascend = "x"\n',
            "auto",
            "must be a table",
        ),
    ],
)
def test_refusals(text, config_version, message):
    with pytest.raises(ContainerdConfigError, match=message):
        edit_config(text, RuntimeSpec(), config_version=config_version)


def test_broken_toml_is_refused_with_its_line():
    text = read("containerd-2.1.9-default.toml").replace(
        "sandbox = 'registry.k8s.io/pause:3.10'", "sandbox = 'x", 1
    )
    line = text.splitlines().index("      sandbox = 'x") + 1
    with pytest.raises(
        ContainerdConfigError, match="not valid TOML: line %d, column" % line
    ):
        edit_config(text, RuntimeSpec())


@pytest.mark.parametrize(
    ("config_version", "empty_version"),
    [("3", None), ("auto", 3), ("2", None), ("auto", 2)],
)
def test_empty_file_gets_a_version_header(config_version, empty_version):
    res = edit_config(
        "# managed elsewhere\n",
        RuntimeSpec(),
        config_version=config_version,
        empty_version=empty_version,
    )
    data = tomllib.loads(res.text)
    version = int(config_version) if config_version != "auto" else empty_version
    assert data["version"] == version and res.version == version
    assert (
        containerd_table(data, version)["runtimes"]["ascend"]["options"]["BinaryName"]
        == ASCEND
    )
    assert "# managed elsewhere" in res.text


def test_inline_runtime_is_updated_in_place():
    text = (
        'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n'
        '  ascend = { runtime_type = "io.containerd.runc.v2", options = { BinaryName = "/old" } }\n'
    )
    res = edit_config(text, RuntimeSpec(default=False))
    assert res.text == text.replace('"/old"', '"%s"' % ASCEND)
    gone = edit_config(res.text, RuntimeSpec(state="absent"))
    assert tomllib.loads(gone.text) == {
        "version": 2,
        "plugins": {"io.containerd.grpc.v1.cri": {"containerd": {"runtimes": {}}}},
    }


# -- check_dump: what `containerd config dump` says -------------------------------------------

DUMP_V2 = (
    """version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "ascend"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend.options]
      BinaryName = "%s"
"""
    % ASCEND
)


def test_check_dump_accepts_a_matching_dump():
    assert check_dump(DUMP_V2, RuntimeSpec()) == []
    v3 = DUMP_V2.replace("version = 2", "version = 3").replace(
        '"io.containerd.grpc.v1.cri"', "'io.containerd.cri.v1.runtime'"
    )
    assert check_dump(v3, RuntimeSpec()) == []


@pytest.mark.parametrize(
    ("dump", "message"),
    [
        (
            DUMP_V2.replace("runtimes.ascend", "runtimes.other"),
            "does not list runtime 'ascend'",
        ),
        (
            DUMP_V2.replace("version = 2", "version = 3"),
            "does not list runtime 'ascend'",
        ),
        (DUMP_V2.replace(ASCEND, "/elsewhere"), "BinaryName"),
        (DUMP_V2.replace("runc.v2", "runc.v1"), "runtime_type"),
        (
            DUMP_V2.replace(
                'default_runtime_name = "ascend"', 'default_runtime_name = "runc"'
            ),
            "default_runtime_name",
        ),
        ("not toml [", "could not be read"),
    ],
)
def test_check_dump_reports_problems(dump, message):
    problems = check_dump(dump, RuntimeSpec())
    assert len(problems) == 1 and message in problems[0]


def test_check_dump_for_absent():
    assert check_dump(DUMP_V2, RuntimeSpec(state="absent"))[0].startswith(
        "containerd still lists"
    )
    assert check_dump("version = 2\n", RuntimeSpec(state="absent")) == []


# -- hypothesis: random specs on random real files ---------------------------------------------

names = st.text(
    "abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=12
).filter(lambda n: n != "runc")
option_values = st.one_of(st.booleans(), st.integers(0, 100), st.text(max_size=10))


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(REAL)),
    names,
    st.text(min_size=1, max_size=30),
    st.booleans(),
    st.booleans(),
    st.dictionaries(
        st.sampled_from(["SystemdCgroup", "Root", "IoUid", "NoNewKeyring"]),
        option_values,
        max_size=2,
    ),
)
def test_hypothesis_random_specs(name, runtime, binary, default, copy_runc, options):
    version = REAL[name][0]
    text = read(name)
    spec = RuntimeSpec(
        name=runtime,
        binary_name=binary,
        default=default,
        copy_runc_options=copy_runc,
        options=options,
    )
    res = edit_config(text, spec)
    data = tomllib.loads(res.text)
    table = containerd_table(data, version)["runtimes"][runtime]
    assert table["options"]["BinaryName"] == binary
    for key, value in options.items():
        assert table["options"][key] == value and type(table["options"][key]) is type(
            value
        )
    assert (effective_default(data, version) == runtime) == (
        default or effective_default(tomllib.loads(text), version) == runtime
    )
    removed = diff(text, res.text)[0]
    assert all("default_runtime_name" in line for line in removed)
    assert not edit_config(res.text, spec).changed
    back = edit_config(
        res.text, RuntimeSpec(name=runtime, binary_name=binary, state="absent")
    )
    assert runtime not in containerd_table(tomllib.loads(back.text), version).get(
        "runtimes", {}
    )


# -- a file without runtimes: containerd's built-in runc must not vanish ------------------------

DEBIAN = "debian-12-containerd-1.6.20-package.toml"


@pytest.mark.parametrize("default", [True, False])
def test_file_without_runtimes_gets_the_builtin_runc_too(default):
    """containerd 1.6.20 replaces its built-in runtimes with the file's (seen with config dump):
    adding only `ascend` to Debian's file would drop runc, and with the default left at runc
    the CRI plugin would not load. runc is written out, the rest stays byte for byte."""
    text = read(DEBIAN)
    res = edit_config(text, RuntimeSpec(default=default))
    data = tomllib.loads(res.text)
    containerd = containerd_table(data, 2)
    assert containerd["runtimes"]["runc"] == {"runtime_type": "io.containerd.runc.v2"}
    assert containerd["runtimes"]["ascend"]["options"]["BinaryName"] == ASCEND
    assert effective_default(data, 2) == ("ascend" if default else "runc")
    assert any("built-in runtime 'runc'" in action for action in res.actions)
    removed, _added = diff(text, res.text)
    assert removed == []
    lines = res.text.splitlines()
    runc = lines.index(
        '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]'
    )
    ascend = lines.index(
        '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend]'
    )
    assert runc < ascend
    assert check_dump(_dump_of(data), RuntimeSpec(default=default)) == []
    again = edit_config(res.text, RuntimeSpec(default=default))
    assert not again.changed and again.text == res.text


def test_file_without_runtimes_round_trip_is_byte_identical():
    text = read(DEBIAN)
    present = edit_config(text, RuntimeSpec(default=False))
    absent = edit_config(present.text, RuntimeSpec(state="absent"))
    assert absent.text == text
    assert any("removed runtime 'runc'" in action for action in absent.actions)


def test_a_runc_with_settings_of_its_own_stays_after_removal():
    text = read(DEBIAN)
    present = edit_config(
        text, RuntimeSpec(default=False, options={"SystemdCgroup": True})
    )
    edited = present.text.replace(
        '      runtime_type = "io.containerd.runc.v2"\n',
        '      runtime_type = "io.containerd.runc.v2"\n      privileged_without_host_devices = true\n',
        1,
    )
    absent = edit_config(edited, RuntimeSpec(state="absent"))
    runtimes = containerd_table(tomllib.loads(absent.text), 2)["runtimes"]
    assert (
        list(runtimes) == ["runc"]
        and runtimes["runc"]["privileged_without_host_devices"]
    )


def test_no_runc_is_invented_next_to_other_runtimes():
    text = read("containerd-docs-1.x-runtime-classes.toml")
    res = edit_config(text, RuntimeSpec(default=False))
    runtimes = containerd_table(tomllib.loads(res.text), 2)["runtimes"]
    assert "runc" not in runtimes and "ascend" in runtimes


def test_runc_itself_can_be_managed_without_a_duplicate():
    res = edit_config(
        read(DEBIAN),
        RuntimeSpec(name="runc", binary_name="/usr/sbin/runc", default=False),
    )
    runtimes = containerd_table(tomllib.loads(res.text), 2)["runtimes"]
    assert list(runtimes) == ["runc"]


def _dump_of(data):
    """A config dump as containerd 1.6 prints it for a file: only the file's runtimes."""
    containerd = containerd_table(data, 2)
    lines = [
        "version = 2",
        '[plugins."io.containerd.grpc.v1.cri".containerd]',
        '  default_runtime_name = "%s"'
        % containerd.get("default_runtime_name", "runc"),
    ]
    for name, runtime in containerd.get("runtimes", {}).items():
        lines.append(
            '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%s]' % name
        )
        lines.append('    runtime_type = "%s"' % runtime["runtime_type"])
        lines.append(
            '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%s.options]'
            % name
        )
        binary = runtime.get("options", {}).get("BinaryName", "")
        lines.append('      BinaryName = "%s"' % binary)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("state", ["present", "absent"])
def test_check_dump_refuses_a_default_runtime_that_is_not_listed(state):
    """What containerd 1.6.20 printed for Debian's file plus only an `ascend` runtime: the dump
    is accepted, but the CRI plugin then fails with `no corresponding runtime configured in
    containerd.runtimes for default_runtime_name = "runc"`."""
    dump = DUMP_V2.replace(
        'default_runtime_name = "ascend"', 'default_runtime_name = "runc"'
    )
    problems = check_dump(dump, RuntimeSpec(default=False, state=state))
    if state == "absent":
        problems = check_dump(
            dump.replace("runtimes.ascend", "runtimes.other"),
            RuntimeSpec(state="absent"),
        )
    assert len(problems) == 1
    assert "CRI plugin would not load: default_runtime_name is 'runc'" in problems[0]
