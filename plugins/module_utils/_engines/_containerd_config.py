# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Pure functions that add, update or remove one runtime (the Ascend runtime) in
# containerd's config.toml by editing only the lines concerned, for config versions 1, 2 and 3.
#
# Entry points:
#   edit_config(text, spec, config_version="auto", empty_version=None) -> EditResult
#   RuntimeSpec                 what the runtime should look like (or state="absent")
#   check_dump(text, spec)      problems found in ``containerd config dump`` output (list)
#   PLUGIN_BY_VERSION           the CRI plugin key for each config version
#   ContainerdConfigError       the only exception raised for a config that cannot be handled
#
# Facts this relies on (checked with containerd 1.6.20, 1.7.24 and 2.1.9; 1.6.20 and 2.2.9 run
# the edited files in the molecule scenarios ascend_runtime_containerd and *_containerd2):
# * The CRI runtimes live in [plugins.<cri>.containerd.runtimes.<name>], <cri> being `cri`
#   in version 1, `io.containerd.grpc.v1.cri` in version 2 and `io.containerd.cri.v1.runtime`
#   in version 3. containerd 1.x and 2.x read a file without `version` as version 1.
# * containerd 1.x silently ignores tables it does not know (a version 3 file, or full plugin
#   names in a version 1 file); containerd 2.x migrates version 2 but ignores the runtimes of a
#   version 1 file. Only `containerd config dump` shows what a given binary really reads.
# * A file that lists runtimes replaces containerd's built-in `runc` (checked with 1.6.20: the
#   dump then lists only the file's runtimes, and the CRI plugin refuses to load when
#   default_runtime_name names a runtime that is not listed). So the first runtime added to a
#   file without runtimes comes with an explicit `runc` equal to the built-in one.

from __future__ import annotations

import copy

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._toml import (
    TomlDocument,
    TomlEditError,
    TomlError,
    loads,
)

__all__ = [
    "PLUGIN_BY_VERSION",
    "ContainerdConfigError",
    "EditResult",
    "RuntimeSpec",
    "check_dump",
    "edit_config",
]

PLUGIN_BY_VERSION = {
    1: "cri",
    2: "io.containerd.grpc.v1.cri",
    3: "io.containerd.cri.v1.runtime",
}
FALLBACK_DEFAULT_RUNTIME = "runc"
LEGACY_RUNTIME_TYPE = "io.containerd.runtime.v1.linux"
# containerd's built-in runc runtime, as written out when the file lists no runtime at all:
# a config.toml that lists runtimes replaces the built-in list (containerd 1.6 decodes the
# runtimes table into a new map), so adding only the Ascend runtime would make `runc` vanish
# and, with default_runtime_name = "runc", stop the CRI plugin from loading.
BUILTIN_RUNC = {"runtime_type": "io.containerd.runc.v2"}


class ContainerdConfigError(ValueError):
    """The config cannot be handled; the message says why and what to do."""


class RuntimeSpec:
    """What the managed runtime should be."""

    def __init__(
        self,
        name="ascend",
        binary_name="/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime",
        runtime_type="io.containerd.runc.v2",
        options=None,
        default=True,
        copy_runc_options=True,
        state="present",
    ):
        self.name = name
        self.binary_name = binary_name
        self.runtime_type = runtime_type
        self.options = dict(options or {})
        self.default = default
        self.copy_runc_options = copy_runc_options
        self.state = state


class EditResult:
    """The outcome of edit_config: the new text and what was done."""

    def __init__(
        self,
        text,
        changed,
        version,
        plugin,
        runtime,
        default_runtime_name,
        actions,
        warnings,
    ):
        self.text = text
        self.changed = changed
        self.version = version
        self.plugin = plugin
        self.runtime = runtime
        self.default_runtime_name = default_runtime_name
        self.actions = actions
        self.warnings = warnings


def _fmt(path):
    parts = []
    for k in path:
        parts.append(k if k.replace("_", "").replace("-", "").isalnum() else '"%s"' % k)
    return ".".join(parts)


def _get(data, path):
    for k in path:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


