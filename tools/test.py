# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make test`: every check CI runs, scheduled on a small machine by measured cost.

    python3 tools/test.py              every step (what CI runs)
    python3 tools/test.py --list       the steps, their needs and their expected seconds
    python3 tools/test.py --only lint molecule:doctor
                                       those steps (and the builds they need)
    python3 tools/test.py --record     afterwards, write the measured seconds into
                                       tools/test-durations.txt

The shape of a run:

1. ``make setup`` alone (Debian packages, venv, collection tree): everything needs it.
2. The builds, one after the other in a lane of their own, in the order the steps need them
   (node images, crictl, containerd 2.x, Kubernetes, Huawei's binaries); beside them, the tested
   minimum's venv. Builds are cached by content (tools/gobuild.sh, build_images.py, the image
   tags): a warm run builds nothing.
3. Every other step from one queue, TEST_JOBS at a time (default 4: much of a molecule
   scenario or a test-bed test is waiting on systemd, engines and the API server, not CPU):
   the checks, each molecule scenario as a step of its own, the simulator tests and the test
   bed in three shards, each on a cluster of its own. When a slot frees, the longest ready step
   starts (seconds of the last recorded run, tools/test-durations.txt; a step not listed there
   counts as the longest), so the run does not end waiting on one long step alone. A step
   whose build failed counts as failed ("not run"), never as passed.

Each step's output goes to .build/test-logs/<step>.log; a failed step's last lines are printed
when it ends. The summary gives each step's wall seconds and the CPU seconds of its own
processes (what runs inside the simulated nodes' containers is not a child of the step and is
counted only in the machine's total), and .build/test-logs/summary.tsv and summary.md (the
table of docs/testing.md) keep them. The exit
code is non-zero if any step failed.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, ".build", "test-logs")
DURATIONS = os.path.join(ROOT, "tools", "test-durations.txt")
MAKE = os.environ.get("MAKE", "make")
# `-o setup`: setup ran first, alone; the targets depend on it but need not repeat it.
MK = [MAKE, "--no-print-directory", "-o", "setup"]

# The builds, in the order the steps need them (molecule: images, crictl, containerd 2.x, Huawei's
# Ascend Docker Runtime; the test bed also Kubernetes and Huawei's device plugin and exporter, the
# longest builds, last).
BUILDS = ["images", "crictl", "containerd2", "docker-runtime", "k8s", "mindcluster"]

# The test bed in shards, each on a cluster of its own (BED_NAME, BED_DIR, BED_SUBNET), so that
# they run side by side; every tests/testbed/test_*.py file is in exactly one shard.
TESTBED_SHARDS = {
    "testbed-a": [
        "tests/mindcluster",
        "tests/testbed/test_device_plugin.py",
        "tests/testbed/test_device_plugin_310p.py",
        "tests/testbed/test_device_plugin_role.py",
        "tests/testbed/test_exporter_role.py",
        "tests/testbed/test_hccn.py",
    ],
    "testbed-b": [
        "tests/testbed/test_site.py",
        "tests/testbed/test_uninstall_kubernetes.py",
    ],
    "testbed-c": [
        "tests/testbed/test_doctor.py",
        "tests/testbed/test_upgrade.py",
    ],
}
# Distinct docker networks for the shards (bed.py's default is derived from the checkout).
SHARD_SUBNETS = {
    "testbed-a": "172.30.101.0/24",
    "testbed-b": "172.30.102.0/24",
    "testbed-c": "172.30.103.0/24",
}

# Seconds a free slot waits, at the start, for a longer step whose builds are not done yet.
BUILD_GRACE = int(os.environ.get("TEST_BUILD_GRACE", "120"))

