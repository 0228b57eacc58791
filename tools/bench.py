# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: what a no-op re-run of site.yml costs against the floor, measured in one run.

On the converged demo node (`make demo` first; this script runs it when the node is missing):

  floor    `ansible -m ping` plus `ansible -m cubestudio.ascend.ascend_facts`: the least any run
           that looks at the node must pay (one connection, one module with its facts)
  node     `ansible-playbook site.yml -e ascend_kubernetes=false`: the no-op re-run of the node
           layer (preflight, driver, CANN, runtime, summary) - issue 12's target, 3 x the floor
  full     `ansible-playbook site.yml`: every layer, the Kubernetes one too (rollout wait, smoke pod)

The three are run in turn (paired), RUNS times each; the medians, the ratios to the floor, the
tasks and the changed count of the re-runs (an installer copied would be a change), and a
profile by role of one more node-layer re-run are written to docs/benchmarks.md with the
command, the machine and the date. Also the cost of parsing the
largest npu-smi fixture and of the device plugin plan of an 8-card node (in-process, timeit).
Times are reported, never asserted: a benchmark is not a test.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, ".build", "demo")
INVENTORY = os.path.join(DEMO, "inventory.yml")
NODE = os.environ.get("DEMO_NODE", "cubestudio-demo-node")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
OUT = os.path.join(ROOT, "docs", "benchmarks.md")
FIXTURES = os.path.join(
    ROOT, "tests", "unit", "plugins", "module_utils", "fixtures", "npu-smi"
)


def env():
    return dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
    )


def timed(argv):
    start = time.monotonic()
    proc = subprocess.run(
        argv,
        cwd=ROOT,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
    )
    elapsed = time.monotonic() - start
    out = proc.stdout.decode(errors="replace")
    if proc.returncode != 0:
        sys.stderr.write(out[-3000:])
        raise SystemExit("bench: %s failed (exit %d)" % (argv[:3], proc.returncode))
    return elapsed, out


def floor():
    bin_dir = os.path.dirname(sys.executable)
    total = 0.0
    for module, args in (
        ("ping", []),
        (
            "cubestudio.ascend.ascend_facts",
            ["-a", "sysfs_root=/var/lib/ascend-sim/sys"],
        ),
    ):
        elapsed, _out = timed(
            [
                os.path.join(bin_dir, "ansible"),
                "-i",
                INVENTORY,
                "ascend_nodes",
                "-m",
                module,
            ]
            + args
        )
        total += elapsed
    return total


def rerun(*extra):
    bin_dir = os.path.dirname(sys.executable)
    elapsed, out = timed(
        [os.path.join(bin_dir, "ansible-playbook"), "-i", INVENTORY, "site.yml", *extra]
    )
    recap = re.search(r"^%s\s*:\s*(.*)$" % re.escape(NODE), out, re.M)
    stats = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", recap.group(1))}
    return elapsed, stats


NODE_LAYER = ("-e", "ascend_kubernetes=false")


def profile():
    """Seconds by role (ansible.posix.profile_roles) of one node-layer re-run."""
    os.environ["ANSIBLE_CALLBACKS_ENABLED"] = "ansible.posix.profile_roles"
    try:
        bin_dir = os.path.dirname(sys.executable)
        _elapsed, out = timed(
            [
                os.path.join(bin_dir, "ansible-playbook"),
                "-i",
                INVENTORY,
                "site.yml",
                *NODE_LAYER,
            ]
        )
    finally:
        del os.environ["ANSIBLE_CALLBACKS_ENABLED"]
    recap = out.split("ROLES RECAP", 1)[-1]
    return re.findall(r"^(\S+) -+ ([0-9.]+)s$", recap, re.M)


def in_process():
    sys.path.insert(0, os.path.join(ROOT, ".build", "collections"))
    import yaml

    from ansible_collections.cubestudio.ascend.plugins.module_utils import (
        _mindcluster,
        _node_plan,
        _npu_smi,
    )

    largest = max(
        (f for f in os.listdir(FIXTURES) if f.endswith(".txt")),
        key=lambda f: os.path.getsize(os.path.join(FIXTURES, f)),
    )
    with open(os.path.join(FIXTURES, largest), encoding="utf-8") as handle:
        text = handle.read()
    parse = (
        min(timeit.repeat(lambda: _npu_smi.parse_info(text), number=200, repeat=5))
        / 200
    )
    with open(
        os.path.join(ROOT, "data", "mindcluster.yml"), encoding="utf-8"
    ) as handle:
        catalogue = _mindcluster.validate_catalogue(yaml.safe_load(handle))
    with open(
        os.path.join(FIXTURES, "910b3-8card-23.0.7-with-processes.txt"),
        encoding="utf-8",
    ) as handle:
        eight = _npu_smi.parse_info(handle.read())
    params = {
        "npu_family": "910B",
        "architecture": "aarch64",
        "npu_smi": eight,
        "board_id": "0x33",
        "version": "7.3.0",
        "node_name": "n",
    }
    plan = (
        min(
            timeit.repeat(
                lambda: _mindcluster.plan(catalogue, params), number=200, repeat=5
            )
        )
        / 200
    )
    with open(os.path.join(ROOT, "data", "catalogue.yml"), encoding="utf-8") as handle:
        node_catalogue = _node_plan.validate_catalogue(yaml.safe_load(handle))
    facts = {
        "npu_family": "910B",
        "npu_model": "Atlas 800T A2",
        "pci_npu_count": 8,
        "driver": {"version": "24.1.0", "complete": True},
        "firmware": {"version": "7.5.0.2.220"},
        "cann": None,
        "docker_runtime": None,
        "layers": {},
    }
    node_params = {
        "facts": facts,
        "architecture": "aarch64",
        "driver_version": "25.5.0",
        "firmware_version": "7.8.0.5.216",
        "cann_version": "8.5.0",
        "runtime_version": "7.3.0",
        "cann_packages": ["toolkit"],
    }
    node_plan = (
        min(
            timeit.repeat(
                lambda: _node_plan.plan(node_catalogue, node_params),
                number=200,
                repeat=5,
            )
        )
        / 200
    )
    return largest, len(text), parse, plan, node_plan