def resolve_version(data, config_version="auto", empty_version=None):
    """The config version to edit for, and warnings about it."""
    warnings = []
    declared = data.get("version")
    if declared is not None and (
        isinstance(declared, bool) or not isinstance(declared, int)
    ):
        raise ContainerdConfigError(
            "the top-level `version` must be an integer, found %r" % (declared,)
        )
    if declared is not None and declared not in PLUGIN_BY_VERSION:
        raise ContainerdConfigError(
            "config version %d is not supported (this module knows versions 1, 2 and 3)"
            % declared
        )
    wanted = None if config_version in (None, "auto") else int(config_version)
    if declared is not None:
        if wanted is not None and wanted != declared:
            raise ContainerdConfigError(
                "config_version=%d was requested but the file declares `version = %d`; "
                "migrate the file (`containerd config migrate` on containerd 2.x) or use "
                "config_version=auto" % (wanted, declared)
            )
        return declared, False, warnings
    if not data:
        # An empty document: write the version header, so containerd cannot misread it.
        version = wanted or empty_version
        if version is None:
            raise ContainerdConfigError(
                "the file is empty and its config version cannot be told; set config_version"
            )
        return version, True, warnings
    if wanted is not None and wanted != 1:
        raise ContainerdConfigError(
            "config_version=%d was requested but the file has no `version` key, so containerd "
            "reads it as version 1 and would ignore a version %d runtime table; add "
            "`version = %d` to the file (after converting its plugin names) or use "
            "config_version=auto" % (wanted, wanted, wanted)
        )
    plugins = data.get("plugins")
    if isinstance(plugins, dict) and any("." in k for k in plugins):
        warnings.append(
            "the file has no `version` key, so containerd reads it as version 1 and ignores its "
            "plugin tables with full names (%s); it was probably meant as `version = 2`"
            % ", ".join(sorted(k for k in plugins if "." in k))
        )
    return 1, False, warnings


def _runtime_items(runc, spec):
    """Keys of the new runtime table and of its options table, in runc's order."""
    items = []
    options = []
    copied = []
    if spec.copy_runc_options and isinstance(runc, dict):
        for key, value in runc.items():
            if key == "runtime_type":
                items.append((key, spec.runtime_type))
            elif not isinstance(value, dict):
                items.append((key, copy.deepcopy(value)))
                copied.append(key)
        runc_options = runc.get("options")
        if isinstance(runc_options, dict):
            for key, value in runc_options.items():
                if key == "BinaryName":
                    options.append((key, spec.binary_name))
                elif not isinstance(value, dict):
                    options.append((key, copy.deepcopy(value)))
                    copied.append("options." + key)
    if "runtime_type" not in [item[0] for item in items]:
        items.insert(0, ("runtime_type", spec.runtime_type))
    if "BinaryName" not in [item[0] for item in options]:
        options.insert(0, ("BinaryName", spec.binary_name))
    for key, value in spec.options.items():
        for i, item in enumerate(options):
            if item[0] == key:
                options[i] = (key, value)
                break
        else:
            options.append((key, value))
    return items, options, copied


def _expected(
    data, spec, containerd_path, created, items, options, set_default, runc_change
):
    """The data the edit must produce, to check the edited text against."""
    expected = copy.deepcopy(data)
    if runc_change == "added":
        node = expected
        for k in containerd_path + ("runtimes",):
            node = node.setdefault(k, {})
        node["runc"] = dict(BUILTIN_RUNC)
    elif runc_change == "removed":
        del _get(expected, containerd_path + ("runtimes",))["runc"]
    if spec.state == "present":
        node = expected
        for k in containerd_path + ("runtimes", spec.name):
            node = node.setdefault(k, {})
        if created:
            node.update(items)
            node["options"] = dict(options)
        node["runtime_type"] = spec.runtime_type
        runtime_options = node.setdefault("options", {})
        runtime_options["BinaryName"] = spec.binary_name
        runtime_options.update(spec.options)
    else:
        runtimes = _get(expected, containerd_path + ("runtimes",))
        if isinstance(runtimes, dict):
            runtimes.pop(spec.name, None)
    if set_default is not None:
        node = expected
        for k in containerd_path:
            node = node.setdefault(k, {})
        node["default_runtime_name"] = set_default
    return expected


def _prune_empty(expected, actual, path):
    """Tables that only existed to hold the removed runtime disappear from the text."""
    for n in range(len(path), 0, -1):
        e, a = _get(expected, path[:n]), _get(actual, path[:n])
        if e == {} and a is None:
            del _get(expected, path[: n - 1])[path[n - 1]]


