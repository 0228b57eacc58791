# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every task of roles/ and playbooks/ that handles a secret is no_log.

A secret is a password, a token, a private key or the content of a kubeconfig. A task handles
one when a module argument is named like one (password, token, api_key, client_key, ...), when
it refers to a variable named like one, or when it reads a kubeconfig's content (slurp, fetch,
a file lookup). A kubeconfig *path* (the kubeconfig option of kubernetes.core) is not a secret:
those tasks keep their output, so an unreachable API is reported with its cause; the variables
that carry the path are declared `type: str` in the argument specs, never a dictionary that
could hold an inline kubeconfig with its token.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]

SECRET = re.compile(
    r"passw(or)?d|token|secret|api_key|apikey|private_key|client_key|bearer|credential",
    re.IGNORECASE,
)
# Keywords of a task that are not the module's arguments.
TASK_KEYWORDS = {
    "name", "when", "loop", "loop_control", "register", "vars", "tags", "become", "become_user",
    "delegate_to", "run_once", "changed_when", "failed_when", "check_mode", "ignore_errors",
    "notify", "until", "retries", "delay", "no_log", "environment", "args", "listen",
    "with_items", "with_dict", "diff", "any_errors_fatal", "throttle", "timeout", "module_defaults",
    "delegate_facts", "local_action", "block", "rescue", "always", "ignore_unreachable",
}  # fmt: skip
READS_CONTENT = {"ansible.builtin.slurp", "ansible.builtin.fetch"}
JINJA = re.compile(r"{{(.*?)}}|{%(.*?)%}", re.DOTALL)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LOOKUP_KUBECONFIG = re.compile(r"lookup\([^)]*kubeconfig", re.IGNORECASE)


def task_files():
    files = sorted(ROOT.glob("roles/*/tasks/*.yml")) + sorted(
        ROOT.glob("roles/*/handlers/*.yml")
    )
    files += sorted(ROOT.glob("playbooks/*.yml")) + [ROOT / "site.yml"]
    return [f for f in files if f.exists()]


def walk(items):
    """Every task in a list of tasks or plays, blocks included."""
    for item in items or []:
        if not isinstance(item, dict):
            continue
        if "hosts" in item or "import_playbook" in item:
            for key in ("pre_tasks", "tasks", "post_tasks", "handlers"):
                yield from walk(item.get(key))
            continue
        if "block" in item:
            yield item
            for key in ("block", "rescue", "always"):
                yield from walk(item.get(key))
            continue
        yield item


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def module_of(task):
    names = [k for k in task if k not in TASK_KEYWORDS]
    return names[0] if names else None


def secret_reasons(task):
    """Why the task handles a secret; empty when it does not."""
    reasons = []
    module = module_of(task)
    args = task.get(module) if module else None
    if isinstance(args, dict):
        reasons += ["argument %s" % key for key in args if SECRET.search(str(key))]
    for text in strings([args, task.get("args"), task.get("vars"), task.get("loop")]):
        for match in JINJA.finditer(text):
            expression = match.group(1) or match.group(2) or ""
            # Strings inside the expression are messages, not variables.
            expression = re.sub(r"'[^']*'|\"[^\"]*\"", "", expression)
            reasons += [
                "variable %s" % name
                for name in NAME.findall(expression)
                if SECRET.search(name)
            ]
    if module in READS_CONTENT and "kubeconfig" in " ".join(strings(args)).lower():
        reasons.append("reads a kubeconfig")
    if LOOKUP_KUBECONFIG.search(" ".join(strings(args))):
        reasons.append("looks a kubeconfig up")
    return sorted(set(reasons))


def offenders(tasks):
    found = []
    for task in walk(tasks):
        if "block" in task:
            continue
        reasons = secret_reasons(task)
        if reasons and not task.get("no_log"):
            found.append(
                "%s (%s)" % (task.get("name", module_of(task)), ", ".join(reasons))
            )
    return found


def test_the_rule_catches_what_it_must():
    tasks = [
        {"name": "login", "community.general.x": {"password": "{{ x }}"}},
        {
            "name": "join",
            "ansible.builtin.command": "kubeadm join --token {{ join_token }}",
        },
        {
            "name": "read",
            "ansible.builtin.slurp": {"src": "/etc/kubernetes/admin.kubeconfig"},
        },
        {
            "hosts": "all",
            "tasks": [{"block": [{"name": "inner", "x.y": {"api_key": "k"}}]}],
        },
        {"name": "hidden", "x.y": {"password": "{{ p }}"}, "no_log": True},
        {
            "name": "message only",
            "ansible.builtin.fail": {"msg": "{{ 'no token given' }}"},
        },
        {
            "name": "path",
            "kubernetes.core.k8s_info": {"kubeconfig": "{{ x_kubeconfig }}"},
        },
        {"name": "inline", "x.y": {"definition": "{{ lookup('file', x_kubeconfig) }}"}},
    ]
    assert offenders(tasks) == [
        "login (argument password)",
        "join (variable join_token)",
        "read (reads a kubeconfig)",
        "inner (argument api_key)",
        "inline (looks a kubeconfig up)",
    ]


@pytest.mark.parametrize("path", task_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_tasks_that_handle_secrets_are_no_log(path):
    with open(path, encoding="utf-8") as handle:
        tasks = yaml.safe_load(handle)
    assert offenders(tasks) == []


def test_kubeconfig_variables_are_paths_not_inline_content():
    declared = {}
    for spec in ROOT.glob("roles/*/meta/argument_specs.yml"):
        with open(spec, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        for entry in data["argument_specs"].values():
            for name, option in entry.get("options", {}).items():
                if "kubeconfig" in name:
                    declared[name] = option.get("type", "str")
    assert declared, "no kubeconfig option found: the test looks in the wrong place"
    assert {name: kind for name, kind in declared.items() if kind != "str"} == {}