# Extra builds of molecule scenarios beyond the node images (and Huawei's runtime packages for the
# scenarios that ask for them: ascend_sim_huawei_docker_runtime, see huawei_runtime()).
SCENARIO_NEEDS = {
    "ascend_runtime_containerd": ["crictl"],
    "ascend_runtime_containerd2": ["containerd2", "crictl"],
}
# `-o` for each build: built in the lane before the step starts, make need not look again.
BUILT = [arg for build in BUILDS for arg in ("-o", build)]
# Scenarios that `make test` also runs on the tested minimum ansible-core, in the same step (one
# container name, one molecule state: never at once).
MIN_SCENARIOS = ["site"]


class Step:
    def __init__(self, name, argv, needs=(), env=None):
        self.name = name
        self.argv = argv
        self.needs = list(needs)
        self.env = env or {}
        self.state = "pending"  # pending, running, passed, FAILED
        self.why = ""
        self.wall = 0.0
        self.cpu = 0.0

    @property
    def log(self):
        return os.path.join(
            LOGS, self.name.replace(":", "_").replace("@", "_") + ".log"
        )


def scenarios():
    found = sorted(
        os.path.basename(os.path.dirname(p))
        for p in glob.glob(os.path.join(ROOT, "extensions/molecule/*/molecule.yml"))
    )
    return found


def huawei_runtime(scenario):
    """The scenario installs Huawei's real Ascend Docker Runtime (make docker-runtime)."""
    for path in glob.glob(
        os.path.join(ROOT, "extensions/molecule", scenario, "**/*.yml"), recursive=True
    ):
        with open(path, encoding="utf-8") as handle:
            if "ascend_sim_huawei_docker_runtime: true" in handle.read():
                return True
    return False


def testbed_files():
    return sorted(
        os.path.relpath(p, ROOT)
        for p in glob.glob(os.path.join(ROOT, "tests/testbed/test_*.py"))
    )


def check_shards():
    """Every test-bed file in exactly one shard: a new file must be placed, never left out."""
    placed = {}
    for shard, paths in TESTBED_SHARDS.items():
        for path in paths:
            if path in placed:
                return "%s is in two shards (%s, %s)" % (path, placed[path], shard)
            placed[path] = shard
    missing = [f for f in testbed_files() if f not in placed]
    if missing:
        return (
            "test-bed files in no shard of tools/test.py TESTBED_SHARDS: "
            + ", ".join(missing)
        )
    gone = [p for p in placed if not os.path.exists(os.path.join(ROOT, p))]
    if gone:
        return "TESTBED_SHARDS names files that do not exist: " + ", ".join(gone)
    return None


def all_steps():
    steps = []
    for name in [
        "lint",
        "sanity",
        "units",
        "promtool",
        "build-check",
        "galaxy-importer",
        "docs-site",
        "ee",
    ]:
        steps.append(Step(name, MK + [name]))
    for name in ["sanity-min", "units-min"]:
        steps.append(Step(name, MK + ["-o", "setup-min", name], needs=["setup-min"]))
    steps.append(Step("simulator", MK + BUILT + ["simulator"], needs=["images"]))
    for scenario in scenarios():
        entries = [scenario] + (
            ["%s@min" % scenario] if scenario in MIN_SCENARIOS else []
        )
        needs = ["images"] + SCENARIO_NEEDS.get(scenario, [])
        if huawei_runtime(scenario):
            needs.append("docker-runtime")
        if scenario in MIN_SCENARIOS:
            needs.append("setup-min")
        steps.append(
            Step(
                "molecule:" + scenario,
                MK + BUILT + ["molecule", "SCENARIO=" + " ".join(entries)],
                needs=needs,
                env={"MOLECULE_JOBS": "1"},
            )
        )
    for shard, paths in TESTBED_SHARDS.items():
        steps.append(
            Step(
                shard,
                MK + BUILT + ["testbed"],
                needs=["images", "docker-runtime", "k8s", "mindcluster"],
                env={
                    "TESTBED_TESTS": " ".join(paths),
                    "BED_NAME": "cubestudio-" + shard,
                    "BED_DIR": os.path.join(ROOT, ".build", "cluster-" + shard),
                    "BED_SUBNET": SHARD_SUBNETS[shard],
                },
            )
        )
    return steps


