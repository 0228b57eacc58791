# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Container-engine configuration edits of the Ascend Docker Runtime installer.

Standalone (no simulator imports): the runtime installer copies it to
``<install-path>/ascend-docker-plugin-install-helper`` with GENERATION set, and calls it the
way the real installer calls the real helper::

    ascend-docker-plugin-install-helper add <DST> <SRC> <runtime-path> <yes|no> <scene> [cgroup-fstype]
    ascend-docker-plugin-install-helper rm  <DST> <SRC> <runtime-path> <yes|no> <scene> [cgroup-fstype]

It reads DST and writes the result to SRC (the installer then moves SRC over DST).
Behaviour per generation (container-runtime-config.md):

* ``legacy`` (installers <= 26.0.0): Docker daemon.json merge; containerd edits the ``runc``
  runtime in place under ``io.containerd.grpc.v1.cri`` (config version 2 only), the branch
  chosen by the cgroup filesystem type (``cgroup2fs`` = v2).
* ``modern`` (installers >= 26.1.0): Docker as above; containerd gets a dedicated ``ascend``
  runtime copied from ``runc`` and becomes ``default_runtime_name``; config versions 1, 2 and
  3 are understood; CRI-O gets a drop-in file.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import re
import sys

import tomllib

GENERATION = None  # "legacy" or "modern"; set when installed as the helper program
DEFAULT_RUNTIME = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"

# constant.go commonTemplate / noDefaultTemplate. The indentation of the published text lines
# up on 8-column tab stops: the template is cJSON-style with tabs (verbatim modulo tabs).
DOCKER_TEMPLATE = (
    '{\n\t"runtimes":\t{\n\t\t"ascend":\t{\n\t\t\t"path":\t"%s",\n'
    '\t\t\t"runtimeArgs":\t[]\n\t\t}\n\t},\n\t"default-runtime":\t"ascend"\n}'
)
DOCKER_TEMPLATE_NO_DEFAULT = (
    '{\n\t"runtimes":\t{\n\t\t"ascend":\t{\n\t\t\t"path":\t"%s",\n'
    '\t\t\t"runtimeArgs":\t[]\n\t\t}\n\t}\n}'
)
CRI_PLUGIN_BY_VERSION = {
    1: "cri",
    2: "io.containerd.grpc.v1.cri",
    3: "io.containerd.cri.v1.runtime",
}
LEGACY_CRI = "io.containerd.grpc.v1.cri"
LEGACY_V1_PLUGIN = "io.containerd.runtime.v1.linux"
RUNC_FALLBACK = {
    "runtime_type": "io.containerd.runc.v2",
    "runtime_root": "",
    "runtime_engine": "",
    "privileged_without_host_devices": False,
    "options": {"SystemdCgroup": True},
}
CRIO_MONITOR_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class ConfigError(Exception):
    pass


# ----------------------------------------------------------------------------- TOML writer

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(key):
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(value):
    out = ['"']
    for char in value:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append("\\u%04x" % code)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join("%s = %s" % (_key(k), _value(v)) for k, v in value.items())
            + "}"
        )
    raise ConfigError("cannot write %r to TOML" % (value,))


def _is_table_array(value):
    return isinstance(value, list) and value and all(isinstance(v, dict) for v in value)


def _emit(out, table, path):
    depth = len(path)
    indent = "  " * depth
    plain = [
        (k, v)
        for k, v in table.items()
        if not isinstance(v, dict) and not _is_table_array(v)
    ]
    for key, value in plain:
        out.append("%s%s = %s" % (indent, _key(key), _value(value)))
    for key, value in table.items():
        if isinstance(value, dict):
            out.append("")
            out.append("%s[%s]" % (indent, ".".join(_key(p) for p in path + [key])))
            _emit(out, value, path + [key])
        elif _is_table_array(value):
            for item in value:
                out.append("")
                out.append(
                    "%s[[%s]]" % (indent, ".".join(_key(p) for p in path + [key]))
                )
                _emit(out, item, path + [key])


def dumps_toml(data):
    """TOML text in the style of ``containerd config default`` (2-space nesting)."""
    out = []
    _emit(out, data, [])
    text = "\n".join(out).lstrip("\n")
    return text + "\n"


def loads_toml(text):
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("invalid TOML: %s" % err) from None


# ----------------------------------------------------------------------------- Docker


