# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fault and bad-input cases of issue 14 on one simulated node (molecule scenario faults).

Run by verify.yml on the controller:

    python faults.py --inventory <molecule inventory> --node ascend-faults --artifacts <dir>

Each case injects its fault (a simulator knob, a file on the controller, a mount, a second run,
a killed controller or a restarted node), runs ansible-playbook with converge.yml (npu_driver) and
asserts: a non-zero result; the message of the failed task, starting with its troubleshooting
row and naming cause and fix; the node's checksum snapshot (../shared/files/node_snapshot.sh)
equal before and after, or differing only where the case says why; and, once the cause is
fixed, a re-run that converges (rc 0). The table of results is printed and written to --report.
Any failed expectation stops the suite with the case, what was expected and the output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE.parent / "shared" / "files" / "node_snapshot.sh"
SIM = "/opt/ascend-sim/bin/ascend-sim"
LOCK = "/var/lib/cubestudio-ascend/run.lock"
DRIVER = "Ascend-hdk-910b-npu-driver_25.5.0_linux-{arch}.run"
FIRMWARE = "Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run"


class CaseFailed(AssertionError):
    pass


class Result:
    """What one ansible-playbook run gave: rc, the stats of the node, the failures."""

    def __init__(self, rc: int, stdout: str, stderr: str, node: str, seconds: float):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.failures: list = []
        self.unreachable: list = []
        self.stats: dict = {}
        try:
            data = json.loads(stdout[stdout.index("{") :])
        except ValueError:
            data = {}
        self.stats = data.get("stats", {}).get(node, {})
        for play in data.get("plays", []):
            for task in play.get("tasks", []):
                result = task.get("hosts", {}).get(node)
                if not result:
                    continue
                if result.get("unreachable"):
                    self.unreachable.append(result.get("msg", ""))
                elif result.get("failed") and not result.get("ignore_errors"):
                    self.failures.append(str(result.get("msg", "")))

    @property
    def message(self) -> str:
        """The message the run ended with: the last failure (a rescue ends in its own fail)."""
        if self.failures:
            return " ".join(self.failures[-1].split())
        if self.unreachable:
            return " ".join(self.unreachable[-1].split())
        return ""

    def tail(self) -> str:
        return f"rc={self.rc} stats={self.stats} message={self.message!r}\nstderr: {self.stderr[-1500:]}"


