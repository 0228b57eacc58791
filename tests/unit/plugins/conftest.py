# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A sandbox Ascend node (root file system + sysfs tree) built from the real installed files.

``ascend_node(layout=...)`` returns ``(root, sysfs_root)``. The file contents come from
module_utils/fixtures/installed-files (copied verbatim); only the docker runtime info file is
instantiated from its documented template (version=v7.3.0), and the CANN 8.1.RC1 toolkit info
uses the values quoted in the npu-smi fixtures' sources (vllm-ascend #1047).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSTALLED = Path(__file__).parent / "module_utils" / "fixtures" / "installed-files"

TOOLKIT_8_1_RC1 = """package_name=Ascend-cann-toolkit
version=8.1.RC1
innerversion=V100R001C21SPC001B238
compatible_version=[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux
"""

DOCKER_RUNTIME_VALUES = {
    "${PACKAGE_VERSION}": "7.3.0",
    "$(uname -m)": "aarch64",
    "${INSTALL_PATH}": "/usr/local/Ascend/Ascend-Docker-Runtime",
    "${a500}": "n",
    "${a500a2}": "n",
    "${a200}": "n",
    "${a200isoc}": "n",
    "${a200ia2}": "n",
    "${INSTALL_SCENE}": "containerd",
    "${CONFIG_FILE_PATH}": "/etc/containerd/config.toml",
    "${INJECTION_MODE}": "legacy",
}

# (bus id, device, subsystem vendor, subsystem device, class)
PCI_910B = [
    (f"0000:{bus}:00.0", "0xd802", "0x19e5", "0x3003", "0x120000")
    for bus in ("c1", "c2", "81", "82")
]
PCI_OTHER = [
    (
        "0000:7d:00.0",
        "0x1822",
        "0x19e5",
        "0xd139",
        "0x020000",
    ),  # Huawei Hi1822 NIC: not an NPU
]


def installed(name: str) -> str:
    return (INSTALLED / name).read_text()


def write(path: Path, text: str, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)


def pci_device(
    sysfs: Path, bus, device, subsystem_vendor, subsystem_device, klass, vendor="0x19e5"
):
    base = sysfs / "bus" / "pci" / "devices" / bus
    for name, value in (
        ("vendor", vendor),
        ("device", device),
        ("subsystem_vendor", subsystem_vendor),
        ("subsystem_device", subsystem_device),
        ("class", klass),
        ("numa_node", "0"),
    ):
        write(base / name, value + "\n")


def build_node(base: Path, layout: str = "full") -> tuple:
    """layout: full (every component), empty (nothing at all), driver-only, incomplete-driver."""
    root = base / "root"
    sysfs = base / "sys"
    root.mkdir(parents=True)
    sysfs.mkdir(parents=True)
    if layout == "empty":
        return str(root), str(sysfs)
    ascend = root / "usr" / "local" / "Ascend"
    write(root / "etc" / "ascend_install.info", installed("etc-ascend_install.info"))
    write(ascend / "driver" / "version.info", installed("driver-version.info.23.0.7"))
    if layout != "incomplete-driver":
        write(ascend / "driver" / "tools" / "upgrade-tool", "#!/bin/sh\n", 0o755)
    write(root / "usr" / "local" / "sbin" / "npu-smi", "#!/bin/sh\n", 0o755)
    for bus, device, sub_vendor, sub_device, klass in PCI_910B + PCI_OTHER:
        pci_device(sysfs, bus, device, sub_vendor, sub_device, klass)
    pci_device(
        sysfs, "0000:00:1f.0", "0x1234", "0x8086", "0x0000", "0x060100", vendor="0x8086"
    )
    dev = root / "dev"
    for name in (
        "davinci0",
        "davinci1",
        "davinci2",
        "davinci3",
        "davinci_manager",
        "devmm_svm",
        "hisi_hdc",
    ):
        write(dev / name, "")
    if layout in ("driver-only", "incomplete-driver"):
        return str(root), str(sysfs)

    write(
        ascend / "firmware" / "version.info",
        installed("firmware-version.info.7.1.0.11.220"),
    )
    toolkit = ascend / "ascend-toolkit"
    write(
        toolkit / "7.0.T10" / "aarch64-linux" / "ascend_toolkit_install.info",
        installed("ascend_toolkit_install.info.7.0.T10"),
    )
    write(
        toolkit / "8.1.RC1" / "aarch64-linux" / "ascend_toolkit_install.info",
        TOOLKIT_8_1_RC1,
    )
    os.symlink("7.0.T10", toolkit / "latest")
    write(
        ascend / "nnae" / "8.0.RC3" / "ascend_nnae_install.info",
        installed("ascend_nnae_install.info.8.0.RC3"),
    )
    os.symlink("8.0.RC3", ascend / "nnae" / "latest")
    write(
        ascend / "cann-8.5.0" / "aarch64-linux" / "ascend_toolkit_install.info",
        installed("ascend_toolkit_install.info.8.5.0-new-layout"),
    )
    os.symlink("cann-8.5.0", ascend / "cann")
    runtime_info = installed("ascend_docker_runtime_install.info.FORMAT")
    for placeholder, value in DOCKER_RUNTIME_VALUES.items():
        runtime_info = runtime_info.replace(placeholder, value)
    runtime = ascend / "Ascend-Docker-Runtime"
    write(runtime / "ascend_docker_runtime_install.info", runtime_info)
    write(runtime / "ascend-docker-runtime", "#!/bin/sh\n", 0o550)
    write(
        root / "etc" / "passwd",
        "root:x:0:0:root:/root:/bin/bash\nHwHiAiUser:x:1000:1000::/home/HwHiAiUser:/bin/bash\n",
    )
    write(root / "etc" / "group", "root:x:0:\nHwHiAiUser:x:1000:\n")
    return str(root), str(sysfs)