def _go_json(data):
    """json.MarshalIndent(data, "", "        ") of a Go map: sorted keys, HTML-escaped."""
    text = json.dumps(data, indent=8, sort_keys=True, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text


def docker_add(current_text, runtime_path, reserve_default=False):
    """New daemon.json text; ``current_text`` None means the file does not exist."""
    if current_text is None:
        template = DOCKER_TEMPLATE_NO_DEFAULT if reserve_default else DOCKER_TEMPLATE
        return template % runtime_path
    try:
        data = json.loads(current_text)
    except ValueError as err:
        raise ConfigError("daemon.json is not valid JSON: %s" % err) from None
    if not isinstance(data, dict):
        raise ConfigError("daemon.json is not a JSON object")
    runtimes = data.setdefault("runtimes", {})
    ascend = runtimes.setdefault("ascend", {})
    ascend["path"] = runtime_path
    ascend.setdefault("runtimeArgs", [])
    if not reserve_default:
        data["default-runtime"] = "ascend"
    return _go_json(data)


def docker_remove(current_text):
    if current_text is None:
        return None
    try:
        data = json.loads(current_text)
    except ValueError as err:
        raise ConfigError("daemon.json is not valid JSON: %s" % err) from None
    runtimes = data.get("runtimes")
    if isinstance(runtimes, dict):
        runtimes.pop("ascend", None)
    if data.get("default-runtime") == "ascend":
        del data["default-runtime"]
    return _go_json(data)


# ----------------------------------------------------------------------------- containerd


def _table(parent, *keys):
    node = parent
    for key in keys:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    return node


def config_version(data):
    version = data.get("version", 2)
    if not isinstance(version, int) or version not in CRI_PLUGIN_BY_VERSION:
        raise ConfigError("unsupported containerd config version %r" % (version,))
    return version


def containerd_add_legacy(data, runtime_path, cgroup_fstype):
    """<= 26.0.0: point the existing runc runtime at the Ascend runtime (in place)."""
    data = copy.deepcopy(data)
    plugins = _table(data, "plugins")
    if cgroup_fstype == "cgroup2fs":
        options = _table(
            plugins, LEGACY_CRI, "containerd", "runtimes", "runc", "options"
        )
        options["BinaryName"] = runtime_path
    else:
        _table(plugins, LEGACY_V1_PLUGIN)["runtime"] = runtime_path
        runc = _table(plugins, LEGACY_CRI, "containerd", "runtimes", "runc")
        runc["runtime_type"] = LEGACY_V1_PLUGIN
    return data


def containerd_remove_legacy(data, cgroup_fstype):
    data = copy.deepcopy(data)
    plugins = _table(data, "plugins")
    if cgroup_fstype == "cgroup2fs":
        options = _table(
            plugins, LEGACY_CRI, "containerd", "runtimes", "runc", "options"
        )
        options["BinaryName"] = ""
    else:
        _table(plugins, LEGACY_V1_PLUGIN)["runtime"] = "runc"
        runc = _table(plugins, LEGACY_CRI, "containerd", "runtimes", "runc")
        runc["runtime_type"] = "io.containerd.runc.v2"
    return data


def containerd_add(data, runtime_path):
    """>= 26.1.0: dedicated ``ascend`` runtime (copied from runc), made the default."""
    data = copy.deepcopy(data)
    plugin = CRI_PLUGIN_BY_VERSION[config_version(data)]
    containerd = _table(data, "plugins", plugin, "containerd")
    runtimes = _table(containerd, "runtimes")
    runc = runtimes.get("runc")
    ascend = (
        copy.deepcopy(runc) if isinstance(runc, dict) else copy.deepcopy(RUNC_FALLBACK)
    )
    options = ascend.get("options")
    if not isinstance(options, dict):
        options = {}
        ascend["options"] = options
    options["BinaryName"] = runtime_path
    runtimes["ascend"] = ascend
    containerd["default_runtime_name"] = "ascend"
    return data


def _prune(node, path):
    """Delete empty tables along ``path`` (deepest first)."""
    if not path:
        return
    child = node.get(path[0])
    if isinstance(child, dict):
        _prune(child, path[1:])
        if not child:
            del node[path[0]]


def containerd_remove(data):
    data = copy.deepcopy(data)
    plugin = CRI_PLUGIN_BY_VERSION[config_version(data)]
    containerd = _table(data, "plugins", plugin, "containerd")
    containerd["default_runtime_name"] = "runc"
    runtimes = containerd.get("runtimes")
    if isinstance(runtimes, dict):
        runtimes.pop("ascend", None)
    _prune(data, ["plugins", plugin, "containerd", "runtimes"])
    return data


# ----------------------------------------------------------------------------- CRI-O


def crio_dropin(runtime_path):
    data = {
        "crio": {
            "runtime": {
                "default_runtime": "ascend",
                "runtimes": {
                    "ascend": {
                        "runtime_path": runtime_path,
                        "runtime_type": "oci",
                        "monitor_env": [CRIO_MONITOR_PATH],
                    }
                },
            }
        }
    }
    return dumps_toml(data)


# ----------------------------------------------------------------------------- entry points


def edit(
    action,
    scene,
    current_text,
    runtime_path,
    reserve_default,
    generation,
    cgroup_fstype,
):
    """New text of the engine configuration (None: nothing to write)."""
    generation = generation or "modern"
    if scene in ("docker", "isula"):
        if action == "add":
            return docker_add(current_text, runtime_path, reserve_default)
        return docker_remove(current_text)
    if scene == "containerd":
        data = loads_toml(current_text or "")
        if generation == "legacy":
            if action == "add":
                return dumps_toml(
                    containerd_add_legacy(data, runtime_path, cgroup_fstype)
                )
            return dumps_toml(containerd_remove_legacy(data, cgroup_fstype))
        if action == "add":
            return dumps_toml(containerd_add(data, runtime_path))
        return dumps_toml(containerd_remove(data))
    if scene == "crio" and generation == "modern":
        return crio_dropin(runtime_path) if action == "add" else None
    raise ConfigError("unsupported install scene %r" % scene)


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 6 or args[0] not in ("add", "rm"):
        sys.stderr.write(
            "usage: %s add|rm <DST> <SRC> <runtime-path> <yes|no> <scene> [cgroup-fstype]\n"
            % os.path.basename(sys.argv[0])
        )
        return 1
    action, dst, src, runtime_path, reserve, scene = args[:6]
    cgroup_fstype = args[6] if len(args) > 6 else ""
    try:
        with open(dst, encoding="utf-8") as handle:
            current = handle.read()
    except FileNotFoundError:
        current = None
    try:
        text = edit(
            "add" if action == "add" else "rm",
            scene,
            current,
            runtime_path,
            reserve == "yes",
            GENERATION,
            cgroup_fstype,
        )
    except ConfigError as err:
        sys.stderr.write("ascend-docker-plugin-install-helper: %s\n" % err)
        return 1
    if text is None:
        return 0
    with open(src, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(src, 0o600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
