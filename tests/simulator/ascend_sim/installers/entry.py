# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Entry point of the install scripts.

* ``main(args, meta, runfile)``: called by the makeself layer of a .run package.
* ``python3 -m ascend_sim.installers.entry --uninstall-script <sim>/package.json [args]``:
  run by the ``uninstall.sh`` an installer leaves next to what it installed.
"""

from __future__ import annotations

import json
import os
import sys

from .. import hardware
from . import cann, common, docker_runtime, driver, firmware

MAIN = {
    "driver": driver.main,
    "firmware": firmware.main,
    "toolkit": cann.main,
    "nnae": cann.main,
    "nnrt": cann.main,
    "docker-runtime": docker_runtime.main,
}


def main(args, meta, runfile):
    return MAIN[meta["component"]](list(args), meta, runfile)


def _unroot(path):
    root = os.path.abspath(hardware.sim_root())
    path = os.path.abspath(path)
    if root == "/":
        return path
    return "/" + os.path.relpath(path, root)


def uninstall_script(package_json, args):
    with open(package_json, encoding="utf-8") as handle:
        meta = json.load(handle)
    script_dir = os.path.dirname(os.path.dirname(os.path.abspath(package_json)))
    component_dir = _unroot(os.path.dirname(script_dir))
    component = meta["component"]
    if component == "driver":
        log = common.HdkLog("Driver")
        log.start()
        try:
            return driver.uninstall(meta, os.path.dirname(component_dir), log)
        finally:
            log.end()
    if component == "firmware":
        log = common.HdkLog("Firmware")
        log.start()
        try:
            return firmware.uninstall(meta, os.path.dirname(component_dir), log)
        finally:
            log.end()
    if component == "docker-runtime":
        return docker_runtime.uninstall_script(meta, args, component_dir)
    # CANN: the script sits in the directory of the info file.
    levels = 2 if component == "nnae" else 3
    if component == "toolkit" and component_dir.rstrip("/").split("/")[-2].startswith(
        "cann-"
    ):
        levels = 2
    install_path = component_dir
    for _level in range(levels):
        install_path = os.path.dirname(install_path)
    return cann.main(
        ["--uninstall", "--install-path=%s" % install_path] + list(args),
        meta,
        meta["file"],
    )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--uninstall-script":
        sys.exit(uninstall_script(sys.argv[2], sys.argv[3:]))
    sys.stderr.write(
        "usage: python3 -m ascend_sim.installers.entry --uninstall-script <package.json>\n"
    )
    sys.exit(2)
