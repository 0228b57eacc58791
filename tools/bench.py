# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: what a converge and a no-op re-run of site.yml cost, measured in one run.

On the converged demo node (`make demo` first; this script runs it when the node is missing):

  floor    `ansible -m ping` plus `ansible -m cubestudio.ascend.ascend_facts`: the least any run
           that looks at the node must pay (one connection, one module with its facts)
  node     `ansible-playbook site.yml -e ascend_kubernetes=false`: the no-op re-run of the node
           layer (preflight, driver, CANN, runtime, summary) - issue 12's target, 3 x the floor
  full     `ansible-playbook site.yml`: every layer, the Kubernetes one too (rollout wait, smoke pod)

The three are run in turn (paired), RUNS times each; the medians, the ratios to the floor, the
tasks and the changed count of the re-runs, and a profile by role and by task of one more
node-layer re-run.

On a fleet of 1, 4 and 8 simulated nodes (BENCH_FLEET), made bare for every converge the way
the demo makes its node (tests/testbed/bed.py, `create_node(..., with_docker=True)`), with the
demo's packages and settings: the node-layer converge (BENCH_CONVERGE_RUNS times, each on new
nodes), then the floor and the no-op re-run paired, RUNS times; the tasks per host from the
recap, the bytes sent to the nodes (tools/bench_plugins/bench_docker.py: the docker connection
that counts what it puts and pipes), the CPU the machine, the controller and the nodes spent,
and from the per-host slope the projection to 100 and 1,000 nodes with 50 forks, unsliced and
in 10 AWX/AAP job slices (docs/fleet.md).

Everything is written to docs/benchmarks.md with the command, the machine and the date; also
the cost of parsing the largest npu-smi fixture and of the device plugin and node plans
(in-process, timeit). Times are reported, never asserted: a benchmark is not a test.

Environment: BENCH_RUNS (paired re-runs, default 5), BENCH_CONVERGE_RUNS (fleet converges per
node count, default 1), BENCH_FLEET (default 1,4,8), BENCH_FORKS (default the largest fleet),
BENCH_FLEET_PREFIX (container names, default cubestudio-bench), BENCH_KEEP=1 keeps the fleet's
containers, BENCH_NOTE (a sentence for the page), DEMO_NODE (the demo node's container).
"""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import math
import os
import platform
import re
import resource
import shlex
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
CONVERGE_RUNS = int(os.environ.get("BENCH_CONVERGE_RUNS", "1"))
FLEET = tuple(
    int(n) for n in os.environ.get("BENCH_FLEET", "1,4,8").split(",") if n.strip()
)
FORKS = int(os.environ.get("BENCH_FORKS", str(max(FLEET, default=5))))
FLEET_PREFIX = os.environ.get("BENCH_FLEET_PREFIX", "cubestudio-bench")
FLEET_DIR = os.path.join(ROOT, ".build", "bench")
PLUGINS = os.path.join(ROOT, "tools", "bench_plugins")
# The simulated server of the fleet: the demo's.
FLEET_MODEL, FLEET_CARDS = "910B3", 8
# Projections: the forks docs/fleet.md recommends, and AWX/AAP job slicing.
PROJECT_NODES = (100, 1000)
PROJECT_FORKS = 50
PROJECT_SLICES = 10
INSTALLER_SUFFIXES = (".run", ".zip")
OUT = os.path.join(ROOT, "docs", "benchmarks.md")
FIXTURES = os.path.join(
    ROOT, "tests", "unit", "plugins", "module_utils", "fixtures", "npu-smi"
)


def env(extra=None):
    return dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        **(extra or {}),
    )


def log(message):
    sys.stderr.write("[bench] %s\n" % message)
    sys.stderr.flush()


def machine_busy():
    """CPU seconds the whole machine spent not idle (/proc/stat), every process counted."""
    with open("/proc/stat", encoding="ascii") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def container_cpu(container_id):
    """CPU seconds of a container's cgroup (v1 cpuacct or v2 cpu.stat), None if not found."""
    for path, scale in (
        ("/sys/fs/cgroup/cpuacct/docker/%s/cpuacct.usage" % container_id, 1e-9),
        ("/sys/fs/cgroup/cpu,cpuacct/docker/%s/cpuacct.usage" % container_id, 1e-9),
    ):
        try:
            with open(path, encoding="ascii") as handle:
                return int(handle.read()) * scale
        except OSError:
            pass
    for path in (
        "/sys/fs/cgroup/system.slice/docker-%s.scope/cpu.stat" % container_id,
        "/sys/fs/cgroup/docker/%s/cpu.stat" % container_id,
    ):
        try:
            with open(path, encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) * 1e-6
        except OSError:
            pass
    return None


def cpu_snapshot(container_ids=()):
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    nodes = [container_cpu(c) for c in container_ids]
    return {
        "machine": machine_busy(),
        "controller": usage.ru_utime + usage.ru_stime,
        "nodes": None if None in nodes or not nodes else sum(nodes),
    }


def timed(argv, extra_env=None, container_ids=()):
    """Run argv; returns (seconds, output). With container_ids, also the CPU it cost:
    timed.cpu = {machine, controller (the command and its children), nodes}."""
    before = cpu_snapshot(container_ids)
    start = time.monotonic()
    proc = subprocess.run(
        argv,
        cwd=ROOT,
        env=env(extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
    )
    elapsed = time.monotonic() - start
    after = cpu_snapshot(container_ids)
    timed.cpu = {
        k: None if after[k] is None or before[k] is None else after[k] - before[k]
        for k in after
    }
    out = proc.stdout.decode(errors="replace")
    if proc.returncode != 0:
        sys.stderr.write(out[-3000:])
        raise SystemExit("bench: %s failed (exit %d)" % (argv[:3], proc.returncode))
    return elapsed, out


def recap(out):
    """{host: {ok, changed, unreachable, failed, skipped, rescued, ignored}} of a play recap."""
    section = out.rsplit("PLAY RECAP", 1)[-1]
    return {
        host: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counts)}
        for host, counts in re.findall(r"^(\S+)\s*:\s*(ok=.*)$", section, re.M)
    }