class Suite:
    def __init__(self, args):
        self.inventory = args.inventory
        self.node = args.node
        self.artifacts = Path(args.artifacts)
        self.report = args.report
        self.rows: list = []
        self.tmp = Path(tempfile.mkdtemp(prefix="faults-"))
        self.arch = self.sh("uname -m").strip()
        self.driver = DRIVER.format(arch=self.arch)
        self.bin = Path(sys.executable).parent

    # -- the node ---------------------------------------------------------------------------

    def sh(self, script: str, check: bool = True, timeout: int = 120) -> str:
        proc = subprocess.run(
            ["docker", "exec", self.node, "sh", "-c", script],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise CaseFailed(
                f"on the node: {script!r} exited {proc.returncode}: {proc.stderr or proc.stdout}"
            )
        return proc.stdout

    def sim(self, *args: str) -> str:
        return self.sh(" ".join([SIM, *args]))

    def snapshot(self) -> set:
        proc = subprocess.run(
            ["docker", "exec", "-i", self.node, "sh", "-s"],
            input=SNAPSHOT.read_text(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        lines = set(proc.stdout.splitlines())
        if not lines:
            raise CaseFailed("the snapshot of the node is empty")
        return lines

    def wait_node(self, seconds: int = 120) -> None:
        """Until systemd in the node has booted (after a restart of the container)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            state = subprocess.run(
                ["docker", "exec", self.node, "systemctl", "is-system-running"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            if state in ("running", "degraded"):
                return
            time.sleep(2)
        raise CaseFailed(f"the node did not boot within {seconds} s")

    def wait_for(self, script: str, what: str, seconds: int = 120, proc=None) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if (
                subprocess.run(
                    ["docker", "exec", self.node, "sh", "-c", script],
                    capture_output=True,
                    check=False,
                ).returncode
                == 0
            ):
                return
            if proc is not None and proc.poll() is not None:
                raise CaseFailed(f"the run ended (rc {proc.returncode}) before {what}")
            time.sleep(0.5)
        raise CaseFailed(f"timed out waiting for {what}")

    # -- ansible-playbook -------------------------------------------------------------------

    def argv(self, extra: dict | None, book: str) -> list:
        argv = [
            str(self.bin / "ansible-playbook"),
            "-i",
            self.inventory,
            str(HERE / book),
        ]
        if extra:
            path = self.tmp / f"vars-{time.monotonic_ns()}.json"
            path.write_text(json.dumps(extra))
            argv += ["-e", f"@{path}"]
        return argv

    def env(self) -> dict:
        return dict(
            os.environ,
            ANSIBLE_STDOUT_CALLBACK="ansible.posix.json",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_RETRY_FILES_ENABLED="0",
            # As the collection's ansible.cfg: one exec per task, not three.
            ANSIBLE_PIPELINING="True",
        )

    def play(
        self, extra: dict | None = None, book: str = "converge.yml", timeout: int = 900
    ) -> Result:
        started = time.monotonic()
        proc = subprocess.run(
            self.argv(extra, book),
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=timeout,
            check=False,
        )
        return Result(
            proc.returncode,
            proc.stdout,
            proc.stderr,
            self.node,
            time.monotonic() - started,
        )

    def background(self, extra: dict | None = None, book: str = "converge.yml"):
        log = open(self.tmp / f"background-{time.monotonic_ns()}.log", "w")  # noqa: SIM115
        return subprocess.Popen(
            self.argv(extra, book),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.env(),
            start_new_session=True,
        )

    @staticmethod
    def kill(proc) -> None:
        """SIGKILL the run and everything it started on the controller (docker exec too)."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    # -- assertions -------------------------------------------------------------------------

    def refused(self, case: str, result: Result, row: str, expect: list) -> str:
        if result.rc == 0:
            raise CaseFailed(
                f"{case}: the run passed (rc 0), a refusal was expected\n{result.tail()}"
            )
        msg = result.message
        if row and not msg.startswith(f"[{row}] "):
            raise CaseFailed(
                f"{case}: the message does not start with [{row}]: {msg!r}\n{result.tail()}"
            )
        missing = [text for text in expect if " ".join(text.split()) not in msg]
        if missing:
            raise CaseFailed(
                f"{case}: missing {missing} in the message {msg!r}\n{result.tail()}"
            )
        return msg

    @staticmethod
    def unchanged(case: str, before: set, after: set, allowed=()) -> str:
        """The node as before, except lines under the allowed prefixes; the difference as text."""

        def outside(lines):
            return sorted(
                line
                for line in lines
                if not any(f" {prefix}" in line for prefix in allowed)
            )

        new, lost = outside(after - before), outside(before - after)
        if new or lost:
            raise CaseFailed(
                f"{case}: the node changed: new {new[:12]} lost {lost[:12]}"
            )
        changed = sorted(
            {line.split(" ", 4)[4].split(" -> ")[0] for line in after ^ before}
        )
        return (
            "yes"
            if not changed
            else "only " + ", ".join(changed[:6]) + (" ..." if len(changed) > 6 else "")
        )

    def converges(
        self, case: str, extra: dict | None = None, twice: bool = False
    ) -> str:
        """The re-run once the cause is fixed passes; with twice, a second run changes nothing."""
        result = self.play(extra)
        if result.rc != 0:
            raise CaseFailed(
                f"{case}: the re-run after the fix failed\n{result.tail()}"
            )
        if not twice:
            return f"yes ({round(result.seconds)} s, changed={result.stats.get('changed')})"
        again = self.play(extra)
        if again.rc != 0 or again.stats.get("changed", -1) != 0:
            raise CaseFailed(
                f"{case}: the second re-run is not a no-op (changed {again.stats.get('changed')})\n{again.tail()}"
            )
        return f"yes ({round(result.seconds)} s, then changed=0)"

    def row(self, case, injected, msg, row, node, rerun) -> None:
        self.rows.append((case, injected, msg, row, node, rerun))
        print(
            f"PASS {case}: {row} | node unchanged: {node} | re-run: {rerun}", flush=True
        )

    # -- the cases on the fresh node --------------------------------------------------------

    def damaged_packages(self) -> None:
        """A missing firmware and a truncated driver package; then a sha256 of the damaged file."""
        before = self.snapshot()
        broken = self.tmp / "damaged"
        broken.mkdir()
        for item in self.artifacts.iterdir():
            if item.is_file() and item.name not in (self.driver, FIRMWARE):
                os.link(item, broken / item.name)
        data = (self.artifacts / self.driver).read_bytes()
        (broken / self.driver).write_bytes(data[: len(data) // 2])
        published = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in self.artifacts.iterdir()
            if p.suffix == ".run"
        }
        # a) the published sha256s: both refused on the controller before anything is copied.
        case = "missing package + truncated package"
        local = {"ascend_artifact_local_dir": str(broken)}
        result = self.play(dict(local, ascend_artifact_checksums=published))
        expect = [
            f"{broken / self.driver} has sha256",
            f"but {published[self.driver]} is expected",
            f"{broken / FIRMWARE} does not exist on the controller",
            "Nothing was copied or changed",
        ]
        msg = self.refused(case, result, "T2", expect)
        node = self.unchanged(case, before, self.snapshot())
        how = "firmware package absent, driver package cut to half its size"
        self.row(case, how, msg, "T2", node, "see the last fresh-node case")
        # b) a sha256 taken of the damaged file (a checksum list made after a bad download):
        # the package's own makeself check refuses it, before its installer runs.
        case = "truncated package (sha256 of the damaged file)"
        os.link(self.artifacts / FIRMWARE, broken / FIRMWARE)
        damaged = hashlib.sha256((broken / self.driver).read_bytes()).hexdigest()
        bad = dict(published, **{self.driver: damaged})
        result = self.play(dict(local, ascend_artifact_checksums=bad))
        msg = self.refused(case, result, "T2", ["Driver 25.5.0 was not installed"])
        # The run user and the copied (damaged) package: what the run did before the check.
        allowed = (
            "/etc/passwd",
            "/etc/group",
            "/etc/shadow",
            "/etc/gshadow",
            "/home/HwHiAiUser",
            "/var/cache/ascend/",
        )
        node = self.unchanged(case, before, self.snapshot(), allowed=allowed)
        how = "the same, with the sha256 of the cut file"
        self.row(case, how, msg, "T2", node, "see the last fresh-node case")

    def too_little_disk(self) -> None:
        case = "too little disk"
        before = self.snapshot()
        self.sh(
            "mkdir -p /var/cache/ascend/packages && mount -t tmpfs -o size=64k faults-small /var/cache/ascend/packages"
        )
        try:
            result = self.play()
        finally:
            self.sh("umount /var/cache/ascend/packages")
        msg = self.refused(
            case,
            result,
            "T32",
            [
                "Too little disk space on ascend-faults: the file system /var/cache/ascend/packages needs",
                "but its free space is",
                "Nothing was copied or changed",
            ],
        )
        node = self.unchanged(case, before, self.snapshot())
        self.row(
            case,
            "a 64 KiB tmpfs mounted on the package cache",
            msg,
            "T32",
            node,
            "see the last fresh-node case",
        )

    def installer_fails_mid_way(self) -> None:
        case = "installer failure mid-way"
        self.sim("fault", "set", "partial-driver")
        try:
            result = self.play()
        finally:
            self.sim("fault", "clear", "partial-driver")
        msg = self.refused(
            case,
            result,
            "",
            ["Driver 25.5.0 was not installed", "Driver package install failed"],
        )
        row = msg.split("]", 1)[0] + "]"
        if row not in ("[T5]", "[T9]"):
            raise CaseFailed(f"{case}: row {row}, expected [T5] or [T9]: {msg}")
        self.row(
            case,
            "fault partial-driver: the installer stops after version.info, exit 1",
            msg,
            row.strip("[]"),
            "no: the vendor installer left version.info (next case)",
            "after the cleanup of the next case",
        )
        self.partial_driver("partial driver install (after the failure)")

    def partial_driver(self, case: str) -> None:
        """The node holds a half-installed driver: refused, the fix the message gives, re-run."""
        before = self.snapshot()
        result = self.play()
        msg = self.refused(
            case, result, "T5", ["is installed partially", "Nothing was changed"]
        )
        node = self.unchanged(case, before, self.snapshot())
        # The fix as the message says it.
        if "/script/uninstall.sh (reboot if it asks)" in msg:
            self.sh("/usr/local/Ascend/driver/script/uninstall.sh")
            fix = "uninstall.sh as the message says"
        elif "remove the folder /usr/local/Ascend/driver" in msg:
            self.sh("rm -rf /usr/local/Ascend/driver")
            fix = "rm -rf /usr/local/Ascend/driver as the message says"
        else:
            raise CaseFailed(f"{case}: no fix in the message: {msg}")
        self.row(case, "the state the previous case left", msg, "T5", node, fix)

    def dropped_connection(self) -> None:
        case = "connection dropped mid-run"
        orphan = "pgrep -f 'npu-drive[r]_25.5.0' >/dev/null"
        self.sim("fault", "set", "slow-install", "--seconds", "120")
        try:
            proc = self.background()
            self.wait_for(
                "test -f /usr/local/Ascend/driver/version.info",
                "the driver install to get under way",
                proc=proc,
            )
            self.kill(proc)
        finally:
            self.sim("fault", "clear", "slow-install")
        # The installer on the node goes on without its controller; so does the run's lock.
        held = json.loads(self.sh(f"cat {LOCK}"))
        self.row(
            case,
            "ansible-playbook SIGKILLed (with its docker exec clients) during the driver "
            "installer (slow-install 120 s)",
            f"(the run died; its lock stayed: {held['what']}, pid {held['pid']})",
            "-",
            "the installer goes on on the node (next case)",
            "after the next case",
        )
        # A re-run at once: the lock of the dead run is taken over, the installer is seen.
        case = "re-run while the orphaned installer still runs"
        before = self.snapshot()
        result = self.play()
        if not self.sh(f"{orphan} && echo running || echo ended").strip() == "running":
            raise CaseFailed(f"{case}: the installer ended before the check ran")
        expect = [
            "A Huawei installer is running on ascend-faults",
            self.driver,
            "Wait until it ends",
            "Nothing was changed",
        ]
        msg = self.refused(case, result, "T33", expect)
        node = self.unchanged(case, before, self.snapshot())
        self.wait_for(f"! {orphan}", "the orphaned installer to end", seconds=240)
        rerun = self.converges(case)
        if self.sh(f"test -e {LOCK} && echo held || echo free").strip() != "free":
            raise CaseFailed(f"{case}: the lock is still there after the re-run")
        self.row(
            case,
            "the state the previous case left, at once",
            msg,
            "T33",
            node,
            "yes, once the installer ended: "
            + rerun
            + "; the dead run's lock taken over",
        )

    def reboot_mid_install(self) -> None:
        case = "node rebooted mid-install"
        self.sh(
            "/usr/local/Ascend/driver/script/uninstall.sh >/dev/null; /usr/local/Ascend/firmware/script/uninstall.sh >/dev/null; true"
        )
        self.sim("fault", "set", "slow-install", "--seconds", "60")
        proc = self.background()
        try:
            self.wait_for(
                "test -f /usr/local/Ascend/driver/version.info",
                "the driver install to get under way",
                proc=proc,
            )
            subprocess.run(
                ["docker", "restart", "-t", "0", self.node],
                check=True,
                capture_output=True,
            )
            proc.wait(timeout=300)
        finally:
            if proc.poll() is None:
                self.kill(proc)
        self.wait_node()
        self.sim("fault", "clear", "slow-install")
        if proc.returncode == 0:
            raise CaseFailed(f"{case}: the interrupted run passed")
        self.row(
            case,
            "docker restart of the node during the driver installer",
            f"(the run failed, rc {proc.returncode})",
            "-",
            "no: half-installed driver (next case)",
            "after the cleanup of the next case",
        )
        self.partial_driver("partial driver install (after the reboot)")

    # -- the cases on the converged node ----------------------------------------------------

    def second_run_holds_the_lock(self) -> None:
        case = "two runs at once (lock)"
        holder = self.background(book="hold_lock.yml")
        try:
            self.wait_for(
                f"test -s {LOCK}", "the other run to take the lock", proc=holder
            )
            lock = self.sh(f"cat {LOCK}")
            before = self.snapshot()
            result = self.play()
            msg = self.refused(
                case,
                result,
                "T31",
                [
                    f"Another run holds the lock {LOCK} on ascend-faults: the run of an operator's site.yml by",
                    f"(ansible-playbook pid {json.loads(lock)['pid']})",
                    "Nothing was changed",
                ],
            )
            node = self.unchanged(case, before, self.snapshot())
            if self.sh(f"cat {LOCK}") != lock:
                raise CaseFailed(
                    f"{case}: the refused run touched the other run's lock"
                )
        finally:
            self.kill(holder)
        # The holder was killed: its lock stays, the next run from this controller takes it over.
        rerun = self.converges(case)
        self.row(
            case,
            "hold_lock.yml holds the lock (ascend_run_lock, then a pause); then it is killed",
            msg,
            "T31",
            node,
            rerun + ", the dead run's lock taken over",
        )

    def npu_smi(self, knob: str, case: str, expect: list) -> None:
        before = self.snapshot()
        self.sim("fault", "set", knob)
        try:
            result = self.play({"npu_driver_npu_smi_timeout": 5})
        finally:
            self.sim("fault", "clear", knob)
        msg = self.refused(case, result, "T11", expect)
        if result.seconds > 240:
            raise CaseFailed(f"{case}: took {result.seconds:.0f} s")
        node = self.unchanged(case, before, self.snapshot())
        self.row(
            case,
            f"fault {knob}, npu_driver_npu_smi_timeout=5",
            msg,
            "T11",
            node,
            "see the last case",
        )

    def invalid_variables(self) -> None:
        for case, extra, expect in (
            (
                "invalid variable (choice)",
                {"npu_driver_reboot": "sometimes"},
                ["npu_driver_reboot", "must be one of", "sometimes"],
            ),
            (
                "invalid variable (type)",
                {"npu_driver_install_timeout": "soon"},
                ["npu_driver_install_timeout", "soon", "int"],
            ),
        ):
            before = self.snapshot()
            result = self.play(extra)
            msg = self.refused(
                case, result, "", ["Validation of arguments failed", *expect]
            )
            if result.stats.get("changed", 0) != 0 or result.stats.get("ok", 0) > 1:
                raise CaseFailed(
                    f"{case}: tasks ran before the validation: {result.stats}"
                )
            node = self.unchanged(case, before, self.snapshot())
            self.row(
                case,
                f"-e {json.dumps(extra)}",
                msg,
                "argument_specs",
                node,
                "see the last case",
            )

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> None:
        if (
            self.sh("test -e /usr/local/Ascend/driver && echo yes || echo no").strip()
            != "no"
        ):
            raise CaseFailed(
                "the node is not fresh: run the suite on a node after prepare only"
            )
        started = time.monotonic()
        self.damaged_packages()
        self.too_little_disk()
        self.installer_fails_mid_way()
        self.dropped_connection()
        self.reboot_mid_install()
        self.row(
            "all fresh-node cases, fixed",
            "-",
            "-",
            "-",
            "-",
            self.converges("fresh-node fix"),
        )
        self.second_run_holds_the_lock()
        self.npu_smi(
            "npu-smi-hang",
            "npu-smi hangs (time-out)",
            ["did not answer within 5 s and was stopped (timeout)"],
        )
        self.npu_smi(
            "npu-smi-garbage",
            "npu-smi prints garbage",
            ["cannot read the output of", "npu-smi"],
        )
        self.invalid_variables()
        fixed = self.converges("converged-node fix", twice=True)
        self.row("all converged-node cases, fixed", "-", "-", "-", "-", fixed)
        print(
            f"all {len(self.rows)} cases passed in {time.monotonic() - started:.0f} s"
        )

    def table(self) -> str:
        lines = [
            "| case | how injected | message seen | row | node unchanged? | re-run converged? |",
            "|------|--------------|--------------|-----|-----------------|-------------------|",
        ]
        for case, injected, msg, row, node, rerun in self.rows:
            short = msg if len(msg) <= 220 else msg[:217] + "..."
            cells = [case, injected, short.replace("|", "\\|"), row, node, rerun]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--report")
    args = parser.parse_args()
    suite = Suite(args)
    code = 0
    try:
        suite.run()
    except (CaseFailed, subprocess.SubprocessError) as error:
        print(f"FAILED: {error}", flush=True)
        code = 1
    table = suite.table()
    print(table)
    if args.report:
        Path(args.report).write_text(table)
    shutil.rmtree(suite.tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
