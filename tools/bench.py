# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: what a no-op re-run of site.yml costs against the floor, measured in one run.

On the converged demo node (`make demo` first; this script runs it when the node is missing):

  floor    `ansible -m ping` plus `ansible -m cubestudio.ascend.ascend_facts`: the least any run
           that looks at the node must pay (one connection, one module with its facts)
  rerun    `ansible-playbook site.yml` on the converged node (every layer, the Kubernetes one too)

The two are run alternately (paired), RUNS times each; the medians, their ratio, the tasks and
the changed count of the re-run, and the bytes of installers copied are written to
docs/benchmarks.md with the command, the machine and the date. Also the cost of parsing the
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


def rerun():
    bin_dir = os.path.dirname(sys.executable)
    elapsed, out = timed(
        [os.path.join(bin_dir, "ansible-playbook"), "-i", INVENTORY, "site.yml"]
    )
    recap = re.search(r"^%s\s*:\s*(.*)$" % re.escape(NODE), out, re.M)
    stats = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", recap.group(1))}
    return elapsed, stats


def in_process():
    sys.path.insert(0, os.path.join(ROOT, ".build", "collections"))
    import yaml

    from ansible_collections.cubestudio.ascend.plugins.module_utils import (
        _mindcluster,
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
    return largest, len(text), parse, plan


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
    rerun()
    floors, reruns, stats, changed = [], [], {}, 0
    for i in range(RUNS):
        floors.append(floor())
        elapsed, stats = rerun()
        reruns.append(elapsed)
        changed += stats.get("changed", 0)
        sys.stderr.write(
            "[bench] run %d/%d: floor %.1f s, re-run %.1f s\n"
            % (i + 1, RUNS, floors[-1], elapsed)
        )
    largest, size, parse, plan = in_process()
    f_med, r_med = statistics.median(floors), statistics.median(reruns)
    machine = "%s, %d CPUs, Python %s, %s" % (
        platform.machine(),
        os.cpu_count(),
        platform.python_version(),
        platform.release(),
    )
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (tools/bench.py) on %s; machine: %s. Medians of %d paired runs"
        % (datetime.date.today().isoformat(), machine, RUNS),
        "(floor and re-run alternately, after one warm-up of each), on the converged demo node",
        "(8 x 910B3, every layer including the Kubernetes one). Measured, not projected.",
        os.environ.get("BENCH_NOTE", ""),
        "",
        "| measure | median | all runs (s) |",
        "|---------|--------|--------------|",
        "| floor: `ansible -m ping` + `ansible -m cubestudio.ascend.ascend_facts` | %.1f s | %s |"
        % (f_med, ", ".join("%.1f" % x for x in floors)),
        "| no-op re-run: `ansible-playbook site.yml` | %.1f s | %s |"
        % (r_med, ", ".join("%.1f" % x for x in reruns)),
        "| re-run / floor | **%.1f x** | |" % (r_med / f_med),
        "",
        "Re-run: %d tasks ok, %d skipped; changed tasks over the %d measured re-runs: %d (an"
        % (stats.get("ok", 0), stats.get("skipped", 0), RUNS, changed),
        "installer copied to the node would be one, so 0 means 0 bytes of installers).",
        "",
        "| in-process cost | per call |",
        "|-----------------|----------|",
        "| `npu_smi_facts` parser on the largest fixture (`%s`, %d bytes) | %.2f ms |"
        % (largest, size, parse * 1000),
        "| device plugin plan of an 8-card 910B node | %.3f ms |" % (plan * 1000),
        "",
        "Not measured yet: 4 and 8 nodes, bytes sent on the re-run, a task profile, and the",
        "re-run target of issue 12 (3 x the floor), which needs the node-engine redesign.",
        "",
    ]
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    sys.stdout.write("\n".join(lines))
    with open(os.path.join(DEMO, "bench.json"), "w", encoding="utf-8") as handle:
        json.dump(
            {
                "floor": floors,
                "rerun": reruns,
                "stats": stats,
                "parse_s": parse,
                "plan_s": plan,
            },
            handle,
            indent=2,
        )


if __name__ == "__main__":
    main()