def edit_config(text, spec, config_version="auto", empty_version=None):
    """Apply ``spec`` to the config.toml ``text``; return an EditResult.

    ``empty_version`` is the version to use when the document is empty (for example the one
    of ``containerd config default``). Raises ContainerdConfigError (with the line for TOML
    errors) and never returns a text that does not parse to the intended data.
    """
    try:
        doc = TomlDocument(text)
    except TomlError as exc:
        raise ContainerdConfigError("not valid TOML: %s" % exc) from None
    original = copy.deepcopy(doc.data)
    version, add_header, warnings = resolve_version(
        doc.data, config_version, empty_version
    )
    plugin = PLUGIN_BY_VERSION[version]
    containerd_path = ("plugins", plugin, "containerd")
    runtimes_path = containerd_path + ("runtimes",)
    runtime_path = runtimes_path + (spec.name,)
    runc_path = runtimes_path + ("runc",)
    actions = []
    where = _fmt(runtimes_path)

    for path in (("plugins",), ("plugins", plugin), containerd_path, runtimes_path):
        value = _get(doc.data, path)
        if value is not None and not isinstance(value, dict):
            raise ContainerdConfigError(
                "%s must be a table, found %r" % (_fmt(path), value)
            )
    runtime = _get(doc.data, runtime_path)
    if runtime is not None and not isinstance(runtime, dict):
        raise ContainerdConfigError(
            "%s must be a table, found %r" % (_fmt(runtime_path), runtime)
        )
    if (
        isinstance(runtime, dict)
        and "options" in runtime
        and not isinstance(runtime["options"], dict)
    ):
        raise ContainerdConfigError("%s.options must be a table" % _fmt(runtime_path))
    runc = _get(doc.data, runc_path)
    if isinstance(runc, dict) and spec.name != "runc":
        runc_binary = _get(runc, ("options", "BinaryName"))
        if runc_binary and runc_binary == spec.binary_name:
            warnings.append(
                "the runc runtime already runs %s (BinaryName, the in-place edit of the Ascend "
                "Docker Runtime installer <= 26.0.0 on cgroup v2 hosts); it is left as it is: "
                "containers of the runc handler also go through the Ascend runtime, which acts "
                "only on containers that set ASCEND_VISIBLE_DEVICES" % spec.binary_name
            )
        if runc.get("runtime_type") == LEGACY_RUNTIME_TYPE:
            warnings.append(
                "the runc runtime uses runtime_type %s (the in-place edit of the Ascend Docker "
                "Runtime installer <= 26.0.0 on cgroup v1 hosts); it is left as it is, but "
                "containerd 2.x no longer has that runtime" % LEGACY_RUNTIME_TYPE
            )

    runtimes = _get(doc.data, runtimes_path)
    listed = [
        k for k, v in (runtimes or {}).items() if isinstance(v, dict) and k != spec.name
    ]
    runc_change = None
    if (
        spec.state == "present"
        and runtime is None
        and not listed
        and spec.name != "runc"
    ):
        runc_change = "added"
    elif (
        spec.state == "absent"
        and runtime is not None
        and listed == ["runc"]
        and _equal(runc, BUILTIN_RUNC)
    ):
        # The runc this module wrote next to the runtime (or one that says nothing more than
        # the built-in): without the runtime the file means the same without it.
        runc_change = "removed"

    try:
        if add_header and (spec.state == "present"):
            doc.insert_line_at_top("version = %d" % version)
            actions.append("added `version = %d` to the empty file" % version)
        items, options, copied = _runtime_items(runc, spec)
        if runc_change == "added":
            # Inside the CRI plugin's section (after its last sub-table), not at the end of
            # the file after other plugins.
            doc.insert_table(
                runc_path,
                list(BUILTIN_RUNC.items()),
                after=("plugins", plugin)
                if isinstance(_get(doc.data, ("plugins", plugin)), dict)
                else None,
                template=None,
            )
            runc = _get(doc.data, runc_path)
            actions.append(
                "added containerd's built-in runtime 'runc' to %s (a file that lists runtimes "
                "replaces the built-in list, so runc would be lost)" % where
            )
        if spec.state == "present":
            if runtime is None:
                template = (
                    runc_path
                    if isinstance(runc, dict)
                    else _any_runtime(doc, runtimes_path)
                )
                anchor = runc_path if isinstance(runc, dict) else None
                doc.insert_table(
                    runtime_path,
                    items,
                    [(("options",), options)],
                    after=anchor,
                    template=template,
                )
                note = " (copied from runc: %s)" % ", ".join(copied) if copied else ""
                actions.append("added runtime %r to %s%s" % (spec.name, where, note))
            else:
                if doc.set_key(runtime_path, "runtime_type", spec.runtime_type):
                    actions.append(
                        "set runtime_type of runtime %r to %r"
                        % (spec.name, spec.runtime_type)
                    )
                wanted = [("BinaryName", spec.binary_name)] + list(spec.options.items())
                for key, value in wanted:
                    if doc.set_key(runtime_path + ("options",), key, value):
                        actions.append(
                            "set options.%s of runtime %r to %r"
                            % (key, spec.name, value)
                        )
        elif runtime is not None:
            doc.delete_path(runtime_path)
            actions.append("removed runtime %r from %s" % (spec.name, where))
            if runc_change == "removed":
                doc.delete_path(runc_path)
                actions.append(
                    "removed runtime 'runc' (only containerd's built-in settings) from %s"
                    % where
                )

        current_default = _get(doc.data, containerd_path + ("default_runtime_name",))
        set_default = None
        if spec.state == "present" and spec.default:
            if current_default != spec.name:
                set_default = spec.name
        elif current_default == spec.name:
            set_default = FALLBACK_DEFAULT_RUNTIME
        if set_default is not None:
            doc.set_key(containerd_path, "default_runtime_name", set_default)
            actions.append(
                "set %s.default_runtime_name to %r (was %s)"
                % (
                    _fmt(containerd_path),
                    set_default,
                    "%r" % current_default if current_default else "not set",
                )
            )
            if set_default == spec.name and current_default not in (
                None,
                FALLBACK_DEFAULT_RUNTIME,
            ):
                warnings.append(
                    "the default runtime was %r; removing the runtime or default=false will set "
                    "it to %r, not back to %r"
                    % (current_default, FALLBACK_DEFAULT_RUNTIME, current_default)
                )
    except TomlEditError as exc:
        raise ContainerdConfigError("cannot edit the file in place: %s" % exc) from None

    expected = _expected(
        original,
        spec,
        containerd_path,
        runtime is None,
        items,
        options,
        set_default,
        runc_change,
    )
    if add_header and spec.state == "present":
        expected["version"] = version
    if spec.state == "absent":
        _prune_empty(expected, doc.data, runtimes_path)
    if not _equal(expected, doc.data):
        raise ContainerdConfigError(
            "internal check failed: the edited text does not read back as intended, so nothing "
            "was changed; please report this with the file"
        )
    return EditResult(
        text=doc.text,
        changed=doc.text != text,
        version=version,
        plugin=plugin,
        runtime=_get(doc.data, runtime_path),
        default_runtime_name=_get(
            doc.data, containerd_path + ("default_runtime_name",)
        ),
        actions=actions,
        warnings=warnings,
    )


