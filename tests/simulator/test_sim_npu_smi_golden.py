# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Golden tests: the simulated npu-smi against the real samples.

Each golden/*.json holds the simulator state that matches one real sample of
tests/unit/plugins/module_utils/fixtures/npu-smi/ and how to compare:

* ``exact``: the output is byte-for-byte the sample (pristine captures);
* ``prefix``: the sample ends after the device table (README copies of 310/310B/310P output
  and the truncated 300I Duo issue excerpt), so the output must start with the whole sample;
* ``dedent``: Huawei doc examples whose Markdown indentation was removed (and the tab-indented
  health capture): equal line by line once leading blanks are removed;
* ``keys``: the doc example masks the chip name and die ids: every other key is compared;
* ``parsed``: the 310P 2-card README table was narrowed by hand (columns squeezed), so only
  the parsed structure can match.

On top of the text comparison, the collection's parser must read the simulator's output and
the real sample to the same structure, field by field.
"""

from __future__ import annotations

import glob
import json
import os

import pytest
from ascend_sim import npusmi
from simutil import HERE, read_fixture

from ansible_collections.cubestudio.ascend.plugins.module_utils._node import _npu_smi

GOLDEN = sorted(glob.glob(os.path.join(HERE, "golden", "*.json")))


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def render(doc, tmp_path):
    """(rc, output) of the simulated npu-smi for a golden document."""
    root = tmp_path / "root"
    (root / "dev").mkdir(parents=True)
    for npu in doc["state"]["npus"]:
        for chip in npu["chips"]:
            (root / "dev" / ("davinci%d" % chip["device"])).write_text("")
    for path, text in doc.get("files", {}).items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    ctx = npusmi.Context(
        root=str(root), state=doc["state"], driver_version=doc.get("driver_version")
    )
    return npusmi.run(doc["argv"], ctx)


def _dedent(text):
    return [line.strip() for line in text.splitlines()]


def _topo(text):
    """The matrix of npu-smi info -t topo: {row: [cells..., CPU affinity]}, the legend apart
    (no parser of the collection reads it; vllm-ascend takes the last column)."""
    rows = {}
    for line in text.split("\n\nLegend:")[0].splitlines()[1:]:
        words = line.split()
        rows[words[0]] = words[1:]
    return rows


def _parse(doc, text):
    argv = doc["argv"]
    if "topo" in argv:
        return _topo(text)
    if argv == ["info"]:
        return _npu_smi.parse_info(text)
    if "-l" in argv:
        return _npu_smi.parse_list(text)
    if "-m" in argv:
        return _npu_smi.parse_mapping(text)
    if "board" in argv and "-c" not in argv:
        board = _npu_smi.parse_board(text)
        board.pop("raw")
        return board
    return _npu_smi.parse_key_values(text)


def test_golden_documents_cover_the_samples():
    samples = {_load(path)["sample"] for path in GOLDEN}
    fixtures = {
        os.path.basename(p)
        for p in glob.glob(
            os.path.join(
                HERE,
                "..",
                "unit",
                "plugins",
                "module_utils",
                "fixtures",
                "npu-smi",
                "*.txt",
            )
        )
    }
    # Every npu-smi sample except the vNPU template table (not simulated) and lspci has a
    # golden state.
    assert fixtures - samples == {
        "npu-smi-info-t-template-info-i7-310p3.txt",
        "lspci-grep-acce-910-d801.txt",
    }


@pytest.mark.parametrize("path", GOLDEN, ids=[os.path.basename(p)[:-5] for p in GOLDEN])
def test_text_matches_the_real_sample(path, tmp_path):
    doc = _load(path)
    sample = read_fixture("npu-smi", doc["sample"])
    rc, text = render(doc, tmp_path)
    assert rc == doc.get("rc", 0)
    compare = doc["compare"]
    if compare == "exact":
        assert text == sample
    elif compare == "prefix":
        assert text.startswith(sample)
        assert len(text) > len(sample)  # the process table that the copy left out
    elif compare == "dedent":
        assert _dedent(text) == _dedent(sample)
    elif compare == "keys":
        ours = _npu_smi.parse_key_values(text)
        real = _npu_smi.parse_key_values(sample)
        for block in ours + real:
            for key in doc["ignore_keys"]:
                assert key in block
                block.pop(key)
        assert ours == real
    else:
        assert compare == "parsed"
        assert text != sample


@pytest.mark.parametrize("path", GOLDEN, ids=[os.path.basename(p)[:-5] for p in GOLDEN])
def test_parser_reads_simulator_and_sample_alike(path, tmp_path):
    doc = _load(path)
    sample = read_fixture("npu-smi", doc["sample"])
    rc, text = render(doc, tmp_path)
    if rc != 0:
        with pytest.raises(_npu_smi.NpuSmiParseError):
            _npu_smi.parse_key_values(text)
        with pytest.raises(_npu_smi.NpuSmiParseError):
            _npu_smi.parse_key_values(sample)
        return
    ours = _parse(doc, text)
    real = _parse(doc, sample)
    if doc["compare"] == "keys":
        for block in ours + real:
            for key in doc["ignore_keys"]:
                block.pop(key)
    if isinstance(real, dict) and "npus" in real and "tool_version" in real:
        # Field by field first, for a readable failure.
        for key in (
            "tool_version",
            "driver_version",
            "npu_count",
            "chip_count",
            "healthy",
        ):
            assert ours[key] == real[key], key
        for npu_ours, npu_real in zip(ours["npus"], real["npus"]):
            assert npu_ours["id"] == npu_real["id"]
            assert npu_ours["name"] == npu_real["name"]
            for chip_ours, chip_real in zip(npu_ours["chips"], npu_real["chips"]):
                for field, value in chip_real.items():
                    assert chip_ours[field] == value, (npu_real["id"], field)
        assert ours["processes"] == real["processes"]
    assert ours == real


def test_a3_sample_shows_the_second_die_power_as_dash(tmp_path):
    doc = _load(
        os.path.join(HERE, "golden", "a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.json")
    )
    _rc, text = render(doc, tmp_path)
    parsed = _npu_smi.parse_info(text)
    assert [chip["phy_id"] for npu in parsed["npus"] for chip in npu["chips"]] == list(
        range(16)
    )
    assert all(npu["chips"][1]["power_w"] is None for npu in parsed["npus"])
    assert "| 0     Ascend910           | OK            | -           36" in text


def test_wide_layout_is_chosen_from_the_tool_version(tmp_path):
    doc = _load(os.path.join(HERE, "golden", "910b4-4card-24.1.rc3-noprocs.json"))
    doc["state"]["npu_smi_version"] = "25.5.0"
    doc["driver_version"] = "25.5.0"
    _rc, text = render(doc, tmp_path)
    lines = text.splitlines()
    assert {len(line) for line in lines} == {116}
    assert "Process id in container" in text
    parsed = _npu_smi.parse_info(text)
    assert parsed["npu_count"] == 4
    assert parsed["npus"][0]["chips"][0]["hbm_total_mb"] == 32768