def main():
    if (
        not os.path.exists(INVENTORY)
        or subprocess.run(
            ["docker", "container", "inspect", NODE], capture_output=True, check=False
        ).returncode
    ):
        subprocess.run([os.path.join(ROOT, "tools", "demo.sh")], cwd=ROOT, check=True)
    # One warm-up of each, not counted (connection plugin, caches, first fork).
    floor()
    rerun(*NODE_LAYER)
    rerun()
    floors, nodes, fulls, stats, full_stats, changed = [], [], [], {}, {}, 0
    for i in range(RUNS):
        floors.append(floor())
        elapsed, stats = rerun(*NODE_LAYER)
        nodes.append(elapsed)
        changed += stats.get("changed", 0)
        elapsed, full_stats = rerun()
        fulls.append(elapsed)
        changed += full_stats.get("changed", 0)
        sys.stderr.write(
            "[bench] run %d/%d: floor %.1f s, node layer %.1f s, every layer %.1f s\n"
            % (i + 1, RUNS, floors[-1], nodes[-1], fulls[-1])
        )
    roles = profile()
    largest, size, parse, plan, node_plan = in_process()
    f_med = statistics.median(floors)
    n_med, a_med = statistics.median(nodes), statistics.median(fulls)
    machine = "%s, %d CPUs, Python %s, %s" % (
        platform.machine(),
        os.cpu_count(),
        platform.python_version(),
        platform.release(),
    )

    def runs(values):
        return ", ".join("%.1f" % x for x in values)

    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (tools/bench.py) on %s; machine: %s. Medians of %d paired runs"
        % (datetime.date.today().isoformat(), machine, RUNS),
        "(floor, node-layer re-run and full re-run in turn, after one warm-up of each), on the",
        "converged demo node (8 x 910B3 joined to the test bed's cluster). Measured, not projected.",
        os.environ.get("BENCH_NOTE", ""),
        "",
        "| measure | median | ratio to the floor | all runs (s) |",
        "|---------|--------|--------------------|--------------|",
        "| floor: `ansible -m ping` + `ansible -m cubestudio.ascend.ascend_facts` | %.1f s | 1 | %s |"
        % (f_med, runs(floors)),
        "| no-op re-run of the node layer: `ansible-playbook site.yml -e ascend_kubernetes=false` | %.1f s | **%.1f x** | %s |"
        % (n_med, n_med / f_med, runs(nodes)),
        "| no-op re-run of every layer: `ansible-playbook site.yml` | %.1f s | %.1f x | %s |"
        % (a_med, a_med / f_med, runs(fulls)),
        "",
        "Node-layer re-run: %d tasks ok, %d skipped; every layer: %d ok, %d skipped. Changed tasks"
        % (
            stats.get("ok", 0),
            stats.get("skipped", 0),
            full_stats.get("ok", 0),
            full_stats.get("skipped", 0),
        ),
        "over the %d measured re-runs of each: %d (an installer copied to the node is a change, so 0"
        % (RUNS, changed),
        "means 0 bytes of installers). The node layer skips each layer whose node is as its last",
        "complete run left it (layer records, docs/design.md section 6); the Kubernetes layer",
        "checks its rollout and runs its smoke pod every time.",
        "",
        "Where one more node-layer re-run spends its time (`ansible.posix.profile_roles`; a role",
        "here is the role's own tasks, a module name the tasks of the plays outside roles):",
        "",
        "| role or module | seconds |",
        "|----------------|---------|",
    ]
    lines += ["| %s | %s |" % (name, secs) for name, secs in roles]
    lines += [
        "",
        "| in-process cost | per call |",
        "|-----------------|----------|",
        "| `npu_smi_facts` parser on the largest fixture (`%s`, %d bytes) | %.2f ms |"
        % (largest, size, parse * 1000),
        "| device plugin plan of an 8-card 910B node | %.3f ms |" % (plan * 1000),
        "| node plan (`ascend_plan`) of an 8-card 910B node upgrading 24.1.0 to 25.5.0 | %.3f ms |"
        % (node_plan * 1000),
        "",
        "Not measured here: 4 and 8 nodes (issue 14).",
        "",
    ]
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    sys.stdout.write("\n".join(lines))
    with open(os.path.join(DEMO, "bench.json"), "w", encoding="utf-8") as handle:
        json.dump(
            {
                "floor": floors,
                "node_layer": nodes,
                "every_layer": fulls,
                "stats": stats,
                "profile": roles,
                "parse_s": parse,
                "plan_s": plan,
                "node_plan_s": node_plan,
            },
            handle,
            indent=2,
        )


if __name__ == "__main__":
    main()
