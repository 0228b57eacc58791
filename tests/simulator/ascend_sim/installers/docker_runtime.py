# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated Ascend Docker Runtime package (Ascend-docker-runtime_<ver>_linux-<arch>.run).

Follows the behaviour of MindCluster's run_main.sh (installer-cli.md section 4,
container-runtime-config.md): root only; --install-scene/--install-path/--injection-mode
alone are refused; repeated options are refused; the engine configuration is edited but no
engine is restarted. From 26.1.0 --install and --upgrade ask for the EULA on stdin (Y/N loop,
N exits 0). Difference: at end of input the real loop never ends; this one stops with an error
and exit status 1.
"""

from __future__ import annotations

import datetime
import os
import re
import subprocess
import sys

from .. import catalog, engine_config, hardware
from . import common

RT = "ascend-docker-runtime"
RT_FIRST = "Ascend-docker-runtime"
CONFIG_DIR = "/etc/ascend-docker-runtime.d"
LOG_DIR = "/var/log/ascend-docker-runtime"
LOG_PATH = LOG_DIR + "/installer.log"
DEFAULT_INSTALL_PATH = "/usr/local/Ascend/Ascend-Docker-Runtime"
DOCKER_CONFIG_DIR = "/etc/docker"
CONTAINERD_CONFIG_DIR = "/etc/containerd"
CRIO_CONFIG_DIR = "/etc/crio"
INSTALL_TYPES = {
    "A500": "a500",
    "A200": "a200",
    "A200ISoC": "a200isoc",
    "A500A2": "a500a2",
    "A200IA2": "a200ia2",
}
# base.list of the real package (github.com/Ascend/ascend-docker-runtime build/scripts/base.list)
# plus the driver's version file, /etc/ascend_install.info and /usr/local/sbin/npu-smi that
# docker run examples mount by hand (the simulated npu-smi reads them inside the container).
BASE_LIST = (
    "/usr/local/Ascend/driver/lib64\n"
    "/usr/local/Ascend/driver/include\n"
    "/usr/local/dcmi\n"
    "/usr/local/bin/npu-smi\n"
    "/usr/local/sbin/npu-smi\n"
    "/usr/local/Ascend/driver/version.info\n"
    "/etc/ascend_install.info\n"
)
AGREEMENT = """\
SIMULATED SOFTWARE LICENSE AGREEMENT (ascend-sim)
This package is a test double of the Ascend Docker Runtime written for the cubestudio.ascend
test suite. It contains no Huawei software. The real package shows Huawei's agreement here.
"""
HELPHEADER_MODERN = """\
  --install                     Install into this system
  --install-path                Specify the installation path
  --uninstall                   Uninstall the installed ascend-docker-runtime tool
  --upgrade                     Upgrade the installed ascend-docker-runtime tool
  --install-type=<type>         Only A500, A500A2, A200ISoC, A200IA2 and A200 need to specify
                                the installation type of ascend-docker-runtime
                                (eg: --install-type=A200IA2, when your product is A200I A2 or A200I DK A2)
  --version                     Query ascend-docker-runtime version
  --install-scene=<scene>       Installation scenario, only docker, containerd, crio or isula
                                (eg: --install-scene=docker, default: docker)
  --injection-mode=<mode>       Injection mode for NPU devices, cdi or legacy
                                (eg: --injection-mode=cdi, default: legacy)
  --config-file-path            Specifies the path of the Docker, Containerd or CRI-O configuration file
                                (eg: --config-file-path=/etc/containerd/config.toml).
                                If this parameter is not specified, the default configuration file path
                                of docker, containerd or crio is used. For docker, the path is /etc/docker/daemon.json.
                                For containerd, the path is /etc/containerd/config.toml.
                                For crio, the path is /etc/crio/crio.conf.d/99-ascend-runtime.conf."""
HELPHEADER_LEGACY = """\
  --install                     Install into this system
  --install-path                Specify the installation path
  --uninstall                   Uninstall the installed ascend-docker-runtime tool
  --upgrade                     Upgrade the installed ascend-docker-runtime tool
  --install-type=<type>         Only A500, A500A2, A200ISoC, A200IA2 and A200 need to specify
                                the installation type of ascend-docker-runtime
                                (eg: --install-type=A200IA2, when your product is A200I A2 or A200I DK A2)
  --version                     Query ascend-docker-runtime version
  --install-scene=<scene>       Installation scenario, only docker, containerd or isula
                                (eg: --install-scene=docker, default: docker)
  --ce=<ce>                     Container engine, only isula (deprecated, use --install-scene=isula)
  --config-file-path            Specifies the path of the Docker or Containerd configuration file
                                (eg: --config-file-path=/etc/containerd/config.toml)."""


def helpheader(version):
    if catalog.DOCKER_RUNTIME[version]["generation"] == "modern":
        return HELPHEADER_MODERN
    return HELPHEADER_LEGACY


class Abort(Exception):
    def __init__(self, rc):
        super().__init__(rc)
        self.rc = rc


class Installer:
    def __init__(self, meta, runfile):
        self.meta = meta
        self.runfile = runfile
        self.version = meta["version"]
        self.data = catalog.DOCKER_RUNTIME[self.version]
        self.modern = self.data["generation"] == "modern"
        self.install_path = DEFAULT_INSTALL_PATH
        self.scene = "docker"
        self.config_file = ""
        self.injection_mode = ""
        self.types = dict.fromkeys(INSTALL_TYPES.values(), "n")
        self.isula = "none"
        self.reserve_default = "no"
        self.docker_dir = DOCKER_CONFIG_DIR

    # -------------------------------------------------------------------- output, log

    def log(self, level, text):
        common.out("%s %s\n" % (level, text))
        self.log_only(level, text)

    def log_only(self, level, text):
        ip = (os.environ.get("SSH_CLIENT") or "").split(" ")[0] or "localhost"
        stamp = datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        common.append_log(
            LOG_PATH,
            "%s [%s] [uid: %d] [%s] [%s] %s"
            % (level, stamp, common.euid(), ip, RT, text),
        )

    def fail(self, text):
        self.log("[ERROR]", text)
        raise Abort(1)

    def print_help(self):
        common.out(
            "Error input\nUsage: ./%s_%s_linux-%s.run [options]\nOptions:\n"
            "  --help | -h                   Print this message\n%s\n"
            % (RT_FIRST, self.version, common.machine(), helpheader(self.version))
        )

    # -------------------------------------------------------------------- checks

    @staticmethod
    def _permission(path):
        full = common.rooted(path)
        if os.path.islink(full):
            return "[ERROR] %s is soft link" % path
        info = os.lstat(full)
        if info.st_uid != 0 or info.st_gid != 0:
            return "[ERROR] user or group of %s is not root" % path
        if info.st_mode & 0o022:
            return "[ERROR] group or other of %s has write permission" % path
        return None

    def check_path(self, path):
        """run_main.sh check_path: every existing component root-owned, not g/o-writable."""
        if not 0 < len(path) <= 1024:
            common.out("[ERROR] parameter is invalid, length not in 1~1024\n")
            return False
        if not re.fullmatch(r"[a-zA-Z0-9./_-]*", path):
            common.out(
                "[ERROR] parameter is invalid, char not all in 'a-zA-Z0-9./_-'\n"
            )
            return False
        current = (
            os.path.normpath("/" + path.lstrip("/")) if path.startswith("/") else path
        )
        while current not in ("/", "") and not os.path.lexists(common.rooted(current)):
            current = os.path.dirname(current)
        while current not in ("/", ""):
            problem = self._permission(current)
            if problem:
                common.out(problem + "\n")
                return False
            current = os.path.dirname(current)
        return True

    def check_sub_path(self, path):
        full = common.rooted(path)
        if not os.path.exists(full):
            return False
        for dirpath, dirnames, filenames in os.walk(full):
            for name in [""] + dirnames + filenames:
                rel = os.path.join(
                    path, os.path.relpath(os.path.join(dirpath, name), full)
                )
                problem = self._permission(os.path.normpath(rel))
                if problem:
                    common.out(problem + "\n")
                    return False
        return True

    def check_platform(self):
        plat = common.machine()
        if plat in os.path.basename(self.runfile):
            common.out("[INFO] platform(%s) matched!\n" % plat)
            return True
        common.out(
            "[ERROR] platform(%s) mismatch for %s, please check it\n"
            % (plat, os.path.basename(self.runfile))
        )
        return False

    def check_eula(self):
        if not self.modern:
            return
        common.out(AGREEMENT + "\n")
        question = "Do you accept the EULA to install %s?[Y/N]\n" % RT_FIRST
        common.out(question)
        while True:
            answer = sys.stdin.readline()
            if answer == "":
                # The real loop reads forever at end of input; the simulator stops here.
                self.fail(
                    "stdin was closed before the EULA was answered (the real installer keeps "
                    "asking forever); feed 'y' on stdin"
                )
            answer = answer.strip()
            if answer in ("Y", "y"):
                self.log("[INFO]", "user accepted EULA")
                return
            if answer in ("N", "n"):
                self.log("[INFO]", "install cancelled, user declined EULA")
                raise Abort(0)
            common.out(question)

    # -------------------------------------------------------------------- files

    def base_list_text(self):
        return BASE_LIST

    def install_files(self):
        path = self.install_path
        for sub in ("", "/assets", "/script"):
            full = common.rooted(path + sub)
            if not os.path.isdir(full):
                os.makedirs(full, mode=0o750, exist_ok=True)
                os.chmod(full, 0o750)
        if not self.check_sub_path(path):
            self.fail(
                "install failed, %s or %s/assets or %s/script is invalid"
                % (path, path, path)
            )
        self.copy_binaries()

    def copy_binaries(self):
        path = self.install_path
        common.write(
            path + "/ascend-docker-runtime",
            hardware.program_text("runtime_wrapper"),
            0o550,
        )
        stub = (
            "#!/bin/sh\n# %s of the simulated Ascend Docker Runtime: unused, the simulated "
            "runtime edits the OCI spec itself.\nexit 0\n"
        )
        for name in (
            "ascend-docker-hook",
            "ascend-docker-cli",
            "ascend-docker-destroy",
        ):
            common.write("%s/%s" % (path, name), stub % name, 0o550)
        common.write(
            path + "/ascend-docker-plugin-install-helper",
            hardware.program_text("engine_config", GENERATION=self.data["generation"]),
            0o550,
        )
        common.write(
            path + "/README.md",
            "Simulated Ascend Docker Runtime %s (cubestudio.ascend ascend-sim)\n"
            % self.version,
            0o640,
        )
        common.install_uninstaller(path + "/script", self.meta, mode=0o500)

    def save_install_args(self):
        keys = self.data["info_keys"]
        lines = [
            "version=v%s" % self.version,
            "arch=%s" % common.machine(),
            "os=linux",
            "path=%s" % self.install_path,
            "build=%s_%s-%s" % (RT_FIRST, self.version, common.machine()),
            "a500=%s" % self.types["a500"],
            "a500a2=%s" % self.types["a500a2"],
            "a200=%s" % self.types["a200"],
            "a200isoc=%s" % self.types["a200isoc"],
            "a200ia2=%s" % self.types["a200ia2"],
        ]
        if keys in ("7.x", "master"):
            lines += [
                "install-scene=%s" % self.scene,
                "config-file-path=%s" % self.config_file,
            ]
        if keys == "master":
            lines.append("injection-mode=%s" % self.injection_mode)
        common.write(
            self.install_path + "/ascend_docker_runtime_install.info",
            "\n".join(lines) + "\n",
            0o640,
        )

    # -------------------------------------------------------------------- engines

    def cgroup_fstype(self):
        forced = os.environ.get("ASCEND_SIM_CGROUP_FSTYPE")
        if forced:
            return forced
        path = os.environ.get("ASCEND_SIM_CGROUP_PATH") or "/sys/fs/cgroup/"
        result = subprocess.run(
            ["stat", "-fc", "%T", path], capture_output=True, text=True, check=False
        )
        return result.stdout.strip()

    def containerd_default(self, dst):
        """`containerd config default > DST` (the redirection creates DST even on failure)."""
        full = common.rooted(dst)
        try:
            result = subprocess.run(
                ["containerd", "config", "default"],
                capture_output=True,
                text=True,
                check=False,
            )
            text = result.stdout
            if result.returncode != 0:
                sys.stderr.write(result.stderr)
        except FileNotFoundError:
            sys.stderr.write("run_main.sh: line 1: containerd: command not found\n")
            text = ""
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)

    def engine_target(self):
        """(DST, SRC) of the configuration to edit, after the scene's checks."""
        if self.config_file:
            return self.config_file, "%s.%d" % (self.config_file, os.getppid())
        if self.scene in ("docker", "isula"):
            common.out("[INFO] install scene is 'docker'.\n")
            dst = self.docker_dir + "/daemon.json"
            if not self.check_path(dst):
                self.fail("install failed, %s is invalid" % dst)
            os.makedirs(common.rooted(self.docker_dir), mode=0o750, exist_ok=True)
            return dst, "%s.%d" % (dst, os.getppid())
        if self.scene == "containerd":
            common.out("[INFO] install scene is 'containerd'.\n")
            dst = CONTAINERD_CONFIG_DIR + "/config.toml"
            if not self.check_path(dst):
                self.fail("install failed, %s is invalid" % dst)
            os.makedirs(common.rooted(CONTAINERD_CONFIG_DIR), mode=0o750, exist_ok=True)
            if not os.path.exists(common.rooted(dst)):
                common.out(
                    "[INFO] containerd config file does not exist, default %s will be created\n"
                    % dst
                )
                self.containerd_default(dst)
            return dst, "%s.%d" % (dst, os.getppid())
        if self.scene == "crio":
            common.out("[INFO] install scene is 'crio'.\n")
            os.makedirs(
                common.rooted(CRIO_CONFIG_DIR + "/crio.conf.d"),
                mode=0o750,
                exist_ok=True,
            )
            dst = CRIO_CONFIG_DIR + "/crio.conf.d/99-ascend-runtime.conf"
            return dst, "%s.%d" % (dst, os.getppid())
        self.fail("install failed, invalid value '%s' of 'install-scene' " % self.scene)
        return None, None

    def edit_engine(self, action, dst, src, helper_args):
        full_dst = common.rooted(dst)
        current = None
        if os.path.exists(full_dst):
            with open(full_dst, encoding="utf-8") as handle:
                current = handle.read()
        try:
            text = engine_config.edit(
                action,
                self.scene,
                current,
                self.install_path + "/ascend-docker-runtime",
                self.reserve_default == "yes",
                self.data["generation"],
                self.cgroup_fstype(),
            )
        except engine_config.ConfigError as err:
            sys.stderr.write("ascend-docker-plugin-install-helper: %s\n" % err)
            self.fail(
                "install failed, './ascend-docker-plugin-install-helper %s' return non-zero"
                % helper_args
            )
        if text is None:
            return False
        with open(common.rooted(src), "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(common.rooted(src), full_dst)
        os.chmod(full_dst, 0o600)
        return True

    # -------------------------------------------------------------------- actions

    def install(self):
        self.check_eula()
        common.out("[INFO] installing %s\n" % RT)
        if not self.check_platform():
            self.fail("install failed, run package and os not matched in arch")
        if not self.install_path.startswith("/"):
            common.out(
                "[ERROR]: install path: %s is a relative path, please use absolute path\n"
                % self.install_path
            )
            raise Abort(1)
        if not self.check_path(self.install_path):
            self.fail("install failed, %s is invalid" % self.install_path)
        self.install_files()
        if not self.check_path(CONFIG_DIR + "/base.list"):
            self.fail("install failed, %s/base.list is invalid" % CONFIG_DIR)
        os.makedirs(common.rooted(CONFIG_DIR), mode=0o750, exist_ok=True)
        common.write(CONFIG_DIR + "/base.list", self.base_list_text(), 0o440)
        common.out("[INFO] install executable files success\n")
        dst, src = self.engine_target()
        helper_args = "add %s %s %s/ascend-docker-runtime %s %s" % (
            dst,
            src,
            self.install_path,
            self.reserve_default,
            self.scene,
        )
        self.edit_engine("add", dst, src, helper_args)
        self.log("[INFO]", "%s modify success" % dst)
        self.save_install_args()
        common.out("[INFO] %s has been installed in: %s\n" % (RT, self.install_path))
        common.out("[INFO] The version of %s is: %s\n" % (RT, self.version))
        common.out("[INFO] please reboot daemon and container engine to take effect\n")
        self.log_only("[INFO]", "%s install success" % RT)

    def uninstall(self):
        common.out("[INFO] uninstalling %s %s\n" % (RT, self.version))
        if not os.path.isdir(common.rooted(self.install_path)):
            self.log(
                "[WARNING]",
                "uninstall skipping, the specified install path does not exist",
            )
            return
        if not self.check_path(self.install_path):
            self.fail(
                "uninstall failed, %s or %s/script is invalid"
                % (self.install_path, self.install_path)
            )
        script = self.install_path + "/script/uninstall.sh"
        args = [self.isula, self.scene] + (
            [self.config_file] if self.config_file else []
        )
        result = subprocess.run(["bash", common.rooted(script)] + args, check=False)
        if result.returncode != 0:
            self.fail(
                "uninstall failed, '%s %s' return non-zero" % (script, " ".join(args))
            )
        self.log_only("[INFO]", "%s uninstall success" % RT)

    def upgrade(self):
        self.check_eula()
        common.out("[INFO] upgrading %s\n" % RT)
        if not self.check_platform():
            self.fail("upgrade failed, run package and os not matched in arch")
        if not os.path.isdir(common.rooted(self.install_path)):
            self.fail(
                "upgrade failed, the specified install path does not exist, stopping upgrading"
            )
        if not os.path.isdir(common.rooted(CONFIG_DIR)):
            self.fail("upgrade failed, the configuration directory does not exist")
        if not (
            self.check_path(self.install_path)
            and self.check_sub_path(self.install_path)
        ):
            self.fail(
                "upgrade failed, %s or %s/script is invalid"
                % (self.install_path, self.install_path)
            )
        self.copy_binaries()
        info_path = self.install_path + "/ascend_docker_runtime_install.info"
        info = common.read_kv(info_path)
        if not self.injection_mode:
            self.injection_mode = info.get("injection-mode", "")
        if info:
            for key in INSTALL_TYPES.values():
                if info.get(key) == "y":
                    self.types[key] = "y"
            self.save_install_args()
        common.write(CONFIG_DIR + "/base.list", self.base_list_text(), 0o440)
        common.out("[INFO] %s has been installed in: %s\n" % (RT, self.install_path))
        common.out("[INFO] upgrade %s success\n" % RT)
        common.out("[INFO] The version of %s is: v%s\n" % (RT, self.version))
        self.log_only("[INFO]", "%s upgrade success" % RT)

    # -------------------------------------------------------------------- command line

    def run(self, args):
        os.makedirs(common.rooted(LOG_DIR), mode=0o750, exist_ok=True)
        if common.euid() != 0:
            self.fail("failed, please run with root permission")
        flags = {"install": False, "uninstall": False, "upgrade": False}
        seen = set()
        need_help = True
        for arg in args:
            name, _sep, value = arg.partition("=")
            if name in ("--install", "--uninstall", "--upgrade"):
                key = name[2:]
                if flags[key]:
                    self.fail("%s failed, '%s' Repeat parameter!" % (key, name))
                flags[key] = True
            elif name == "--version":
                common.out("%s version: %s\n" % (RT, self.version))
                raise Abort(0)
            elif name == "--install-scene":
                if name in seen:
                    self.fail("failed, '--install-scene' Repeat parameter!")
                if self.isula == "isula":
                    self.fail("failed, incompatible parameters: '--install-scene' !")
                scenes = ("docker", "containerd", "isula") + (
                    ("crio",) if self.modern else ()
                )
                if value not in scenes:
                    self.fail(
                        "failed, please check the parameter of --install-scene=<scene>"
                    )
                self.scene = value
                if value == "isula":
                    self.docker_dir = "/etc/isulad"
                    self.reserve_default = "yes"
            elif name == "--ce" and not self.modern:
                if name in seen:
                    self.fail("failed, '--ce' Repeat parameter!")
                if "--install-scene" in seen:
                    self.fail("failed, incompatible parameters: '--ce' !")
                if value != "isula":
                    self.fail("failed, please check the parameter of --ce=<ce>")
                self.isula = "isula"
                self.scene = "isula"
                self.docker_dir = "/etc/isulad"
                self.reserve_default = "yes"
            elif name == "--injection-mode" and self.modern:
                if name in seen:
                    self.fail("failed, '--injection-mode' Repeat parameter!")
                if value not in ("cdi", "legacy"):
                    self.fail(
                        "failed, please check the parameter of --injection-mode=<mode>, only "
                        "cdi or legacy are supported"
                    )
                self.injection_mode = value
            elif name == "--config-file-path":
                if name in seen:
                    self.fail("failed, '--config-file-path' Repeat parameter!")
                if not os.path.exists(common.rooted(value)):
                    self.fail("failed, file '%s' does not exist." % value)
                self.config_file = value
            elif name == "--install-path":
                if name in seen:
                    self.fail("failed, '--install-path' Repeat parameter!")
                self.install_path = value.rstrip("/") + "/Ascend-Docker-Runtime"
            elif name == "--install-type":
                if name in seen:
                    self.fail("failed, '--install-type' Repeat parameter!")
                if value not in INSTALL_TYPES:
                    self.fail(
                        "failed, please check the parameter of --install-type=<type>"
                    )
                self.types[INSTALL_TYPES[value]] = "y"
            else:
                self.log("[ERROR]", "failed, unsupported parameters: %s" % arg)
                self.print_help()
                raise Abort(1)
            seen.add(name)
            need_help = False
        action = flags["install"] or flags["uninstall"] or flags["upgrade"]
        if "--install-path" in seen and not action:
            self.fail(
                "failed, only input <install_path> command. When use --install-path you also "
                "need input --install or --uninstall or --upgrade"
            )
        if "--install-scene" in seen and not action:
            self.fail(
                "failed, only input <install-scene> command. When use --install-scene you also "
                "need input --install or --uninstall or --upgrade"
            )
        if "--injection-mode" in seen and not (flags["install"] or flags["upgrade"]):
            self.fail(
                "failed, only input <injection-mode> command. When use --injection-mode you "
                "also need input --install or --upgrade"
            )
        if flags["install"]:
            self.install()
        elif flags["uninstall"]:
            self.uninstall()
        elif flags["upgrade"]:
            self.upgrade()
        elif need_help:
            self.print_help()
        return 0


def main(args, meta, runfile):
    try:
        return Installer(meta, runfile).run(args)
    except Abort as stop:
        return stop.rc


def uninstall_script(meta, args, install_path):
    """<install-path>/script/uninstall.sh <isula|none> <scene> [config-file]."""
    installer = Installer(meta, meta["file"])
    installer.install_path = install_path
    if args:
        installer.isula = args[0]
    if len(args) > 1:
        installer.scene = args[1]
        if installer.scene == "isula":
            installer.docker_dir = "/etc/isulad"
            installer.reserve_default = "yes"
    if len(args) > 2:
        installer.config_file = args[2]
    try:
        if installer.config_file:
            dst = installer.config_file
        elif installer.scene in ("docker", "isula"):
            dst = installer.docker_dir + "/daemon.json"
        elif installer.scene == "containerd":
            dst = CONTAINERD_CONFIG_DIR + "/config.toml"
        else:
            dst = CRIO_CONFIG_DIR + "/crio.conf.d/99-ascend-runtime.conf"
        if installer.scene == "crio" and not installer.config_file:
            common.remove_tree(dst)
        elif os.path.exists(common.rooted(dst)):
            installer.edit_engine(
                "rm", dst, "%s.%d" % (dst, os.getpid()), "rm %s" % dst
            )
            common.out("[INFO]: %s modify success\n" % dst)
        common.remove_tree(CONFIG_DIR + "/base.list")
        common.remove_tree(CONFIG_DIR + "/ub_driver.list")
        config_dir = common.rooted(CONFIG_DIR)
        if os.path.isdir(config_dir) and not os.listdir(config_dir):
            os.rmdir(config_dir)
        common.remove_tree(installer.install_path)
        common.out("[INFO]: uninstall %s success\n" % RT)
        return 0
    except Abort as stop:
        return stop.rc