def read_bytes(path):
    """Totals of a bench_docker log: sent, received, installer bytes and files, per host."""
    totals = {
        "sent": 0,
        "received": 0,
        "installer": 0,
        "installers": [],
        "puts": 0,
        "hosts": {},
    }
    if not os.path.exists(path):
        return totals
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            totals["sent"] += record["sent"]
            totals["received"] += record["received"]
            host = totals["hosts"].setdefault(record["host"], 0)
            totals["hosts"][record["host"]] = host + record["sent"]
            if record["op"] == "put":
                totals["puts"] += 1
                if record["file"].endswith(INSTALLER_SUFFIXES):
                    totals["installer"] += record["sent"]
                    totals["installers"].append(record["file"])
    return totals


def floor(inventory=INVENTORY, extra_env=None, container_ids=()):
    """Seconds of `ansible -m ping` plus `ansible -m ascend_facts` on every node; with
    container_ids, floor.cpu sums what both cost."""
    bin_dir = os.path.dirname(sys.executable)
    total = 0.0
    cpu = {"machine": 0.0, "controller": 0.0, "nodes": 0.0}
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
                inventory,
                "ascend_nodes",
                "-m",
                module,
            ]
            + args,
            extra_env,
            container_ids,
        )
        total += elapsed
        for key, value in timed.cpu.items():
            cpu[key] = None if value is None or cpu[key] is None else cpu[key] + value
    floor.cpu = cpu
    return total


def rerun(*extra, extra_env=None, inventory=INVENTORY):
    bin_dir = os.path.dirname(sys.executable)
    elapsed, out = timed(
        [
            os.path.join(bin_dir, "ansible-playbook"),
            "-i",
            inventory,
            "site.yml",
            *extra,
        ],
        extra_env,
    )
    recap = re.search(r"^%s\s*:\s*(.*)$" % re.escape(NODE), out, re.M)
    stats = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", recap.group(1))}
    return elapsed, stats


NODE_LAYER = ("-e", "ascend_kubernetes=false")


MITOGEN_INVENTORY = os.path.join(DEMO, "inventory-mitogen.yml")


def mitogen_env():
    """Settings that run a playbook with Mitogen for Ansible's strategy (mitogen_linear), or
    None when the package is not installed (requirements.txt pins it for this comparison).
    Mitogen replaces the connections it knows by name: the demo's inventory, with the node's
    `community.docker.docker` written as `docker` (which Mitogen turns into mitogen_docker),
    goes to MITOGEN_INVENTORY."""
    try:
        import ansible_mitogen
    except ImportError:
        return None
    with open(INVENTORY, encoding="utf-8") as handle:
        text = handle.read()
    with open(MITOGEN_INVENTORY, "w", encoding="utf-8") as handle:
        handle.write(
            text.replace(
                "ansible_connection: community.docker.docker",
                "ansible_connection: docker",
            )
        )
    return {
        "ANSIBLE_STRATEGY_PLUGINS": os.path.join(
            os.path.dirname(ansible_mitogen.__file__), "plugins", "strategy"
        ),
        "ANSIBLE_STRATEGY": "mitogen_linear",
    }


def mitogen_version():
    try:
        from importlib.metadata import version

        return version("mitogen")
    except Exception:  # only a label on the page
        return "?"


def profile():
    """Seconds by role (ansible.posix.profile_roles) and the ten slowest tasks
    (ansible.posix.profile_tasks) of one no-op re-run of every layer on the demo node."""
    bin_dir = os.path.dirname(sys.executable)
    _elapsed, out = timed(
        [
            os.path.join(bin_dir, "ansible-playbook"),
            "-i",
            INVENTORY,
            "site.yml",
        ],
        {
            "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_roles,ansible.posix.profile_tasks",
            "PROFILE_TASKS_TASK_OUTPUT_LIMIT": "10",
        },
    )
    roles = re.findall(
        r"^(\S+) -+ ([0-9.]+)s$",
        out.split("ROLES RECAP", 1)[-1].split("TASKS RECAP")[0],
        re.M,
    )
    tasks = re.findall(
        r"^(.*?) -+ ([0-9.]+)s$",
        out.split("TASKS RECAP", 1)[-1].split("ROLES RECAP")[0],
        re.M,
    )
    return roles, tasks[:10]


SHAPE_DIR = os.path.join(FLEET_DIR, "shape")
SHAPE_RUNS = 3


def shape():
    """Where the re-run of every layer spends its time (tools/bench_shape.py): the run's plays,
    tasks and commands on the node, counted in one more re-run, and the price of each on the
    same node, from calibration playbooks (medians of SHAPE_RUNS after one warm-up)."""
    import bench_shape
    import yaml

    bin_dir = os.path.dirname(sys.executable)
    os.makedirs(SHAPE_DIR, exist_ok=True)
    seconds = {}
    for name, (plays, _count) in bench_shape.playbooks(NODE).items():
        path = os.path.join(SHAPE_DIR, name + ".yml")
        if name == "api_read":
            for task in plays[0]["tasks"][1:]:
                task["cubestudio.ascend.ascend_k8s_read"]["kubeconfig"] = (
                    "{{ ascend_kubeconfig }}"
                )
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("---\n# Written by tools/bench.py (tools/bench_shape.py)\n")
            yaml.safe_dump(plays, handle, sort_keys=False)
        argv = [os.path.join(bin_dir, "ansible-playbook"), "-i", INVENTORY, path]
        timed(argv)
        seconds[name] = statistics.median(timed(argv)[0] for _run in range(SHAPE_RUNS))
    price = bench_shape.prices(seconds)
    # One more re-run of every layer, its commands counted by the connection, its tasks by
    # the json callback.
    with open(INVENTORY, encoding="utf-8") as handle:
        counting = handle.read().replace(
            "ansible_connection: community.docker.docker",
            "ansible_connection: bench_docker",
        )
    inventory = os.path.join(SHAPE_DIR, "inventory.yml")
    with open(inventory, "w", encoding="utf-8") as handle:
        handle.write(counting)
    path, extra = counted("shape-rerun")
    extra["ANSIBLE_STDOUT_CALLBACK"] = "ansible.posix.json"
    elapsed, out = timed(
        [os.path.join(bin_dir, "ansible-playbook"), "-i", inventory, "site.yml"], extra
    )
    commands = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            commands = sum(
                1
                for line in handle
                if json.loads(line)["op"] == "exec" and json.loads(line)["host"] == NODE
            )
    counts = bench_shape.composition(out, NODE, commands)
    table, rest = bench_shape.breakdown(elapsed, counts, price)
    return {
        "seconds": elapsed,
        "counts": counts,
        "price": price,
        "table": table,
        "rest": rest,
        "start_and_plays": bench_shape.start_and_plays(counts, price),
    }


