# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers of the simulator tests: a simulated root, the built packages, runners."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ascend_sim import catalog, hardware  # noqa: E402
from ascend_sim.installers import driver  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "unit", "plugins", "module_utils", "fixtures")
CLI = os.path.join(HERE, "bin", "ascend-sim")


def fixture_path(*parts):
    return os.path.join(FIXTURES, *parts)


def read_fixture(*parts):
    with open(fixture_path(*parts), encoding="utf-8") as handle:
        return handle.read()


class SimRoot:
    """A simulated machine below a temporary directory ($ASCEND_SIM_ROOT)."""

    def __init__(self, path, monkeypatch, packages):
        self.path = str(path)
        self.packages = packages
        self.env = dict(os.environ)
        self.env["ASCEND_SIM_ROOT"] = self.path
        # python3 of the scripts = the interpreter of the tests (a pyenv shim costs 0.1 s a call)
        self.env["PATH"] = (
            os.path.dirname(sys.executable) + os.pathsep + self.env["PATH"]
        )
        self.env["ASCEND_SIM_CGROUP_PATH"] = self.path  # not a cgroup fs: the v1 branch
        self.env["HOME"] = "/root"
        self.env.pop("ASCEND_SIM_CGROUP_FSTYPE", None)
        self.env.pop("SETUP_NOCHECK", None)
        monkeypatch.setenv("ASCEND_SIM_ROOT", self.path)
        for directory in ("etc", "usr/sbin", "usr/bin", "var/log", "tmp"):
            os.makedirs(self.p(directory), exist_ok=True)
        self.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")
        self.write("/etc/group", "root:x:0:\n")
        self.write("/usr/sbin/ifconfig", "#!/bin/sh\nexit 0\n", 0o755)  # net-tools
        # The other tools of the driver's check_tools.conf (lspci comes with hw-init).
        for line in driver.REQUIRED_TOOLS:
            tool = line.split(",")[0]
            if tool not in ("lspci", "ifconfig"):
                self.write("/usr/bin/" + tool, "#!/bin/sh\nexit 0\n", 0o755)

    def p(self, path):
        return os.path.join(self.path, path.lstrip("/"))

    def write(self, path, text, mode=0o644):
        full = self.p(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(full, mode)

    def read(self, path):
        with open(self.p(path), encoding="utf-8") as handle:
            return handle.read()

    def exists(self, path):
        return os.path.lexists(self.p(path))

    def add_hwhiaiuser(self):
        with open(self.p("/etc/passwd"), "a", encoding="utf-8") as handle:
            handle.write("HwHiAiUser:x:1000:1000::/home/HwHiAiUser:/bin/bash\n")
        with open(self.p("/etc/group"), "a", encoding="utf-8") as handle:
            handle.write("HwHiAiUser:x:1000:\n")

    def hw_init(self, *args):
        result = self.cli("hw-init", *args)
        assert result.returncode == 0, result.stderr
        return hardware.load_state(self.path)

    def state(self):
        return hardware.load_state(self.path)

    def cli(self, *args, **kw):
        return subprocess.run(
            [CLI, *args],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
            **kw,
        )

    def run(self, package, *args, stdin="", env=None, user=None, cwd=None):
        """Run a simulated .run package like `bash <file> <args>`."""
        run_env = dict(self.env)
        run_env.update(env or {})
        kwargs = {}
        if user is not None:
            kwargs["user"] = user
        return subprocess.run(
            ["bash", self.packages.path(package), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=run_env,
            check=False,
            cwd=cwd or self.path,
            **kwargs,
        )

    def npu_smi(self, *args, env=None):
        run_env = dict(self.env)
        run_env.update(env or {})
        return subprocess.run(
            [self.p("/usr/local/sbin/npu-smi"), *args],
            capture_output=True,
            text=True,
            env=run_env,
            check=False,
        )

    def tree(self, path):
        """{relative path: (mode, content or link target)} below ``path``."""
        out = {}
        base = self.p(path)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(
                filenames
                + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
            ):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, base)
                if os.path.islink(full):
                    out[rel] = ("link", os.readlink(full))
                else:
                    with open(full, "rb") as handle:
                        out[rel] = (oct(os.stat(full).st_mode), handle.read())
        return out


class Packages:
    def __init__(self, directory, entries):
        self.dir = directory
        self.entries = entries

    def path(self, name):
        full = os.path.join(self.dir, name)
        assert os.path.isfile(full), "not built: %s" % name
        return full

    def copy(self, name, dest_dir):
        dest = os.path.join(dest_dir, name)
        shutil.copy2(self.path(name), dest)
        return dest


def driver_pkg(version="24.1.0", chip="910b", arch="x86_64"):
    return catalog.driver_file(chip, version, arch)


def firmware_pkg(version="7.5.0.2.220", chip="910b"):
    return catalog.firmware_file(chip, version)


def runtime_pkg(version, arch="x86_64"):
    return catalog.docker_runtime_file(version, arch)


def cann_pkg(component, version, arch="x86_64"):
    return catalog.cann_file(component, version, arch)
