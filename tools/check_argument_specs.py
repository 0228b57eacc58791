# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check that every role declares its interface twice, identically.

For each role: the variables of defaults/main.yml are exactly the options of the `main` entry
point in meta/argument_specs.yml, each default there equals the value in defaults/main.yml
(except a typed option - not str - whose value is computed by Jinja: it documents no default
and its description says what it defaults to; a typed option never documents a Jinja string),
every option of another entry point is a default too (with the same default where it names one),
and every public variable carries the
role's prefix.

Across roles: where a default reads another role's variable with a literal fallback,
`{{ npu_driver_version | default('25.5.0') }}`, the fallback must equal that role's own default,
so that a role run alone decides like the whole site playbook.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def check_role(role: Path) -> list[str]:
    problems = []
    spec_file = role / "meta" / "argument_specs.yml"
    if not spec_file.exists():
        return ["%s: no meta/argument_specs.yml" % role.name]
    specs = (yaml.safe_load(spec_file.read_text()) or {}).get("argument_specs") or {}
    if "main" not in specs:
        problems.append("%s: argument_specs has no `main` entry point" % role.name)
        return problems
    defaults_file = role / "defaults" / "main.yml"
    defaults = (
        (yaml.safe_load(defaults_file.read_text()) or {})
        if defaults_file.exists()
        else {}
    )
    options = specs["main"].get("options") or {}
    # An internal role (underscore) is only included with tasks_from: its defaults are the
    # options of its other entry points, which are checked below.
    internal = role.name.startswith("_")
    entry_options = set()
    for spec in specs.values():
        entry_options |= set(spec.get("options") or {})
    for name in sorted(set(defaults) - (entry_options if internal else set(options))):
        problems.append(
            "%s: %s is in defaults/main.yml but not in argument_specs (%s)"
            % (role.name, name, "any entry point" if internal else "main")
        )
    for name in sorted(set(options) - set(defaults)):
        if not options[name].get("required"):
            problems.append(
                "%s: %s is in argument_specs (main) but has no value in defaults/main.yml"
                % (role.name, name)
            )
    for name in sorted(set(options) & set(defaults)):
        problems.extend(check_default(role.name, name, options[name], defaults[name]))
    prefix = role.name + "_"
    for name in sorted(set(defaults) | set(options)):
        if not name.startswith(prefix):
            problems.append(
                "%s: %s lacks the role prefix %r" % (role.name, name, prefix)
            )
    for entry, spec in specs.items():
        if entry == "main":
            continue
        for name in sorted(set(spec.get("options") or {}) - set(defaults)):
            if not (spec["options"][name] or {}).get("required"):
                problems.append(
                    "%s: %s (entry point %s) has no value in defaults/main.yml"
                    % (role.name, name, entry)
                )
        for name in sorted(set(spec.get("options") or {}) & set(defaults)):
            if "default" not in (spec["options"][name] or {}):
                continue
            problems.extend(
                check_default(
                    role.name, name, spec["options"][name], defaults[name], entry
                )
            )
    return problems


def computed(value) -> bool:
    """A default that Jinja computes at run time (from another role's variable, a lookup)."""
    return isinstance(value, str) and "{{" in value


def check_default(role, name, option, value, entry="main") -> list[str]:
    """The documented default of one option against its value in defaults/main.yml.

    A typed option (not str) whose value is computed documents no default (antsibull-docs and
    ansible-doc need a value of the option's type): its description says what it defaults to.
    A typed option never documents a Jinja string. Otherwise the documented default equals the
    value in defaults/main.yml.
    """
    where = "" if entry == "main" else " (%s)" % entry
    kind = option.get("type", "str")
    spec_default = option.get("default")
    if kind != "str" and computed(spec_default):
        return [
            "%s: %s is of type %s but documents the Jinja string %r as its default%s: document"
            " no default and describe the computed one in the description"
            % (role, name, kind, spec_default, where)
        ]
    if kind != "str" and computed(value):
        if "default" in option:
            return [
                "%s: %s (type %s) is computed in defaults/main.yml (%r) but documents %r%s"
                % (role, name, kind, value, spec_default, where)
            ]
        description = option.get("description") or ""
        if "Defaults to" not in " ".join(
            description if isinstance(description, list) else [description]
        ):
            return [
                "%s: %s (type %s) is computed in defaults/main.yml (%r): its description must"
                ' say what it defaults to ("Defaults to ...")%s'
                % (role, name, kind, value, where)
            ]
        return []
    if spec_default != value:
        return [
            "%s: %s defaults to %r in defaults/main.yml but %r in argument_specs%s"
            % (role, name, value, spec_default, where)
        ]
    return []


_BORROWED = re.compile(
    r"\{\{\s*(?P<var>[a-z][a-z0-9_]*)\s*\|\s*default\((?P<lit>'[^']*'|\"[^\"]*\"|-?[0-9]+|true|false)\)\s*\}\}"
)


def load_defaults(roles: list[Path]) -> dict[str, dict]:
    found = {}
    for role in roles:
        defaults_file = role / "defaults" / "main.yml"
        if defaults_file.exists():
            found[role.name] = yaml.safe_load(defaults_file.read_text()) or {}
    return found


def check_borrowed(all_defaults: dict[str, dict]) -> list[str]:
    """Fallback literals of variables borrowed from another role must equal its defaults."""
    owner = {
        var: (role, value)
        for role, defaults in all_defaults.items()
        for var, value in defaults.items()
    }
    problems = []
    for role, defaults in all_defaults.items():
        for name, value in defaults.items():
            if not isinstance(value, str):
                continue
            match = _BORROWED.fullmatch(value.strip())
            if not match or match.group("var") not in owner:
                continue
            other_role, other_value = owner[match.group("var")]
            if other_role == role:
                continue
            literal = yaml.safe_load(match.group("lit"))
            if literal != other_value:
                problems.append(
                    "%s: %s falls back to %r but %s defaults %s to %r"
                    % (role, name, literal, other_role, match.group("var"), other_value)
                )
    return problems


def main() -> int:
    problems = []
    roles = sorted(p for p in (ROOT / "roles").iterdir() if p.is_dir())
    for role in roles:
        problems.extend(check_role(role))
    problems.extend(check_borrowed(load_defaults(roles)))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
