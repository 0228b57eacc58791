# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated CANN packages: Ascend-cann-{toolkit,nnae,nnrt}_<ver>_linux-<arch>.run.

Layouts (installer-cli.md section 3, installed-files/):
* CANN <= 8.3 ("old"): <path>/ascend-toolkit/<ver>/<arch>-linux/ascend_toolkit_install.info,
  <path>/ascend-toolkit/latest -> <ver>, <path>/ascend-toolkit/set_env.sh; nnae keeps its info
  file directly in <path>/nnae/<ver>/, nnrt under <path>/nnrt/<ver>/<arch>-linux/.
* CANN >= 8.5.0 ("new"): <path>/cann-<ver>/<arch>-linux/ascend_toolkit_install.info,
  <path>/cann -> cann-<ver>, <path>/cann-<ver>/set_env.sh (Huawei documents
  `source <path>/cann/set_env.sh`); no separate nnae/nnrt packages. 8.5.0 keeps the old paths
  working (release notes): <path>/ascend-toolkit/latest -> ../cann-<ver> and
  <path>/ascend-toolkit/set_env.sh, made when no old-layout toolkit holds ascend-toolkit (their
  form is a GUESS: a link and a script of the old layout's shape).
Every package carries pyACL (`import acl` once set_env.sh ran, Huawei's pyACL guide; 8.5.0
lists the pyACL subpackage in its toolkit): <ver dir>/python/site-packages/acl, a stand-in
module that imports and does nothing else.
Exit codes: 0 success, 1 failure (also when the EULA is declined).
"""

from __future__ import annotations

import os
import re
import sys

from .. import catalog
from . import common

FLAGS = (
    "--install",
    "--uninstall",
    "--upgrade",
    "--devel",
    "--version",
    "--install-for-all",
    "--alternative",
    "--full",
    "--quiet",
    "--nox11",
    "--check",
    "--force",
)
VALUES = ("--install-path", "--chip", "--feature-list", "--whitelist")
MODES = (
    "--install",
    "--full",
    "--devel",
    "--upgrade",
    "--uninstall",
    "--version",
    "--check",
    "--alternative",
)
CHIPS = (
    "Ascend310",
    "Ascend910",
    "Ascend310P",
    "Ascend310-minirc",
    "Ascend910B",
    "Ascend910_93",
)
WHITELIST = ("atc", "devtools", "nnrt", "nnae")
TAGS = {"toolkit": "Toolkit", "nnae": "NNAE", "nnrt": "NNRT"}

# Help text of the real toolkit package (installer-output/cann-toolkit-6.0.1-help.txt), the
# part after the generic makeself options; --force is added by CANN 8.x.
HELP = """\
  --install                         Install run mode
  --uninstall                       Uninstall
  --upgrade                         Upgrade
  --devel                           Install devel mode
  --version                         Show version
  --install-for-all                 Install for all users
  --install-path=<path>             Install to specific path
  --chip=<chip_type>                Appoint chip type, must be Ascend310, Ascend910, Ascend310P or Ascend310-minirc
  --feature-list=<feature>          Upgrade feature separately, must be Acclibs
  --alternative                     Show all supported features
  --whitelist=<feature_type>        Install features, must be atc, devtools, nnrt, nnae
  --full                            Install full mode
  --force                           Force install, overwrite the files of an installed version
"""


def default_install_path():
    if common.euid() == 0:
        return "/usr/local/Ascend"
    return os.path.join(common.user_home(), "Ascend")


class Layout:
    """Where one component/version lives below an install path."""

    def __init__(self, component, version, arch, install_path):
        self.component = component
        self.version = version
        self.arch = arch
        self.install_path = install_path.rstrip("/") or "/"
        self.new = catalog.CANN[version]["layout"] == "new"
        arch_dir = "%s-linux" % arch
        if self.new:
            self.base = self.install_path
            self.vdir = "%s/cann-%s" % (self.install_path, version)
            self.link = "%s/cann" % self.install_path
            self.link_target = "cann-%s" % version
            self.info_dir = "%s/%s" % (self.vdir, arch_dir)
            self.env = "%s/set_env.sh" % self.vdir
        else:
            self.base = "%s/%s" % (
                self.install_path,
                "ascend-toolkit" if component == "toolkit" else component,
            )
            self.vdir = "%s/%s" % (self.base, version)
            self.link = "%s/latest" % self.base
            self.link_target = version
            self.info_dir = (
                self.vdir if component == "nnae" else "%s/%s" % (self.vdir, arch_dir)
            )
            self.env = "%s/set_env.sh" % self.base
        self.info = "%s/ascend_%s_install.info" % (self.info_dir, component)
        self.home = self.link if not self.new else self.vdir

    def installed_versions(self):
        """Versions of this component already below the install path."""
        found = []
        if self.new:
            parent = common.rooted(self.install_path)
            names = os.listdir(parent) if os.path.isdir(parent) else []
            for name in names:
                match = re.fullmatch(r"cann-(.+)", name)
                if match and os.path.isfile(
                    common.rooted(
                        "%s/%s/%s-linux/ascend_toolkit_install.info"
                        % (self.install_path, name, self.arch)
                    )
                ):
                    found.append(match.group(1))
        else:
            parent = common.rooted(self.base)
            names = os.listdir(parent) if os.path.isdir(parent) else []
            for name in names:
                info_dir = "%s/%s" % (self.base, name)
                if self.component != "nnae":
                    info_dir += "/%s-linux" % self.arch
                if os.path.isfile(
                    common.rooted(
                        "%s/ascend_%s_install.info" % (info_dir, self.component)
                    )
                ):
                    found.append(name)
        return sorted(found, key=catalog.version_key)


def info_text(layout, meta):
    data = catalog.CANN[layout.version]
    return (
        "package_name=Ascend-cann-%s\nversion=%s\ninnerversion=%s\ncompatible_version=%s\n"
        "arch=%s\nos=linux\npath=%s\n"
        % (
            layout.component,
            layout.version,
            data["innerversion"],
            data["compatible_version"],
            meta["arch"],
            layout.info_dir,
        )
    )


def set_env_text(layout, driver_path="/usr/local/Ascend"):
    home = layout.home
    drv = driver_path.rstrip("/") + "/driver"
    if layout.component == "toolkit":
        var = "ASCEND_TOOLKIT_HOME"
    else:
        var = "ASCEND_%s_HOME" % layout.component.upper()
    return (
        "# Environment of the simulated %s %s (ascend-sim)\n"
        "export LD_LIBRARY_PATH=%s/lib64:%s/lib64/common:%s/lib64/driver:$LD_LIBRARY_PATH\n"
        "export %s=%s\n"
        "export LD_LIBRARY_PATH=${%s}/lib64:${%s}/lib64/plugin/opskernel:"
        "${%s}/lib64/plugin/nnengine:$LD_LIBRARY_PATH\n"
        "export PYTHONPATH=${%s}/python/site-packages:${%s}/opp/built-in/op_impl/ai_core/tbe:$PYTHONPATH\n"
        "export PATH=${%s}/bin:${%s}/compiler/ccec_compiler/bin:$PATH\n"
        "export ASCEND_AICPU_PATH=${%s}\n"
        "export ASCEND_OPP_PATH=${%s}/opp\n"
        "export TOOLCHAIN_HOME=${%s}/toolkit\n"
        "export ASCEND_HOME_PATH=${%s}\n"
        % (
            layout.component,
            layout.version,
            drv,
            drv,
            drv,
            var,
            home,
            *([var] * 11),
        )
    )


ACL_TEXT = (
    '"""ascend-sim stand-in for pyACL (acl.so of the CANN package): it imports, nothing runs."""\n'
    "ASCEND_SIM = True\n"
)


def _write_tree(layout, meta):
    common.write(layout.info, info_text(layout, meta), 0o444)
    common.write(
        "%s/%s-linux/python/site-packages/acl/__init__.py"
        % (layout.vdir, meta["arch"]),
        ACL_TEXT,
        0o644,
    )
    for stub in (
        "lib64/libascendcl.so",
        "lib64/libge_runner.so",
        "bin/atc",
        "opp/version.info",
    ):
        if layout.component != "toolkit" and stub == "bin/atc":
            continue
        common.write(
            "%s/%s-linux/%s" % (layout.vdir, meta["arch"], stub),
            "# ascend-sim stub\n",
            0o644,
        )
    for link_name in ("lib64", "bin", "opp", "python"):
        link = "%s/%s" % (layout.vdir, link_name)
        if os.path.isdir(
            common.rooted("%s/%s-linux/%s" % (layout.vdir, meta["arch"], link_name))
        ):
            common.symlink("%s-linux/%s" % (meta["arch"], link_name), link)
    common.write(layout.vdir + "/version.cfg", "version=%s\n" % layout.version, 0o644)
    common.install_uninstaller(layout.info_dir + "/script", meta)


def _activate(layout):
    common.symlink(layout.link_target, layout.link)
    driver_path = common.read_kv(common.INSTALL_INFO).get(
        "Driver_Install_Path_Param", "/usr/local/Ascend"
    )
    common.write(layout.env, set_env_text(layout, driver_path), 0o644)
    if layout.new and catalog.CANN[layout.version].get("toolkit_compat"):
        _compat(layout, driver_path)


class _CompatLayout:
    """The old-layout paths a new-layout toolkit keeps working (set_env_text's view of them)."""

    def __init__(self, layout):
        self.component = "toolkit"
        self.version = layout.version
        self.base = "%s/ascend-toolkit" % layout.install_path
        self.link = "%s/latest" % self.base
        self.home = self.link
        self.env = "%s/set_env.sh" % self.base


def _compat(layout, driver_path):
    """ascend-toolkit/latest and ascend-toolkit/set_env.sh for the new layout, unless an
    old-layout toolkit owns them (its version directories and latest link stay its own)."""
    compat = _CompatLayout(layout)
    link = common.rooted(compat.link)
    if os.path.lexists(link) and not _points_into_cann(compat.link):
        return
    common.symlink("../cann-%s" % layout.version, compat.link)
    common.write(compat.env, set_env_text(compat, driver_path), 0o644)


def _points_into_cann(path):
    full = common.rooted(path)
    return (
        os.path.islink(full)
        and re.fullmatch(r"\.\./cann-[^/]+", os.readlink(full)) is not None
    )


def _drop_compat(layout, version):
    """Remove the compatibility paths when they lead to a removed new-layout version."""
    compat = _CompatLayout(layout)
    full = common.rooted(compat.link)
    if _points_into_cann(compat.link) and os.readlink(full) == "../cann-%s" % version:
        common.remove_tree(compat.link)
        common.remove_tree(compat.env)
        base = common.rooted(compat.base)
        if os.path.isdir(base) and not os.listdir(base):
            os.rmdir(base)


def _remove_version(layout, version):
    other = Layout(layout.component, version, layout.arch, layout.install_path)
    common.remove_tree(other.vdir)
    if other.new:
        _drop_compat(other, version)


def _eula(log, package):
    prompt = "Do you accept the EULA to install %s? [y/n]\n" % package
    common.out(
        "Please read the End User License Agreement of the simulated package %s "
        "(ascend-sim: no real software is installed).\n" % package
    )
    while True:
        common.out(prompt)
        answer = sys.stdin.readline()
        if answer == "":
            log.error(
                "No answer to the EULA question (stdin is closed); use --quiet or answer y"
            )
            return False
        answer = answer.strip().lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            log.info("The EULA was not accepted, the installation is cancelled")
            return False


def main(args, meta, runfile):
    component = meta["component"]
    log = common.HdkLog(
        TAGS[component],
        logfile="ascend_%s_install.log" % component,
        stamp="%Y%m%d-%H:%M:%S",
        space=" ",
    )
    try:
        opts = common.parse_options(args, FLAGS, VALUES)
        if opts.get("--whitelist") and opts["--whitelist"] not in WHITELIST:
            raise common.UsageError(
                "--whitelist must be one of %s" % ", ".join(WHITELIST)
            )
        if opts.get("--chip") and opts["--chip"] not in CHIPS:
            raise common.UsageError("--chip must be one of %s" % ", ".join(CHIPS))
    except common.UsageError as err:
        log.error(str(err))
        return 1
    modes = [m for m in MODES if m in opts]
    if "--install" in modes and "--full" in modes:
        modes.remove("--full")  # "--install --full" is the full install
    mode = common.pick_mode(
        modes, log, runfile, HELP, "Please input --install, --upgrade or --uninstall"
    )
    if mode is None:
        return 1
    package = "Ascend-cann-%s_%s_linux-%s" % (component, meta["version"], meta["arch"])
    if mode == "--version":
        common.out("%s\n" % meta["version"])
        return 0
    if mode == "--alternative":
        common.out("Acclibs\n")
        return 0
    log.start()
    try:
        if mode == "--check":
            log.info("%s check success" % package)
            return 0
        if meta["arch"] != common.machine():
            log.error(
                "The architecture of the package (%s) does not match the system (%s)"
                % (meta["arch"], common.machine())
            )
            return 1
        install_path = opts.get("--install-path") or default_install_path()
        if not install_path.startswith("/"):
            log.error("The install path %s must be an absolute path" % install_path)
            return 1
        layout = Layout(component, meta["version"], meta["arch"], install_path)
        present = layout.installed_versions()
        if mode == "--uninstall":
            if meta["version"] not in present:
                log.error("%s is not installed in %s" % (package, install_path))
                return 1
            _remove_version(layout, meta["version"])
            rest = [v for v in present if v != meta["version"]]
            if rest:
                _activate(Layout(component, rest[-1], meta["arch"], install_path))
            else:
                common.remove_tree(layout.link)
                common.remove_tree(layout.env)
            log.info("%s uninstall success" % package)
            common.operation_log(TAGS[component], "Uninstall", "success", meta["file"])
            return 0
        if mode == "--upgrade" and not present:
            log.error(
                "%s is not installed in %s, the upgrade needs an installed version "
                "(use --install)" % (component, install_path)
            )
            return 1
        if "--quiet" not in opts and not _eula(log, package):
            return 1
        log.info(
            "%s %s start" % (package, "upgrade" if mode == "--upgrade" else "install")
        )
        if meta["version"] in present:
            log.info("%s is already installed, its files are overwritten" % package)
        _write_tree(layout, meta)
        if mode == "--upgrade":
            for version in present:
                if version != meta["version"]:
                    _remove_version(layout, version)
        _activate(layout)
        word = "upgrade" if mode == "--upgrade" else "install"
        log.info(
            "%s %s success, the install path is %s ." % (package, word, layout.vdir)
        )
        log.info(
            "Please make sure that the environment variables have been configured: "
            "source %s" % layout.env
        )
        common.operation_log(
            TAGS[component], word.capitalize(), "success", meta["file"]
        )
        return 0
    finally:
        log.end()
