# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a no-op re-run's time goes, for `make bench` (tools/bench.py; not part of the collection).

The re-run of every layer is taken apart into what Ansible does for it, each part counted in
that run and priced on the same node by a playbook that does only that:

- the start: `ansible-playbook` with one play of one task on the controller;
- each further play;
- each task that runs on the controller only (set_fact, debug, include_role, and the
  collection's action plugins that decide on the controller);
- each skipped task;
- each command sent to the node (one `docker exec`: with pipelining, one module run);
- each read of the Kubernetes API (a module on the host that talks to the API).

The counts come from the run itself: its plays and tasks from the `ansible.posix.json`
callback, its commands on the node from the counting connection (tools/bench_plugins). The
prices come from the calibration playbooks below (`playbooks`), each the start plus N of one
part. What the parts do not explain is the rest: the tasks' own work (a module that reads
more than `ping`, a template that renders more than a string).
"""

from __future__ import annotations

import json

# Calibration sizes: large enough that the part dominates the start, small enough to be quick.
PLAYS = 12
TASKS = 60
NODE_RUNS = 20
API_READS = 6
# Collection modules whose work is a read of the Kubernetes API on the host that talks to it.
API_ACTIONS = frozenset(
    {
        "cubestudio.ascend.ascend_k8s_read",
        "kubernetes.core.k8s_info",
        "kubernetes.core.k8s",
    }
)


def _play(hosts, tasks, become=False):
    return {
        "name": "bench shape",
        "hosts": hosts,
        "gather_facts": False,
        "become": become,
        "tasks": tasks,
    }


def _debug(index):
    return {"name": "debug %d" % index, "ansible.builtin.debug": {"msg": "x"}}


def playbooks(node_name, k8s_host="localhost"):
    """{name: (plays, count)}: the calibration playbooks, each the start plus `count` of one
    part. The start is one play of one controller task, as every one of them begins."""
    start = [_play("ascend_nodes", [_debug(0)])]
    return {
        "start": (start, 0),
        "play": (
            start + [_play("ascend_nodes", [_debug(i)]) for i in range(1, PLAYS)],
            PLAYS - 1,
        ),
        "controller_task": (
            [_play("ascend_nodes", [_debug(i) for i in range(TASKS + 1)])],
            TASKS,
        ),
        "skipped_task": (
            [
                _play(
                    "ascend_nodes",
                    [_debug(0)]
                    + [dict(_debug(i), when="false") for i in range(1, TASKS + 1)],
                )
            ],
            TASKS,
        ),
        "node_command": (
            [
                _play(
                    "ascend_nodes",
                    [_debug(0)]
                    + [
                        {"name": "ping %d" % i, "ansible.builtin.ping": {}}
                        for i in range(NODE_RUNS)
                    ],
                    become=True,
                )
            ],
            NODE_RUNS,
        ),
        "api_read": (
            [
                _play(
                    "ascend_nodes",
                    [_debug(0)]
                    + [
                        {
                            "name": "read %d" % i,
                            "cubestudio.ascend.ascend_k8s_read": {"nodes": [node_name]},
                            "delegate_to": k8s_host,
                            "become": False,
                            "run_once": True,
                        }
                        for i in range(API_READS)
                    ],
                )
            ],
            API_READS,
        ),
    }


def prices(seconds):
    """{part: seconds each} from the medians of the calibration playbooks ({name: seconds})."""
    book = playbooks("n")
    start = seconds["start"]
    out = {"start": start}
    for name, (_plays, count) in book.items():
        if count:
            out[name] = max(seconds[name] - start, 0.0) / count
    return out


def composition(json_output, host, node_commands):
    """What one run did for ``host``, from the ansible.posix.json callback's output: plays,
    controller tasks, skipped tasks, API reads, and the commands on the node (counted by the
    connection, ``node_commands``); the tasks that ran on the node are the rest."""
    # The callback prints one document starting with a line "{"; warnings may surround it.
    start = ("\n" + json_output).find("\n{\n")
    if start < 0:
        raise ValueError("no ansible.posix.json document in the output")
    data, _end = json.JSONDecoder().raw_decode(json_output[start:])
    counts = {
        "play": 0,
        "tasks": 0,
        "skipped_task": 0,
        "api_read": 0,
        "node_task": 0,
        "controller_task": 0,
    }
    for play in data.get("plays") or []:
        ran = False
        for task in play.get("tasks") or []:
            result = (task.get("hosts") or {}).get(host)
            if result is None:
                continue
            ran = True
            counts["tasks"] += 1
            action = str(result.get("action") or "")
            if result.get("skipped"):
                counts["skipped_task"] += 1
            elif action in API_ACTIONS:
                counts["api_read"] += 1
            else:
                counts["controller_task"] += 1
        counts["play"] += 1 if ran else 0
    # A task that ran on the node sent at least one command; the others ran on the controller.
    counts["node_command"] = node_commands
    counts["node_task"] = min(node_commands, counts["controller_task"])
    counts["controller_task"] -= counts["node_task"]
    return counts


def start_and_plays(counts, price):
    """Seconds of the start and of each further play: what a run pays before its tasks."""
    return price["start"] + max(counts["play"] - 1, 0) * price["play"]


def breakdown(measured, counts, price):
    """Rows (part, count, seconds each, seconds) and the rest, for a run of ``measured``
    seconds: the start once, each further play, each task by where it ran."""
    rows = [("start (`ansible-playbook`, 1 play, 1 task)", 1, price["start"])]
    rows.append(("further plays", max(counts["play"] - 1, 0), price["play"]))
    rows.append(
        (
            "tasks on the controller only",
            max(counts["controller_task"] - 1, 0),
            price["controller_task"],
        )
    )
    rows.append(("skipped tasks", counts["skipped_task"], price["skipped_task"]))
    rows.append(("commands on the node", counts["node_command"], price["node_command"]))
    rows.append(("reads of the Kubernetes API", counts["api_read"], price["api_read"]))
    table = [(name, n, each, n * each) for name, n, each in rows]
    explained = sum(row[3] for row in table)
    return table, measured - explained