@pytest.fixture
def ascend_node(tmp_path):
    def factory(layout: str = "full") -> tuple:
        return build_node(tmp_path / layout, layout)

    return factory


# --- the real ansible CLI -------------------------------------------------------------------

COLLECTION_ROOT = Path(__file__).resolve().parents[3]


def _collections_path() -> Path | None:
    for root in (Path(__file__).parents[3], COLLECTION_ROOT):
        if (
            root.parent.name == "cubestudio"
            and root.parent.parent.name == "ansible_collections"
        ):
            return root.parent.parent.parent
    built = COLLECTION_ROOT / ".build" / "collections"
    if (built / "ansible_collections" / "cubestudio" / "ascend").exists():
        return built
    return None


@pytest.fixture(scope="session")
def ansible_adhoc(tmp_path_factory):
    """``ansible_adhoc(module, args) -> (rc, status, result)`` through the real ``ansible`` CLI.

    Runs ``ansible localhost -c local -m <module> -a <args>`` with this Python as the target
    interpreter and the collection tree ansible-test (or ``make setup``) provides; ``status`` is
    the ``localhost | SUCCESS`` part of the output and ``result`` the JSON after ``=>``.
    """
    cli = Path(sys.executable).parent / "ansible"
    cli = str(cli) if cli.exists() else shutil.which("ansible")
    collections = _collections_path()
    if cli is None or collections is None:
        pytest.skip(
            "the ansible CLI or an ansible_collections tree holding this collection is missing"
        )
    home = tmp_path_factory.mktemp("ansible-home")
    config = home / "ansible.cfg"
    config.write_text("[defaults]\nhost_key_checking = False\n")
    # ansible-test runs module unit tests with a PYTHONPATH that hides everything of ansible
    # but module_utils; the CLI needs the whole installed ansible-core.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(
        {
            "ANSIBLE_CONFIG": str(config),
            "ANSIBLE_COLLECTIONS_PATH": str(collections),
            "ANSIBLE_HOME": str(home),
            "ANSIBLE_LOCAL_TEMP": str(home / "tmp"),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_CALLBACK_RESULT_FORMAT": "json",
            "ANSIBLE_INJECT_FACT_VARS": "False",
        }
    )

    def run(module: str, args: str) -> tuple:
        argv = [
            cli,
            "localhost",
            "-i",
            "localhost,",
            "-c",
            "local",
            "-m",
            module,
            "-a",
            args,
        ]
        argv += ["-e", f"ansible_python_interpreter={sys.executable}"]
        proc = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        lines = proc.stdout.splitlines()
        start = next(
            (no for no, line in enumerate(lines) if line.startswith("localhost | ")),
            None,
        )
        assert start is not None and " => " in lines[start], (
            f"unexpected ansible output:\n{proc.stdout}\n{proc.stderr}"
        )
        status, first = lines[start].split(" => ", 1)
        payload = "\n".join([first] + lines[start + 1 :])
        return proc.returncode, status, json.loads(payload[: payload.rindex("}") + 1])

    return run
