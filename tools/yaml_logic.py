# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Count the decisions left in task YAML, and hold the line (a ratchet).

Counts, over roles/*/tasks, roles/*/handlers and playbooks (issue 23's measures):
- set_fact tasks with logic: a value holding a Jinja expression that is more than variable
  references (or renderings of the role's templates, `lookup`/`query('ansible.builtin.template',
  ...)`) joined by `+` and passed through this collection's filters (any other filter, a test,
  `if`, another operator, a statement block);
- statement blocks: `{% for %}`, `{% if %}`, `{% set %}` anywhere in a task file;
- `when:` with three or more conditions (list items, plus `and`/`or` inside each item).

`--check` fails when a count is above its budget in tools/yaml_logic_budget.yml: decisions go
to Python (plugins/module_utils), so the numbers may only go down; lower the budget with them.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BUDGET = ROOT / "tools" / "yaml_logic_budget.yml"
EXPR = re.compile(r"{{(.*?)}}", re.S)
PLAIN = re.compile(
    r"^\s*[A-Za-z_][A-Za-z0-9_]*(\[['\"]?[A-Za-z0-9_.-]+['\"]?\]|\.[A-Za-z_][A-Za-z0-9_]*)*\s*$"
)
# Rendering one of the role's templates formats (the template decides nothing: see its header).
TEMPLATE = re.compile(
    r"^\s*(lookup|query)\(\s*'ansible\.builtin\.template'\s*,[^()]*\)\s*$"
)
OWN_FILTER = re.compile(r"\|\s*cubestudio\.ascend\.[a-z0-9_]+\s*(?=$|\|)")
BLOCK = re.compile(r"{%-?\s*(for|if|set)\b")
BOOL = re.compile(r"\b(and|or)\b")


def task_files() -> list:
    files = []
    for pattern in (
        "roles/*/tasks/*.yml",
        "roles/*/handlers/*.yml",
        "playbooks/*.yml",
        "playbooks/tasks/*.yml",
    ):
        files += sorted(ROOT.glob(pattern))
    return files


def walk_tasks(node):
    if isinstance(node, list):
        for item in node:
            yield from walk_tasks(item)
    elif isinstance(node, dict):
        if any(
            k in node for k in ("name", "ansible.builtin.set_fact", "when", "block")
        ):
            yield node
        for key in (
            "block",
            "rescue",
            "always",
            "tasks",
            "pre_tasks",
            "post_tasks",
            "handlers",
        ):
            if key in node:
                yield from walk_tasks(node[key])


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def plain(expr: str) -> bool:
    """One variable reference, or references joined by `+` and passed through this
    collection's own filters (the decision is then in Python)."""
    parts = OWN_FILTER.sub("", expr).split("+")
    return all(PLAIN.match(part) or TEMPLATE.match(part) for part in parts)


def has_logic(value) -> bool:
    for text in strings(value):
        if "{%" in text:
            return True
        for expr in EXPR.findall(text):
            if not plain(expr):
                return True
    return False


def conditions(when) -> int:
    items = when if isinstance(when, list) else [when]
    return sum(1 + len(BOOL.findall(str(item))) for item in items)


def count() -> dict:
    found = {
        "set_fact_with_logic": [],
        "statement_blocks": [],
        "when_three_or_more": [],
    }
    for path in task_files():
        rel = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        found["statement_blocks"] += [rel] * len(BLOCK.findall(text))
        for task in walk_tasks(yaml.safe_load(text)):
            fact = task.get("ansible.builtin.set_fact")
            if fact is not None and (has_logic(fact) or has_logic(task.get("vars"))):
                found["set_fact_with_logic"].append("%s: %s" % (rel, task.get("name")))
            if "when" in task and conditions(task["when"]) >= 3:
                found["when_three_or_more"].append("%s: %s" % (rel, task.get("name")))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail above the budget")
    parser.add_argument(
        "--list", action="store_true", help="list where each count comes from"
    )
    args = parser.parse_args()
    found = count()
    budget = (
        yaml.safe_load(BUDGET.read_text(encoding="utf-8")) if BUDGET.exists() else {}
    )
    over = []
    for key, places in found.items():
        limit = budget.get(key)
        print("%-22s %3d  (budget %s)" % (key, len(places), limit))
        if args.list:
            for place in places:
                print("    " + place)
        if args.check and limit is not None and len(places) > limit:
            over.append("%s: %d > %d" % (key, len(places), limit))
    if over:
        print(
            "more decisions in task YAML than the budget (%s): move them to Python "
            "(plugins/module_utils) - tools/yaml_logic.py --list shows where"
            % "; ".join(over),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