def shape_lines(parts, floor_seconds, rerun_seconds):
    """The page's account of what is left of the re-run of every layer, and why."""
    import bench_shape

    counts, price = parts["counts"], parts["price"]
    lines = [
        "",
        "### What is left of the re-run, and why it does not go lower here",
        "",
        "One more re-run of every layer (%.1f s), taken apart (tools/bench_shape.py): its plays and"
        % parts["seconds"],
        "tasks for the node as the `ansible.posix.json` callback reports them, its commands on the",
        "node as the counting connection logs them (one `docker exec` each: with pipelining, a",
        "module is one command), each priced on the same node by a playbook that does only that",
        "(the start plus %d plays, %d debug tasks, %d skipped tasks, %d `ping` modules with become,"
        % (
            bench_shape.PLAYS - 1,
            bench_shape.TASKS,
            bench_shape.TASKS,
            bench_shape.NODE_RUNS,
        ),
        "%d `ascend_k8s_read`; medians of %d runs)."
        % (bench_shape.API_READS, SHAPE_RUNS),
        "",
        "| part | count | seconds each | seconds | share |",
        "|------|-------|--------------|---------|-------|",
    ]
    for name, count, each, total in parts["table"]:
        lines.append(
            "| %s | %d | %.3f | %.2f | %.0f %% |"
            % (name, count, each, total, 100.0 * total / parts["seconds"])
        )
    lines.append(
        "| the rest: the tasks' own work (modules that read more than `ping`, the actions' plans, templating) | | | %.2f | %.0f %% |"
        % (parts["rest"], 100.0 * parts["rest"] / parts["seconds"])
    )
    fixed = parts["start_and_plays"]
    per_task = price["controller_task"]
    charged = parts["seconds"] - parts["rest"]
    budget = 3 * floor_seconds
    left = max(budget - fixed, 0)
    lines += [
        "",
        "The run has %d plays and %d tasks for the node (%d skipped, %d that ran a command on"
        % (
            counts["play"],
            counts["tasks"],
            counts["skipped_task"],
            counts["node_task"],
        ),
        "it, %d reads of the API, the rest on the controller). What that means for the target"
        % counts["api_read"],
        "of 3 x the floor (%.1f s):" % budget,
        "",
        "* What Ansible charges by count - the start, the plays, the tasks, the commands on the",
        "  node and the reads of the API, each at the price of a playbook that does nothing else -",
        "  adds up to %.1f s, %.1f x the floor. The rest, %.1f s, is what the tasks do beyond a"
        % (charged, charged / floor_seconds, parts["rest"]),
        "  `debug` or a `ping`: the plans and renderings of the actions on the controller, modules",
        "  that read more than `ping` (the node's sysfs and layer records, npu-smi), the size of the",
        "  API's answers; its largest items are the slowest tasks above.",
        "* The start and the plays alone cost %.1f s: `site.yml` is one play per layer (each with"
        % fixed,
        "  its tag, `serial` and hosts, so that a layer runs alone and a fleet rolls in batches),",
        "  plus the record and summary plays. Merging them would trade those away.",
        "* Every task costs about %.0f ms on the controller even when it does nothing (a worker"
        % (1000 * per_task),
        "  process per task and host, its templating and result), %.0f ms when skipped; every"
        % (1000 * price["skipped_task"]),
        "  command on the node %.0f ms (a `docker exec` and a Python start on the node), every read"
        % (1000 * price["node_command"]),
        "  of the API %.0f ms (a Python kubernetes client and its connection). After the start and"
        % (1000 * price["api_read"]),
        "  the plays, 3 x the floor leaves %.1f s: %d tasks that do nothing, or %d commands on the"
        % (left, int(left / per_task), int(left / price["node_command"])),
        "  node, or %d reads of the API. A no-op re-run that still checks 7 layers and prints the"
        % int(left / price["api_read"]),
        "  summary needs, per layer, a read of the node (reused across layers), the comparison on",
        "  the controller, the decision and its line (four tasks besides the include and the end",
        "  of the role), one read of the API per Kubernetes layer, and the summary's read of every",
        "  chip's health (npu-smi), because reporting it is its job; this run is %.1f x the floor."
        % (rerun_seconds / floor_seconds),
    ]
    return lines


# ------------------------------------------------------------------ the fleet