def read_durations():
    durations = {}
    if os.path.exists(DURATIONS):
        with open(DURATIONS) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and not line.startswith("#"):
                    try:
                        durations[parts[0]] = float(parts[1])
                    except ValueError:
                        pass
    return durations


def write_durations(results):
    durations = read_durations()
    for name, wall in results.items():
        durations[name] = wall
    with open(DURATIONS, "w") as f:
        f.write(
            "# Wall seconds of each step of the last recorded `make test` (tools/test.py --record),\n"
            "# for the scheduler to start the longest ready step first. Builds are not listed.\n"
        )
        for name, secs in sorted(durations.items(), key=lambda kv: (-kv[1], kv[0])):
            f.write("%s %d\n" % (name, round(secs)))


def cpu_of(rusage):
    return rusage.ru_utime + rusage.ru_stime


def machine_cpu():
    """CPU seconds the whole machine spent busy so far (from /proc/stat)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    ticks = [int(x) for x in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run(step, lock, out):
    """Run one step to its end: wall time, CPU of its own process tree, its result."""
    env = dict(os.environ, **step.env)
    start = time.time()
    with open(step.log, "w") as log:
        log.write("=== %s: %s\n" % (step.name, " ".join(step.argv)))
        log.flush()
        proc = subprocess.Popen(
            step.argv,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        status, rusage = os.wait4(proc.pid, 0)[1:]
        proc.returncode = os.waitstatus_to_exitcode(status)
    step.wall = time.time() - start
    step.cpu = cpu_of(rusage)
    with lock:
        step.state = "passed" if proc.returncode == 0 else "FAILED"
        out(
            "=== %s: %s (%d s, %d CPU-s)" % (step.name, step.state, step.wall, step.cpu)
        )
        if step.state != "passed":
            with open(step.log, errors="replace") as f:
                tail = f.readlines()[-80:]
            out(
                "--- last %d lines of %s" % (len(tail), os.path.relpath(step.log, ROOT))
            )
            out("".join(tail).rstrip("\n"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--list", action="store_true", help="list the steps and exit")
    parser.add_argument(
        "--only", nargs="+", metavar="STEP", help="run only these steps"
    )
    parser.add_argument(
        "--record", action="store_true", help="write tools/test-durations.txt"
    )
    parser.add_argument(
        "--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "4"))
    )
    args = parser.parse_args(argv)

    problem = check_shards()
    if problem:
        print("tools/test.py: " + problem, file=sys.stderr)
        return 2
    steps = all_steps()
    durations = read_durations()
    if args.list:
        for s in sorted(steps, key=lambda s: -durations.get(s.name, 1e9)):
            print(
                "%-36s %6s s  needs %s"
                % (
                    s.name,
                    int(durations.get(s.name, 0)) or "?",
                    ",".join(s.needs) or "-",
                )
            )
        return 0
    if args.only:
        unknown = [n for n in args.only if n not in {s.name for s in steps}]
        if unknown:
            print(
                "unknown steps: %s (see --list)" % ", ".join(unknown), file=sys.stderr
            )
            return 2
        steps = [s for s in steps if s.name in args.only]

    os.makedirs(LOGS, exist_ok=True)
    for old in glob.glob(os.path.join(LOGS, "*.log")):
        os.remove(old)
    lock = threading.Lock()

    def out(text):
        print(text, flush=True)

    total_start = time.time()
    cpu_start = machine_cpu()
    own_start = os.times()

    setup = Step("setup", [MAKE, "--no-print-directory", "setup"])
    out("=== setup")
    run(setup, lock, out)
    if setup.state != "passed":
        out("setup failed: nothing else can run")
        return 1

    needed = set()
    for s in steps:
        needed.update(s.needs)
    builds = {}  # name -> Step
    # Lane 1: the builds, in order; a failed build fails the builds after it that need it only
    # through the steps (each build is independent: the lane goes on).
    build_order = [b for b in BUILDS if b in needed]
    lanes = []
    if build_order:
        lanes.append([Step(b, MK + [b]) for b in build_order])
    if "setup-min" in needed:
        lanes.append([Step("setup-min", MK + ["setup-min"])])
    for lane in lanes:
        for b in lane:
            builds[b.name] = b

    def run_lane(lane):
        for b in lane:
            b.state = "running"
            run(b, lock, out)

    threads = []
    for lane in lanes:
        out(
            "=== builds beside the steps: %s (logs: .build/test-logs/)"
            % ", ".join(b.name for b in lane)
        )
        t = threading.Thread(target=run_lane, args=(lane,), daemon=True)
        t.start()
        threads.append(t)

    pending = sorted(steps, key=lambda s: -durations.get(s.name, 1e9))
    running = {}
    while pending or running:
        # Steps whose builds failed: failed, not run.
        with lock:
            for s in list(pending):
                failed = [n for n in s.needs if builds[n].state == "FAILED"]
                if failed:
                    s.state = "FAILED"
                    s.why = "not run: %s did not build" % ", ".join(failed)
                    out("=== %s: FAILED (%s)" % (s.name, s.why))
                    pending.remove(s)
        for name, t in list(running.items()):
            if not t.is_alive():
                del running[name]
        while len(running) < args.jobs:
            ready = [
                s for s in pending if all(builds[n].state == "passed" for n in s.needs)
            ]
            if not ready:
                break
            # In the first seconds, a slot waits for a longer step whose builds are still
            # running (warm, they take seconds) rather than go to a shorter one that would hold
            # it for minutes: the test bed's shards, the longest steps, start first.
            if time.time() - total_start < BUILD_GRACE and pending.index(ready[0]) > 0:
                break
            s = ready[0]
            pending.remove(s)
            s.state = "running"
            out(
                "=== %s (expected %s s)"
                % (s.name, int(durations.get(s.name, 0)) or "?")
            )
            t = threading.Thread(target=run, args=(s, lock, out), daemon=True)
            t.start()
            running[s.name] = t
        time.sleep(1)
    for t in threads:
        t.join()

    total = time.time() - total_start
    machine = machine_cpu() - cpu_start
    own_end = os.times()
    own = (own_end.children_user + own_end.children_system) - (
        own_start.children_user + own_start.children_system
    )
    everything = [setup] + [b for lane in lanes for b in lane] + steps
    out("")
    out(
        "make test summary: %d s wall, %d CPU-s of its own processes, %d CPU-s on the machine "
        "(%d cores; builds in a lane beside, %d steps at a time):"
        % (total, own, machine, os.cpu_count() or 0, args.jobs)
    )
    failed = 0
    with open(os.path.join(LOGS, "summary.tsv"), "w") as tsv:
        tsv.write("step\tresult\twall_s\tcpu_s\n")
        for s in everything:
            label = s.state + (" (%s)" % s.why if s.why else "")
            out("  %-36s %-8s %6d s %6d CPU-s" % (s.name, label, s.wall, s.cpu))
            tsv.write("%s\t%s\t%d\t%d\n" % (s.name, s.state, s.wall, s.cpu))
            if s.state != "passed":
                failed = 1
    with open(os.path.join(LOGS, "summary.md"), "w") as md:
        md.write("| step | result | wall s | CPU-s (own) |\n|---|---|---:|---:|\n")
        for s in everything:
            md.write("| %s | %s | %d | %d |\n" % (s.name, s.state, s.wall, s.cpu))
        md.write("| **all** | | **%d** | %d (machine: %d) |\n" % (total, own, machine))
    if args.record:
        write_durations({s.name: s.wall for s in steps if s.state == "passed"})
        out("wrote " + os.path.relpath(DURATIONS, ROOT))
    return failed


if __name__ == "__main__":
    sys.exit(main())
