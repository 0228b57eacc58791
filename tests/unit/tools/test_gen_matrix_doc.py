# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/gen_matrix_doc.py: the committed page is what the data gives, and --check notices drift."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def test_committed_page_is_up_to_date(load_tool):
    tool = load_tool("gen_matrix_doc")
    assert tool.main(["--check"]) == 0


def test_check_fails_on_a_stale_page(load_tool, tmp_path, capsys):
    tool = load_tool("gen_matrix_doc")
    page = tmp_path / "version-matrix.md"
    page.write_text(
        (ROOT / "docs" / "version-matrix.md")
        .read_text()
        .replace("| 24.1.RC3 | 8.0.RC3 |", "| 24.1.RC3 | 8.0.RC2 |")
    )
    assert tool.main(["--check", "--output", str(page)]) == 1
    assert "is stale: run python tools/gen_matrix_doc.py" in capsys.readouterr().err


def test_page_shows_guesses_and_evidence(load_tool):
    tool = load_tool("gen_matrix_doc")
    matrix = yaml.safe_load((ROOT / "data" / "version_matrix.yml").read_text())
    page = tool.render(matrix)
    assert "| 23.0.0 | 7.0.0 (also 7.0.1) **GUESS** | 5.0.0 **GUESS** |" in page
    assert (
        "| 23.0.RC2 (23.0.rc2.2) | 6.3.RC2 | 5.0.RC2 | \N{EN DASH} | DEP-5.0.6 |"
        in page
    )
    assert "**Assumption:** an upper bound ending in `.`" in page


def test_write_mode(load_tool, tmp_path):
    tool = load_tool("gen_matrix_doc")
    page = tmp_path / "out.md"
    assert tool.main(["--output", str(page)]) == 0
    assert page.read_text() == (ROOT / "docs" / "version-matrix.md").read_text()