def _any_runtime(doc, runtimes_path):
    runtimes = doc.get(runtimes_path)
    if isinstance(runtimes, dict):
        for name, value in runtimes.items():
            if isinstance(value, dict):
                return runtimes_path + (name,)
    return None


def _equal(a, b):
    """Same data and same TOML types (True is not 1); the order of keys does not matter."""
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def _default_runtime_problems(containerd):
    """The CRI plugin refuses to load when its default runtime is not among its runtimes."""
    if not isinstance(containerd, dict):
        return []
    runtimes = containerd.get("runtimes")
    default = containerd.get("default_runtime_name") or FALLBACK_DEFAULT_RUNTIME
    if isinstance(runtimes, dict) and default not in runtimes:
        return [
            "containerd's CRI plugin would not load: default_runtime_name is %r but containerd "
            "reads only the runtimes %s (a file that lists runtimes replaces containerd's "
            "built-in runc); define %r in the file or make another runtime the default"
            % (
                default,
                ", ".join(repr(k) for k in sorted(runtimes)) or "(none)",
                default,
            )
        ]
    return []


def check_dump(text, spec):
    """Problems seen in the output of ``containerd --config <file> config dump`` (a list).

    An empty list means containerd read the runtime as intended (or, for state=absent, does
    not list it any more).
    """
    try:
        data = loads(text)
    except TomlError as exc:
        return ["the output of `containerd config dump` could not be read: %s" % exc]
    version = data.get("version")
    plugins = (
        [PLUGIN_BY_VERSION[version]]
        if version in (2, 3)
        else [PLUGIN_BY_VERSION[3], PLUGIN_BY_VERSION[2]]
    )
    containerd = None
    for plugin in plugins:
        containerd = _get(data, ("plugins", plugin, "containerd"))
        if isinstance(containerd, dict):
            break
    runtime = _get(containerd or {}, ("runtimes", spec.name))
    problems = []
    if spec.state == "absent":
        if runtime is not None:
            problems.append(
                "containerd still lists runtime %r after its removal (is it also defined in an "
                "imported file?)" % spec.name
            )
        return problems or _default_runtime_problems(containerd)
    if not isinstance(runtime, dict):
        problems.append(
            "containerd accepted the file but does not list runtime %r in plugin %s: this "
            "containerd does not read runtimes written for this config version (containerd 1.x "
            "ignores version 3 files; containerd 2.x ignores the runtimes of version 1 files)"
            % (spec.name, " or ".join(plugins))
        )
        return problems
    binary = _get(runtime, ("options", "BinaryName"))
    if binary != spec.binary_name:
        problems.append(
            "containerd reads options.BinaryName of runtime %r as %r"
            % (spec.name, binary)
        )
    if runtime.get("runtime_type") != spec.runtime_type:
        problems.append(
            "containerd reads runtime_type of runtime %r as %r"
            % (spec.name, runtime.get("runtime_type"))
        )
    if spec.default and containerd.get("default_runtime_name") != spec.name:
        problems.append(
            "containerd reads default_runtime_name as %r, not %r (is it overridden in an imported file?)"
            % (containerd.get("default_runtime_name"), spec.name)
        )
    return problems or _default_runtime_problems(containerd)