def testbed():
    """tests/testbed/bed.py, which makes the demo's node: the fleet's nodes are made by it too."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "testbed"))
    import bed

    return bed


def fleet_names(count):
    return ["%s-%d" % (FLEET_PREFIX, i) for i in range(1, count + 1)]


def remove_fleet(names):
    """The fleet's containers, and the ports they published in the bed's hccn fabric (the demo
    node shares it: a stale port there is another node's address, net health Fault)."""
    fabric = os.path.join(testbed().Bed().dir, "hccn-fabric")
    for name in names:
        for suffix in (".json", ".conflict.json"):
            path = os.path.join(fabric, name + suffix)
            if os.path.exists(path):
                os.unlink(path)
    existing = [
        n
        for n in names
        if subprocess.run(
            ["docker", "container", "inspect", n], capture_output=True, check=False
        ).returncode
        == 0
    ]
    if existing:
        subprocess.run(
            ["docker", "rm", "-f", "-v", *existing], capture_output=True, check=True
        )


def bare_fleet(count):
    """`count` new bare nodes (the demo's server before its first run), their container ids."""
    bed = testbed()
    names = fleet_names(count)
    remove_fleet(fleet_names(max(FLEET)))
    builder = bed.Bed()
    with concurrent.futures.ThreadPoolExecutor(max_workers=count) as pool:
        for future in [
            pool.submit(
                builder.create_node, n, FLEET_MODEL, FLEET_CARDS, with_docker=True
            )
            for n in names
        ]:
            future.result()
    ids = subprocess.run(
        ["docker", "container", "inspect", "-f", "{{.Id}}", *names],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.split()
    return names, ids


def fleet_inventory(names):
    """The demo's inventory without its Kubernetes layer, for these nodes, through the
    counting connection."""
    import yaml

    with open(INVENTORY, encoding="utf-8") as handle:
        demo = yaml.safe_load(handle)
    group = demo["all"]["children"]["ascend_nodes"]
    settings = {
        k: v
        for k, v in group["vars"].items()
        if not k.startswith(("device_plugin_", "exporter_", "ascend_kube"))
    }
    settings["ascend_kubernetes"] = False
    host = {
        "ansible_connection": "bench_docker",
        "ansible_python_interpreter": "/usr/bin/python3",
    }
    hosts = {n: dict(host) for n in names}
    if settings.get("hccn_subnets"):
        # One fleet plan: each node its own 8 addresses, after the demo node's (offset 10).
        for index, name in enumerate(names):
            hosts[name]["hccn_host_offset"] = 100 + FLEET_CARDS * index
    inventory = {
        "all": {
            "children": {
                "ascend_nodes": {
                    "hosts": hosts,
                    "vars": settings,
                }
            }
        }
    }
    os.makedirs(FLEET_DIR, exist_ok=True)
    path = os.path.join(FLEET_DIR, "inventory-%d.yml" % len(names))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\n# Written by tools/bench.py\n")
        yaml.safe_dump(inventory, handle, sort_keys=False)
    return path


def counted(name):
    """Settings of a fleet command: the counting connection, its log (new), the forks."""
    path = os.path.join(FLEET_DIR, name + ".bytes.jsonl")
    if os.path.exists(path):
        os.unlink(path)
    return path, {
        "ANSIBLE_CONNECTION_PLUGINS": PLUGINS,
        "ANSIBLE_FORKS": str(FORKS),
        "BENCH_BYTES_LOG": path,
    }


def fleet_playbook(inventory, ids, name):
    """The node layer of site.yml on the fleet: seconds, recap per host, bytes, CPU."""
    path, extra = counted(name)
    bin_dir = os.path.dirname(sys.executable)
    elapsed, out = timed(
        [
            os.path.join(bin_dir, "ansible-playbook"),
            "-i",
            inventory,
            "site.yml",
            *NODE_LAYER,
        ],
        extra,
        ids,
    )
    with open(os.path.join(FLEET_DIR, name + ".log"), "w", encoding="utf-8") as handle:
        handle.write(out)
    return {
        "seconds": elapsed,
        "recap": recap(out),
        "bytes": read_bytes(path),
        "cpu": timed.cpu,
    }


def fleet(count):
    """Converge `count` bare nodes CONVERGE_RUNS times, then floor and re-run paired RUNS times."""
    result = {"nodes": count, "converge": [], "rerun": [], "floor": []}
    for i in range(CONVERGE_RUNS):
        log(
            "fleet of %d: new bare nodes (converge %d/%d)"
            % (count, i + 1, CONVERGE_RUNS)
        )
        names, ids = bare_fleet(count)
        inventory = fleet_inventory(names)
        run = fleet_playbook(inventory, ids, "converge-%d-%d" % (count, i + 1))
        result["converge"].append(run)
        log("fleet of %d: converge %.1f s" % (count, run["seconds"]))
    # One warm-up of each, not counted, as on the demo node.
    path, extra = counted("floor-%d-warmup" % count)
    floor(inventory, extra)
    fleet_playbook(inventory, ids, "rerun-%d-warmup" % count)
    for i in range(RUNS):
        path, extra = counted("floor-%d-%d" % (count, i + 1))
        seconds = floor(inventory, extra, ids)
        result["floor"].append(
            {"seconds": seconds, "cpu": floor.cpu, "bytes": read_bytes(path)}
        )
        run = fleet_playbook(inventory, ids, "rerun-%d-%d" % (count, i + 1))
        result["rerun"].append(run)
        log(
            "fleet of %d: run %d/%d: floor %.1f s, re-run %.1f s"
            % (count, i + 1, RUNS, seconds, run["seconds"])
        )
    return result


def fit(points):
    """Least-squares line through (nodes, seconds): (intercept a, slope b) of T(n) = a + b n."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    if len(set(xs)) < 2:
        return ys[0], 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - slope * mx, slope


def project(a, b, nodes, forks, slices=1):
    """Projected seconds of one playbook run on `nodes` hosts: the hosts of a slice run in
    waves of `forks`; a wave of k hosts costs what k hosts cost here, a + b k; slices run at
    the same time on execution nodes of their own."""
    per_slice = math.ceil(nodes / slices)
    return math.ceil(per_slice / forks) * (a + b * min(per_slice, forks))


def in_process():
    sys.path.insert(0, os.path.join(ROOT, ".build", "collections"))
    import yaml

    from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s import (
        _mindcluster,
    )
    from ansible_collections.cubestudio.ascend.plugins.module_utils._node import (
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


def median_of(runs, key="seconds"):
    return statistics.median(r[key] for r in runs)


def secs(values):
    return ", ".join("%.1f" % x for x in values)


def mib(count):
    return (
        "%.1f MiB" % (count / 1048576.0)
        if count >= 1048576
        else "%d KiB" % round(count / 1024.0)
        if count >= 1024
        else "%d B" % count
    )


def per_host(run, key):
    """A recap count over the hosts of a run: one number when every host has it, else min-max."""
    values = sorted({stats.get(key, 0) for stats in run["recap"].values()})
    return str(values[0]) if len(values) == 1 else "%d-%d" % (values[0], values[-1])


def cpu_text(cpu):
    def one(value):
        return "n/a" if value is None else "%.0f" % value

    return one(cpu["machine"]), one(cpu["controller"]), one(cpu["nodes"])


def ansible_setting(name):
    """The value ansible-config reports for a setting, with the bench's environment."""
    out = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-config"), "dump"],
        cwd=ROOT,
        env=env({"ANSIBLE_FORKS": str(FORKS)}),
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    match = re.search(r"^%s\(([^)]*)\) = (.*)$" % re.escape(name), out, re.M)
    return (match.group(2).strip(), match.group(1)) if match else ("?", "?")


def own_cpu(run):
    """CPU-seconds of a run's own processes: the controller's and the nodes'."""
    cpu = run["cpu"]
    if cpu["controller"] is None or cpu["nodes"] is None:
        return None
    return cpu["controller"] + cpu["nodes"]


def counts_text(counts):
    """(1, 4, 8) -> '1, 4 and 8'."""
    words = [str(c) for c in counts]
    return " and ".join(w for w in (", ".join(words[:-1]), words[-1]) if w)


README = os.path.join(ROOT, "README.md")
README_START, README_END = "<!-- bench:start -->", "<!-- bench:end -->"


def quote_in_readme(quote):
    """The README's figures (between its bench markers) from this run, so they never drift
    from docs/benchmarks.md."""
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    if README_START not in text or README_END not in text:
        return
    head, rest = text.split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    with open(README, "w", encoding="utf-8") as handle:
        handle.write(
            head + README_START + "\n" + "\n".join(quote) + "\n" + README_END + tail
        )


def main():
    started = time.monotonic()
    if CONVERGE_RUNS < 1 or RUNS < 1:
        raise SystemExit("bench: BENCH_RUNS and BENCH_CONVERGE_RUNS must be 1 or more")
    # The demo makes or restarts its node (a restarted dockerd leaves it stopped) and the cluster.
    running = subprocess.run(
        ["docker", "container", "inspect", "-f", "{{.State.Running}}", NODE],
        capture_output=True,
        text=True,
        check=False,
    )
    if not os.path.exists(INVENTORY) or running.stdout.strip() != "true":
        subprocess.run([os.path.join(ROOT, "tools", "demo.sh")], cwd=ROOT, check=True)
    # One warm-up of each, not counted (connection plugin, caches, first fork).
    floor()
    rerun(*NODE_LAYER)
    rerun()
    # Mitogen for Ansible (issue 24): the same re-run with its strategy, paired with the others;
    # a failure is the finding (the page says where it failed), not the end of the bench.
    mitogen, mitogen_error, mito_stats = mitogen_env(), None, {}
    if mitogen:
        try:
            rerun(extra_env=mitogen, inventory=MITOGEN_INVENTORY)
        except SystemExit as exc:
            mitogen_error = str(exc)
    floors, nodes, fulls, mitos, stats, full_stats, changed = [], [], [], [], {}, {}, 0
    for i in range(RUNS):
        floors.append(floor())
        elapsed, stats = rerun(*NODE_LAYER)
        nodes.append(elapsed)
        changed += stats.get("changed", 0)
        elapsed, full_stats = rerun()
        fulls.append(elapsed)
        changed += full_stats.get("changed", 0)
        if mitogen and not mitogen_error:
            try:
                elapsed, mito_stats = rerun(
                    extra_env=mitogen, inventory=MITOGEN_INVENTORY
                )
                mitos.append(elapsed)
            except SystemExit as exc:
                mitogen_error = str(exc)
        log(
            "demo node, run %d/%d: floor %.1f s, node layer %.1f s, every layer %.1f s%s"
            % (
                i + 1,
                RUNS,
                floors[-1],
                nodes[-1],
                fulls[-1],
                ", every layer with Mitogen %.1f s" % mitos[-1] if mitos else "",
            )
        )
    roles, tasks = profile()
    parts = shape()
    fleets = []
    try:
        for count in FLEET:
            fleets.append(fleet(count))
    finally:
        if FLEET and os.environ.get("BENCH_KEEP") != "1":
            remove_fleet(fleet_names(max(FLEET)))
    largest, size, parse, plan, node_plan = in_process()
    forks, forks_origin = ansible_setting("DEFAULT_FORKS")
    strategy, strategy_origin = ansible_setting("DEFAULT_STRATEGY")
    f_med = statistics.median(floors)
    n_med, a_med = statistics.median(nodes), statistics.median(fulls)
    machine = "%s, %d CPUs, %.0f GiB, Python %s, %s" % (
        platform.machine(),
        os.cpu_count(),
        os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2.0**30,
        platform.python_version(),
        platform.release(),
    )
    command = " ".join(
        "%s=%s" % (k, shlex.quote(os.environ[k]))
        for k in sorted(os.environ)
        # The settings that change what is measured (not the names or the note).
        if k.startswith("BENCH_")
        and k not in ("BENCH_NOTE", "BENCH_FLEET_PREFIX", "BENCH_KEEP")
    )
    command = "`%smake bench`" % (command + " " if command else "")

    lines = [
        "# Benchmarks",
        "",
        "Written by %s (tools/bench.py) on %s in %.0f minutes; machine: %s."
        % (
            command,
            datetime.date.today().isoformat(),
            (time.monotonic() - started) / 60,
            machine,
        ),
        "Every number on this page comes from that run, except the section *Projected*, which is",
        "computed from them by the formula it gives. Times are wall-clock seconds of the whole",
        "command (`ansible-playbook` or `ansible` started to finished), medians of the runs listed.",
        os.environ.get("BENCH_NOTE", ""),
        "",
        "## One node, every layer (the demo node)",
        "",
        "Medians of %d paired runs (floor, node-layer re-run and full re-run in turn, after one"
        % RUNS,
        "warm-up of each), on the converged demo node (8 x 910B3 joined to the test bed's cluster).",
        "",
        "| measure | median | ratio to the floor | all runs (s) |",
        "|---------|--------|--------------------|--------------|",
        "| floor: `ansible -m ping` + `ansible -m cubestudio.ascend.ascend_facts` | %.1f s | 1 | %s |"
        % (f_med, secs(floors)),
        "| no-op re-run of the node layer: `ansible-playbook site.yml -e ascend_kubernetes=false` | %.1f s | **%.1f x** | %s |"
        % (n_med, n_med / f_med, secs(nodes)),
        "| no-op re-run of every layer: `ansible-playbook site.yml` | %.1f s | **%.1f x** | %s |"
        % (a_med, a_med / f_med, secs(fulls)),
    ]
    if mitos:
        m_med = statistics.median(mitos)
        lines.append(
            "| the same with Mitogen %s (`ANSIBLE_STRATEGY=mitogen_linear`, connection `docker`) | %.1f s | %.1f x | %s |"
            % (mitogen_version(), m_med, m_med / f_med, secs(mitos))
        )
    lines += [
        "",
        "Node-layer re-run: %d tasks ok, %d skipped; every layer: %d ok, %d skipped. Changed tasks"
        % (
            stats.get("ok", 0),
            stats.get("skipped", 0),
            full_stats.get("ok", 0),
            full_stats.get("skipped", 0),
        ),
        "over the %d measured re-runs of each: %d. The node layer skips each layer whose node is as"
        % (RUNS, changed),
        "its last complete run left it (layer records, docs/design.md section 6); the Kubernetes layer",
        "reads the cluster once per play and skips apply, rollout wait and smoke pod when its objects,",
        "image, settings and the node's chips and health are those of its last verified run (the",
        "record on the Node, docs/kubernetes.md).",
    ]
    lines += ["", "Targets of issue 24 on the demo node:", ""]
    lines.append(
        "* no-op re-run of every layer within 3 x the floor: **%s** (%.1f x)."
        % ("met" if a_med / f_med <= 3 else "missed", a_med / f_med)
    )
    lines.append(
        "* no-op re-run of the node layer within 2 x the floor: **%s** (%.1f x)."
        % ("met" if n_med / f_med <= 2 else "missed", n_med / f_med)
    )
    if mitogen_error:
        lines += [
            "",
            "Mitogen for Ansible %s (`ANSIBLE_STRATEGY=mitogen_linear`) did not complete the re-run of"
            % mitogen_version(),
            "every layer: %s. It stays undocumented as an option." % mitogen_error,
        ]
    elif mitos:
        m_med = statistics.median(mitos)
        lines += [
            "",
            "Mitogen for Ansible %s with the pinned ansible-core: the re-run of every layer took %.1f s"
            % (mitogen_version(), m_med),
            "against %.1f s without it (%.2f x), same node, paired runs; %d tasks changed in its last run."
            % (a_med, m_med / a_med, mito_stats.get("changed", 0)),
            "It is measured here only, not offered as an option in docs/fleet.md: issue 24 adopts it",
            "when it is faster and every molecule scenario and the test bed pass with it, and they have",
            "not been run under Mitogen yet.",
        ]
    lines += [
        "",
        "Where one more re-run of every layer spends its time: by role (`ansible.posix.profile_roles`;",
        "a role here is the role's own tasks, a module name the tasks of the plays outside roles)",
        "and the ten slowest tasks (`ansible.posix.profile_tasks`) of the same run:",
        "",
        "| role or module | seconds |",
        "|----------------|---------|",
    ]
    lines += ["| %s | %s |" % (name, s) for name, s in roles]
    lines += ["", "| task | seconds |", "|------|---------|"]
    lines += ["| %s | %s |" % (name.replace("|", "\\|"), s) for name, s in tasks]
    lines += shape_lines(parts, f_med, a_med)

    # ---------------------------------------------------------------- fleet
    one = next((f for f in fleets if f["nodes"] == 1), fleets[0] if fleets else None)
    lines += [
        "",
        "## Fleets of %s simulated nodes, node layer" % counts_text(FLEET),
        "",
        "For every converge the nodes are new bare servers (8 x 910B3, Docker running, no Ascend",
        "software; made by `tests/testbed/bed.py` as the demo's node is), with the demo's packages",
        "and settings (`ascend_kubernetes: false`). Converge: `ansible-playbook site.yml -e",
        "ascend_kubernetes=false`, %d run(s) per node count (BENCH_CONVERGE_RUNS: each converge"
        % CONVERGE_RUNS,
        "takes minutes and needs new nodes, so there are fewer of them than re-runs); then the",
        "floor (`ping` + `ascend_facts` on every node) and the no-op re-run on the same nodes,",
        "paired, %d run(s) each (BENCH_RUNS) after one warm-up. Forks: %s (%s; the bench sets"
        % (RUNS, forks, forks_origin),
        "them, BENCH_FORKS, default the largest fleet: the checkout's `ansible.cfg` sets none,",
        "and Ansible's default of 5 would run 8 hosts in two waves);",
        "strategy: %s (%s); `serial`: `ascend_serial`, default `100%%`, so one batch. Connection:"
        % (strategy, strategy_origin),
        "`community.docker.docker` through `tools/bench_plugins/bench_docker.py`, which counts the",
        "bytes (below).",
        "",
        "| nodes | converge | converge vs 1 node | floor | no-op re-run | re-run / floor |",
        "|-------|----------|--------------------|-------|--------------|----------------|",
    ]
    for f in fleets:
        conv, rer, flo = (
            median_of(f["converge"]),
            median_of(f["rerun"]),
            median_of(f["floor"]),
        )
        lines.append(
            "| %d | %.1f s | %s | %.1f s | %.1f s | **%.1f x** |"
            % (
                f["nodes"],
                conv,
                "**%.2f x**" % (conv / median_of(one["converge"])) if one else "",
                flo,
                rer,
                rer / flo,
            )
        )
    lines += ["", "Targets of issue 14:", ""]
    if one:
        ratio1 = median_of(one["rerun"]) / median_of(one["floor"])
        lines.append(
            "* no-op re-run within 3 x the floor on 1 node: **%s** (%.1f x)."
            % ("met" if ratio1 <= 3 else "missed", ratio1)
        )
    big = max(fleets, key=lambda f: f["nodes"]) if fleets else None
    if one and big and big is not one:
        ratio = median_of(big["converge"]) / median_of(one["converge"])
        conv_big = min(
            big["converge"],
            key=lambda r: abs(r["seconds"] - median_of(big["converge"])),
        )
        conv_one = min(
            one["converge"],
            key=lambda r: abs(r["seconds"] - median_of(one["converge"])),
        )
        cpus = os.cpu_count() or 1
        text = "* %d nodes converging within 1.5 x the time of 1: **%s** (%.2f x)." % (
            big["nodes"],
            "met" if ratio <= 1.5 else "missed",
            ratio,
        )
        if conv_big["cpu"]["machine"] is not None:
            text += (
                " During the %d-node converge the machine's %d CPUs were busy %.0f %% of the"
                " wall time (%.0f CPU-seconds in %.0f s; 1 node: %.0f %%, %.0f CPU-seconds in"
                " %.0f s). That counts every process on the machine: the docker daemon serving"
                " the `docker exec` of each task, and whatever else ran."
                % (
                    big["nodes"],
                    cpus,
                    100 * conv_big["cpu"]["machine"] / (conv_big["seconds"] * cpus),
                    conv_big["cpu"]["machine"],
                    conv_big["seconds"],
                    100 * conv_one["cpu"]["machine"] / (conv_one["seconds"] * cpus),
                    conv_one["cpu"]["machine"],
                    conv_one["seconds"],
                )
            )
        own_big, own_one = own_cpu(conv_big), own_cpu(conv_one)
        if own_big is not None and own_one:
            text += (
                " The run's own processes, the controller (`ansible-playbook`, its forks and"
                " their `docker exec` clients) and the nodes (installers, modules, engines),"
                " took %.0f CPU-seconds for %d nodes against %.0f for 1 (%.1f x): %d nodes"
                " converging at once on %d CPUs, which the controller shares, cannot take the"
                " time of 1; the run is bound by the CPUs, not by the order of the playbook's"
                " tasks. On real servers each node runs its installers and modules on its own"
                " CPUs, and what stays shared is the controller's part (%.0f CPU-seconds here"
                " for %d nodes, %.0f for 1)."
                % (
                    own_big,
                    big["nodes"],
                    own_one,
                    own_big / own_one,
                    big["nodes"],
                    cpus,
                    conv_big["cpu"]["controller"],
                    big["nodes"],
                    conv_one["cpu"]["controller"],
                )
            )
        lines.append(text)
    lines += ["", "Targets of issue 24 for the fleet (node layer):", ""]
    for f in fleets:
        conv = min(
            f["converge"], key=lambda r: abs(r["seconds"] - median_of(f["converge"]))
        )
        rer = min(f["rerun"], key=lambda r: abs(r["seconds"] - median_of(f["rerun"])))
        if conv["cpu"]["controller"] is None or rer["cpu"]["controller"] is None:
            continue
        c_host = conv["cpu"]["controller"] / f["nodes"]
        r_host = rer["cpu"]["controller"] / f["nodes"]
        lines.append(
            "* %d node%s: controller CPU per host, converge %.1f CPU-s (at most 8: **%s**),"
            " no-op re-run %.2f CPU-s (at most 1: **%s**)."
            % (
                f["nodes"],
                "" if f["nodes"] == 1 else "s",
                c_host,
                "met" if c_host <= 8 else "missed",
                r_host,
                "met" if r_host <= 1 else "missed",
            )
        )
    if one and big and big is not one:
        ratio = median_of(big["converge"]) / median_of(one["converge"])
        lines.append(
            "* %d nodes converge within 2.5 x the time of 1: **%s** (%.2f x)."
            % (big["nodes"], "met" if ratio <= 2.5 else "missed", ratio)
        )
    if fleets:
        worst = max(run["bytes"]["installer"] for f in fleets for run in f["rerun"])
        lines.append(
            "* bytes of installers sent on every re-run: %d B (0: **%s**; images: the node layer"
            " copies none, and the Kubernetes layer copies a tarball only when the engine lacks"
            " the image's digest)." % (worst, "met" if worst == 0 else "missed")
        )
    lines += [
        "",
        "Tasks per host from the play recap (one number when every host had the same, else the",
        "range over the hosts):",
        "",
        "| nodes | converge: ok / changed / skipped | re-run: ok / changed / skipped | changed over all re-runs |",
        "|-------|----------------------------------|--------------------------------|--------------------------|",
    ]
    for f in fleets:
        c, r = f["converge"][-1], f["rerun"][-1]
        lines.append(
            "| %d | %s / %s / %s | %s / %s / %s | %d |"
            % (
                f["nodes"],
                per_host(c, "ok"),
                per_host(c, "changed"),
                per_host(c, "skipped"),
                per_host(r, "ok"),
                per_host(r, "changed"),
                per_host(r, "skipped"),
                sum(
                    s.get("changed", 0)
                    for run in f["rerun"]
                    for s in run["recap"].values()
                ),
            )
        )
    lines += [
        "",
        "Bytes sent to the nodes, counted by the connection (every file it puts, every command",
        "line and everything piped into a command; installers are the `.run` and `.zip` files it",
        "puts; the rest is Ansible's module payloads and commands). Per run, all nodes together:",
        "",
        "| nodes | converge: sent | of which installers | floor: sent | re-run: sent | of which installers | re-run: received |",
        "|-------|----------------|---------------------|-------------|--------------|---------------------|------------------|",
    ]
    for f in fleets:
        c = f["converge"][-1]["bytes"]
        r = max((run["bytes"] for run in f["rerun"]), key=lambda b: b["installer"])
        lines.append(
            "| %d | %s | %s (%d files) | %s | %s | **%s** | %s |"
            % (
                f["nodes"],
                mib(c["sent"]),
                mib(c["installer"]),
                len(c["installers"]),
                mib(f["floor"][-1]["bytes"]["sent"]),
                mib(r["sent"]),
                "%d B" % r["installer"],
                mib(r["received"]),
            )
        )
    installers = (
        sorted(set(fleets[0]["converge"][-1]["bytes"]["installers"])) if fleets else []
    )
    if installers:
        lines += [
            "",
            "The installers a converge copies to each node: %s. The simulated packages are small;"
            % ", ".join("`%s`" % i for i in installers),
            "Huawei's are hundreds of MB (a driver), which is why the re-run must send none.",
        ]
    lines += [
        "",
        "CPU-seconds spent during each run (machine: every process on it, from /proc/stat;",
        "controller: the command and its children; nodes: the nodes' cgroups):",
        "",
        "| nodes | run | seconds | machine CPU-s | controller CPU-s | nodes CPU-s |",
        "|-------|-----|---------|---------------|------------------|-------------|",
    ]
    for f in fleets:
        for kind in ("converge", "rerun", "floor"):
            for i, run in enumerate(f[kind]):
                lines.append(
                    "| %d | %s %d | %.1f | %s | %s | %s |"
                    % ((f["nodes"], kind, i + 1, run["seconds"]) + cpu_text(run["cpu"]))
                )

    # ---------------------------------------------------------------- projected
    if len(fleets) > 1:
        conv_a, conv_b = fit([(f["nodes"], median_of(f["converge"])) for f in fleets])
        re_a, re_b = fit([(f["nodes"], median_of(f["rerun"])) for f in fleets])
        clamped = [
            "%s (%.2f s per node)" % (name, b)
            for name, b in (("converge", conv_b), ("re-run", re_b))
            if b < 0
        ]
        # A fleet is never cheaper than one node: a slope below 0 is noise of a busy machine.
        if conv_b < 0:
            conv_a, conv_b = min(median_of(f["converge"]) for f in fleets), 0.0
        if re_b < 0:
            re_a, re_b = min(median_of(f["rerun"]) for f in fleets), 0.0
        lines += [
            "",
            "## Projected (computed, not measured): 100 and 1,000 nodes",
            "",
            "From the medians above, a straight line through (nodes, seconds) by least squares,",
            "T(k) = a + b k: converge a = %.1f s, b = %.1f s per node; no-op re-run a = %.1f s,"
            % (conv_a, conv_b, re_a),
            "b = %.2f s per node. One `ansible-playbook` works on at most f hosts at a time (forks);"
            % re_b,
            "with the linear strategy every task waits for all hosts, so N hosts take ceil(N / f)",
            "waves and a wave of k hosts costs what k hosts cost here. Job slicing in AWX/AAP",
            "([fleet.md](fleet.md), section 3) splits the inventory into s slices that run at the",
            "same time on execution nodes of their own:",
            "",
            "    T(N, f, s) = ceil(ceil(N / s) / f) x T(min(ceil(N / s), f))",
            "",
            "with f = %d forks (the range docs/fleet.md gives) and s = 1 or %d slices:"
            % (PROJECT_FORKS, PROJECT_SLICES),
            "",
        ]
        if clamped:
            lines += [
                "The measured slope of the %s was below 0 (noise of a busy machine): the"
                % " and the ".join(clamped),
                "projection uses b = 0 and a = the smallest median, a lower bound.",
                "",
            ]
        lines += [
            "| nodes | converge, %d forks | converge, %d forks, %d slices | re-run, %d forks | re-run, %d forks, %d slices |"
            % (
                (PROJECT_FORKS,) * 2
                + (PROJECT_SLICES, PROJECT_FORKS, PROJECT_FORKS, PROJECT_SLICES)
            ),
            "|-------|----------|----------|----------|----------|",
        ]

        def hm(seconds):
            return (
                "%.1f h" % (seconds / 3600.0)
                if seconds >= 3600
                else "%.0f min" % (seconds / 60.0)
                if seconds >= 120
                else "%.0f s" % seconds
            )

        for n in PROJECT_NODES:
            lines.append(
                "| %s | %s | %s | %s | %s |"
                % (
                    "{:,}".format(n),
                    hm(project(conv_a, conv_b, n, PROJECT_FORKS)),
                    hm(project(conv_a, conv_b, n, PROJECT_FORKS, PROJECT_SLICES)),
                    hm(project(re_a, re_b, n, PROJECT_FORKS)),
                    hm(project(re_a, re_b, n, PROJECT_FORKS, PROJECT_SLICES)),
                )
            )
        lines += [
            "",
            "What the line assumes: the slope b was measured on %d CPUs that the controller and"
            % (os.cpu_count() or 1),
            "every simulated node share, so it holds the nodes' own work too; with real servers",
            "that work runs on each server's CPUs and the projection is pessimistic for it. It is",
            "optimistic for what the simulator cannot show: packages of hundreds of MB over a real",
            "network (the converge copies them once per node; the re-run copies none), an execution",
            "node that cannot drive %d forks at this machine's cost per host, SSH instead of"
            % PROJECT_FORKS,
            "`docker exec`. Measured points beyond %d nodes would replace it."
            % max(f["nodes"] for f in fleets),
        ]

    lines += [
        "",
        "## All fleet runs (s)",
        "",
        "| nodes | converge | floor | no-op re-run |",
        "|-------|----------|-------|--------------|",
    ]
    for f in fleets:
        lines.append(
            "| %d | %s | %s | %s |"
            % (
                f["nodes"],
                secs(r["seconds"] for r in f["converge"]),
                secs(r["seconds"] for r in f["floor"]),
                secs(r["seconds"] for r in f["rerun"]),
            )
        )
    lines += [
        "",
        "## In-process costs",
        "",
        "| in-process cost | per call |",
        "|-----------------|----------|",
        "| `npu_smi_facts` parser on the largest fixture (`%s`, %d bytes) | %.2f ms |"
        % (largest, size, parse * 1000),
        "| device plugin plan of an 8-card 910B node | %.3f ms |" % (plan * 1000),
        "| node plan (`ascend_plan`) of an 8-card 910B node upgrading 24.1.0 to 25.5.0 | %.3f ms |"
        % (node_plan * 1000),
        "",
    ]
    # The duration is known only now.
    total = (time.monotonic() - started) / 60
    lines[2] = re.sub(r"in \d+ minutes", "in %.0f minutes" % total, lines[2])
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    quote_in_readme(
        [
            "Measured by `make bench` on %s (%s; [docs/benchmarks.md](docs/benchmarks.md)):"
            % (datetime.date.today().isoformat(), machine),
            "",
            "- a no-op re-run of `site.yml` with every layer on a converged 8-NPU node: %.1f s,"
            " **%.1f x** the floor (`ping` + `ascend_facts`, %.1f s); the node layer alone %.1f x;"
            % (a_med, a_med / f_med, f_med, n_med / f_med),
            "  of it, Ansible's start and %d plays take %.1f s and each of its %d tasks about %.0f ms"
            " on the controller (the page takes it apart);"
            % (
                parts["counts"]["play"],
                parts["start_and_plays"],
                parts["counts"]["tasks"],
                1000 * parts["price"]["controller_task"],
            ),
        ]
        + (
            [
                "- converging %d bare nodes at once takes %.2f x the time of one; a no-op re-run"
                " sends 0 bytes of installers."
                % (
                    big["nodes"],
                    median_of(big["converge"]) / median_of(one["converge"]),
                )
            ]
            if one and big and big is not one
            else []
        )
    )
    sys.stdout.write("\n".join(lines))
    with open(os.path.join(DEMO, "bench.json"), "w", encoding="utf-8") as handle:
        json.dump(
            {
                "floor": floors,
                "node_layer": nodes,
                "every_layer": fulls,
                "stats": stats,
                "mitogen": mitos,
                "mitogen_error": mitogen_error,
                "profile": roles,
                "tasks": tasks,
                "shape": parts,
                "fleet": fleets,
                "parse_s": parse,
                "plan_s": plan,
                "node_plan_s": node_plan,
            },
            handle,
            indent=2,
        )


if __name__ == "__main__":
    main()
