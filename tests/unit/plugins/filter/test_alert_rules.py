# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The alert_rules filter on the exporter's rules file: the role's defaults give the file byte
for byte (what `make promtool` tests), another duration changes only its alert's `for:`, bad
input is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.filter.alert_rules import (
    FilterModule,
)

FILTER = FilterModule().filters()["alert_rules"]
ROLE = Path(__file__).resolve().parents[4] / "roles" / "exporter"
RULES = (ROLE / "files" / "ascend-npu.rules.yml").read_text(encoding="utf-8")


def role_durations():
    """The role's alert -> duration map (vars/main.yml) with the defaults filled in."""
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    mapping = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
    out = {}
    for alert, expression in mapping["__exporter_alert_durations"].items():
        name = expression.strip("{} ")
        out[alert] = defaults[name]
    return out


def fors(text):
    return {
        r["alert"]: r.get("for")
        for g in yaml.safe_load(text)["groups"]
        for r in g["rules"]
    }


def test_the_defaults_give_the_file_unchanged():
    durations = role_durations()
    # Every alert of the file has its variable.
    assert set(durations) == set(fors(RULES))
    assert FILTER(RULES, durations) == RULES


def test_a_duration_changes_only_its_alert():
    out = FILTER(RULES, {"AscendNpuTemperatureHigh": "20s"})
    assert fors(out) == dict(fors(RULES), AscendNpuTemperatureHigh="20s")
    changed = [(a, b) for a, b in zip(RULES.splitlines(), out.splitlines()) if a != b]
    assert changed == [("        for: 5m", "        for: 20s")]
    # The annotations' Prometheus templates are left alone.
    assert "{{ $labels.id }}" in out


@pytest.mark.parametrize(
    ("durations", "match"),
    [
        ({"AscendNpuTemperatureHigh": "5 minutes"}, "not a Prometheus duration"),
        ({"AscendNpuTemperatureHigh": 300}, "AscendNpuTemperatureHigh: '300'"),
        ({"AscendNpuTemperatureHigh": ""}, "not a Prometheus duration"),
        ({"AscendNpuTooHot": "1m"}, "no alert with a `for:` named AscendNpuTooHot"),
    ],
)
def test_bad_input_is_named(durations, match):
    with pytest.raises(AnsibleFilterError, match=match):
        FILTER(RULES, durations)


def test_input_types():
    with pytest.raises(AnsibleFilterError, match="as text"):
        FILTER(["x"], {})
    with pytest.raises(AnsibleFilterError, match="dict"):
        FILTER(RULES, ["20s"])
    assert FILTER(RULES, {"AscendNpuUnhealthy": "1h30m"}).count("for: 1h30m") == 1
