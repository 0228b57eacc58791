# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/bench.py: what it reads from a run and how it projects. Times are never asserted."""

from __future__ import annotations

import json

RECAP = """
TASK [Print the summary] ****
ok: [n-1]

PLAY RECAP *********************************************************************
n-1                        : ok=27   changed=0    unreachable=0    failed=0    skipped=19   rescued=0    ignored=0
n-2                        : ok=120  changed=31   unreachable=0    failed=0    skipped=40   rescued=0    ignored=0
"""


def test_recap_reads_every_host(load_tool):
    bench = load_tool("bench")
    stats = bench.recap(RECAP)
    assert stats["n-1"]["ok"] == 27
    assert stats["n-1"]["skipped"] == 19
    assert stats["n-2"]["changed"] == 31
    run = {"recap": stats}
    assert bench.per_host(run, "changed") == "0-31"
    assert bench.per_host({"recap": {"a": {"ok": 3}, "b": {"ok": 3}}}, "ok") == "3"


def test_read_bytes_tells_installers_from_module_payloads(load_tool, tmp_path):
    bench = load_tool("bench")
    log = tmp_path / "bytes.jsonl"
    records = [
        {"op": "exec", "host": "n-1", "sent": 100, "received": 10},
        {"op": "put", "host": "n-1", "file": "tmpabc", "sent": 195000, "received": 0},
        {
            "op": "put",
            "host": "n-1",
            "file": "Ascend-hdk-910b-npu-driver_25.5.0_linux-x86_64.run",
            "sent": 5000,
            "received": 0,
        },
        {
            "op": "put",
            "host": "n-2",
            "file": "Ascend-docker-runtime_7.3.0_linux-x86_64.zip",
            "sent": 700,
            "received": 0,
        },
        {"op": "fetch", "host": "n-2", "file": "x", "sent": 0, "received": 42},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    totals = bench.read_bytes(str(log))
    assert totals["sent"] == 100 + 195000 + 5000 + 700
    assert totals["received"] == 52
    assert totals["installer"] == 5700
    assert len(totals["installers"]) == 2
    assert totals["puts"] == 3
    assert totals["hosts"] == {"n-1": 200100, "n-2": 700}
    assert bench.read_bytes(str(tmp_path / "missing"))["sent"] == 0


def test_fit_and_projection(load_tool):
    bench = load_tool("bench")
    a, b = bench.fit([(1, 12.0), (4, 18.0), (8, 26.0)])
    assert abs(a - 10.0) < 1e-9
    assert abs(b - 2.0) < 1e-9
    # 100 hosts, 50 forks: two waves of 50.
    assert bench.project(10.0, 2.0, 100, 50) == 2 * (10.0 + 2.0 * 50)
    # 10 slices of 10 hosts at the same time: one wave of 10.
    assert bench.project(10.0, 2.0, 100, 50, 10) == 10.0 + 2.0 * 10
    # 1,000 hosts in 10 slices: 100 per slice, two waves of 50.
    assert bench.project(10.0, 2.0, 1000, 50, 10) == 2 * (10.0 + 2.0 * 50)
    # One point only: no slope.
    assert bench.fit([(1, 5.0)]) == (5.0, 0.0)


# What ansible.posix.json prints for a run (trimmed): a play with a skipped task, a task on
# the controller, a module on the node and a read of the API (run_once: the first host only).
JSON_RUN = """[WARNING]: a warning before the document
{
    "custom_stats": {},
    "global_custom_stats": {},
    "plays": [
        {
            "play": {"name": "layer"},
            "tasks": [
                {"hosts": {"n-1": {"action": "ansible.builtin.setup", "skipped": true}}, "task": {"name": "a"}},
                {"hosts": {"n-1": {"action": "ansible.builtin.set_fact", "changed": false}}, "task": {"name": "b"}},
                {"hosts": {"n-1": {"action": "cubestudio.ascend.ascend_facts", "changed": false}}, "task": {"name": "c"}},
                {"hosts": {"n-1": {"action": "cubestudio.ascend.ascend_k8s_read"}}, "task": {"name": "d"}}
            ]
        },
        {"play": {"name": "other hosts"}, "tasks": [{"hosts": {"n-2": {"action": "debug"}}, "task": {"name": "e"}}]}
    ],
    "stats": {}
}
[WARNING]: and one after
"""


def test_the_shape_of_a_run_and_its_price(load_tool):
    shape = load_tool("bench_shape")
    counts = shape.composition(JSON_RUN, "n-1", node_commands=1)
    assert counts == {
        "play": 1,
        "tasks": 4,
        "skipped_task": 1,
        "api_read": 1,
        "node_task": 1,
        "controller_task": 1,
        "node_command": 1,
    }
    seconds = {
        "start": 1.0,
        "play": 1.0 + 0.05 * (shape.PLAYS - 1),
        "controller_task": 1.0 + 0.02 * shape.TASKS,
        "skipped_task": 1.0 + 0.01 * shape.TASKS,
        "node_command": 1.0 + 0.2 * shape.NODE_RUNS,
        "api_read": 1.0 + 0.5 * shape.API_READS,
    }
    price = shape.prices(seconds)
    assert round(price["play"], 6) == 0.05
    assert round(price["node_command"], 6) == 0.2
    table, rest = shape.breakdown(2.0, counts, price)
    # start 1.0 + skipped 0.01 + node 0.2 + api 0.5; the one controller task is the start's.
    assert round(sum(row[3] for row in table), 6) == 1.71
    assert round(rest, 6) == 0.29
    # The start and the further plays: the table's first two rows.
    assert shape.start_and_plays(counts, price) == table[0][3] + table[1][3]
    assert round(shape.start_and_plays(dict(counts, play=3), price), 6) == 1.1
    # Every calibration playbook is the start plus its part, on the inventory's nodes.
    books = shape.playbooks("node-1")
    assert books["start"][1] == 0
    assert len(books["play"][0]) == shape.PLAYS
    assert all(play["hosts"] == "ascend_nodes" for play in books["play"][0])
    assert books["api_read"][0][0]["tasks"][1]["cubestudio.ascend.ascend_k8s_read"] == {
        "nodes": ["node-1"]
    }
