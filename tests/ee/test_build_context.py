# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The execution environment's build context made by `make ee` (ansible-builder create).

EE_CONTEXT names the context directory. Checks that the Containerfile builds on the declared
base with the pinned ansible-core and ansible-runner, that the collection of this checkout and
the collections it uses are installed from the context, and that ansible-builder finds the
collection's own Python and system dependencies (meta/execution-environment.yml).
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = Path(os.environ.get("EE_CONTEXT", ROOT / ".build" / "ee" / "context"))
TARBALL = CONTEXT / "_build" / "src" / "cubestudio-ascend.tar.gz"

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "Containerfile").is_file(), reason="run `make ee` first"
)


def definition():
    with open(ROOT / "execution-environment.yml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_definition_is_schema_3_on_pinned_tools():
    ee = definition()
    assert ee["version"] == 3
    pins = (ROOT / "requirements.txt").read_text().splitlines()
    assert ee["dependencies"]["ansible_core"]["package_pip"] in pins


def test_containerfile_uses_the_base_and_the_pins():
    text = (CONTEXT / "Containerfile").read_text()
    ee = definition()
    assert ee["images"]["base_image"]["name"] in text
    assert "ansible-core==2.21.5" in text
    assert "ansible-runner==2.4.3" in text
    assert "ansible-galaxy collection install" in text
    assert "introspect" in text


def test_galaxy_requirements_hold_this_collection_and_its_dependencies():
    with open(CONTEXT / "_build" / "requirements.yml", encoding="utf-8") as handle:
        requirements = yaml.safe_load(handle)
    names = [c["name"] for c in requirements["collections"]]
    assert names[0] == "src/cubestudio-ascend.tar.gz"
    with open(ROOT / "requirements.yml", encoding="utf-8") as handle:
        used = [c["name"] for c in yaml.safe_load(handle)["collections"]]
    assert names[1:] == used


def test_the_collection_tarball_is_this_checkout_with_its_ee_metadata():
    with open(ROOT / "galaxy.yml", encoding="utf-8") as handle:
        galaxy = yaml.safe_load(handle)
    with tarfile.open(TARBALL) as archive:
        members = set(archive.getnames())
        manifest = json.load(archive.extractfile("MANIFEST.json"))
    info = manifest["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == (
        "cubestudio",
        "ascend",
        galaxy["version"],
    )
    assert {
        "meta/execution-environment.yml",
        "meta/ee-requirements.txt",
        "bindep.txt",
        "plugins/action/ascend_package_verify.py",
        "plugins/module_utils/_installers/_signature.py",
    } <= members
    assert not any(m.startswith(("tests/", ".build/", ".venv/")) for m in members)


def test_ansible_builder_finds_the_collections_python_and_system_dependencies(tmp_path):
    # --force: the checkout's own copy (ANSIBLE_CONFIG's collections path) would count as
    # already installed.
    subprocess.run(
        ["ansible-galaxy", "collection", "install", "--no-deps", "--offline", "--force"]
        + ["-p", str(tmp_path), str(TARBALL)],
        check=True,
        capture_output=True,
    )
    assert (
        tmp_path / "ansible_collections" / "cubestudio" / "ascend" / "MANIFEST.json"
    ).is_file()
    result = subprocess.run(
        ["ansible-builder", "introspect", "--sanitize", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    found = yaml.safe_load(result.stdout)
    assert any(line.startswith("openssl") for line in found["system"]), found
    assert any(line.startswith("kubernetes") for line in found["python"]), found
