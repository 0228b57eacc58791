# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures of the simulator tests (helpers live in simutil.py)."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ascend_sim import artifacts  # noqa: E402
from simutil import Packages, SimRoot  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "container: needs Docker and the node image (set ASCEND_SIM_SKIP_CONTAINER_TESTS=1 to skip)",
    )


@pytest.fixture(scope="session")
def packages(tmp_path_factory):
    """Every simulated package of every train, both architectures, all chips (built once)."""
    directory = str(tmp_path_factory.mktemp("artifacts"))
    entries = artifacts.build(directory)
    return Packages(directory, entries)


@pytest.fixture
def sim(tmp_path, monkeypatch, packages):
    root = tmp_path / "root"
    root.mkdir()
    return SimRoot(root, monkeypatch, packages)


@pytest.fixture
def node(sim):
    """A 910B3 x 8 machine with HwHiAiUser, ready for the driver."""
    sim.add_hwhiaiuser()
    sim.hw_init("--model", "910B3", "--cards", "8")
    return sim
