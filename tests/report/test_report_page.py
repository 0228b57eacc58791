# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report's HTML page as Chromium renders it (Debian's chromium, headless).

Run by the verify step of the molecule scenario `report` on the files that playbooks/report.yml
wrote for two simulated nodes (REPORT_DIR); skipped without REPORT_DIR. What is read is the
rendered page, not the template's text: a copy of the page gets a probe script appended that
reports, from the laid-out document, each row's text and position and each cell's computed
colours, and what the page loaded; `chromium --dump-dom` returns the document after the probe
ran. The expectations come from the scenario (REPORT_UNHEALTHY_HOST, REPORT_DRIFTING).
A screenshot is written next to the report (report.png).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPORT_DIR = os.environ.get("REPORT_DIR", "")
pytestmark = pytest.mark.skipif(
    not REPORT_DIR,
    reason="REPORT_DIR (the report of the molecule scenario `report`) is not set",
)

PROBE = """
<script>
(function () {
  function rows(id) {
    var table = document.getElementById(id);
    if (!table) { return []; }
    return Array.prototype.map.call(table.querySelectorAll('tr'), function (tr) {
      return {
        top: tr.getBoundingClientRect().top,
        host: tr.getAttribute('data-host'),
        text: tr.innerText,
        cells: Array.prototype.map.call(tr.children, function (cell) {
          var style = getComputedStyle(cell);
          return {text: cell.innerText, key: cell.getAttribute('data-key'),
                  background: style.backgroundColor, color: style.color,
                  weight: style.fontWeight, visible: cell.getBoundingClientRect().width > 0};
        })
      };
    });
  }
  var probe = {
    title: document.title,
    text: document.body.innerText,
    resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
    nodes: rows('nodes'), chips: rows('chips'), drift: rows('drift')
  };
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(probe);
  document.body.appendChild(pre);
})();
</script>
"""
WHITE = {"rgba(0, 0, 0, 0)", "rgb(255, 255, 255)", "transparent"}


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Debian's chromium is not installed: run tools/bootstrap.sh debs")
    return path


def run_chromium(*args: str) -> str:
    result = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="module")
def page() -> dict:
    report = Path(REPORT_DIR) / "report.html"
    source = report.read_text(encoding="utf-8")
    probe_file = Path(REPORT_DIR) / "probe.html"
    probe_file.write_text(
        source.replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    try:
        dom = run_chromium("--window-size=1400,1000", "--dump-dom", probe_file.as_uri())
    finally:
        probe_file.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run in Chromium:\n" + dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def by_position(rows: list) -> list:
    """Data rows (not the header) in the order they are laid out on the page."""
    return sorted((r for r in rows if r["host"]), key=lambda r: r["top"])


def test_the_page_needs_no_network(page):
    assert page["resources"] == []
    source = (Path(REPORT_DIR) / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=|@import|url\(""", source, re.I)


def test_the_unhealthy_node_and_chip_are_shown_first(page):
    unhealthy = os.environ["REPORT_UNHEALTHY_HOST"]
    nodes = by_position(page["nodes"])
    assert nodes[0]["host"] == unhealthy, [r["host"] for r in nodes]
    assert "NOT OK" in nodes[0]["text"]
    chips = by_position(page["chips"])
    first = chips[0]
    assert first["host"] == unhealthy
    health = first["cells"][4]  # node, NPU, chip, name, health
    assert health["text"] != "OK", first["text"]
    assert health["background"] not in WHITE and health["color"] != "rgb(34, 34, 34)"
    assert all("OK" in r["cells"][4]["text"] for r in chips[1:]), (
        "one unhealthy chip only"
    )


def test_the_versions_that_differ_are_highlighted(page):
    drifting = set(os.environ["REPORT_DRIFTING"].split(","))
    nodes = by_position(page["nodes"])
    header = page["nodes"][0]["cells"]
    for row in nodes:
        for cell in row["cells"]:
            if cell["key"] is None:
                continue
            assert cell["visible"]
            if cell["key"] in drifting:
                assert cell["background"] not in WHITE, (row["host"], cell)
            else:
                assert cell["background"] in WHITE, (row["host"], cell)
    highlighted = {
        c["text"] for c in header if c["background"] != header[0]["background"]
    }
    labels = {"driver", "firmware", "CANN", "Docker runtime", "device plugin"}
    assert len(highlighted & labels) == len(drifting), highlighted
    # The minority's value is marked apart from the majority's.
    for key in drifting:
        colours = {
            next(c for c in r["cells"] if c["key"] == key)["background"] for r in nodes
        }
        assert len(colours) == 2, (key, colours)
    assert f"{len(drifting)} versions differ" in page["text"]
    drift_rows = [
        r for r in page["drift"] if r["cells"] and r["cells"][0]["text"] != "component"
    ]
    assert len(drift_rows) >= 2 * len(drifting)


def test_a_screenshot_of_the_page():
    shot = Path(REPORT_DIR) / "report.png"
    run_chromium(
        "--window-size=1500,820",
        f"--screenshot={shot}",
        (Path(REPORT_DIR) / "report.html").as_uri(),
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
