# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The npu-smi parser on every real layout in fixtures/npu-smi, values transcribed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._npu_smi import (
    NpuSmiParseError,
    health_rank,
    normalize_health,
    npu_smi_error,
    parse_board,
    parse_info,
    parse_key_values,
    parse_list,
    parse_mapping,
    parse_template_info,
    worst_health,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "npu-smi"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


# One tuple per chip, in output order:
# (npu, name, chip, device, phy_id, health, power_w, temp_c, hugepages_used, hugepages_total,
#  bus_id, aicore_pct, memory_used_mb, memory_total_mb, hbm_used_mb, hbm_total_mb)
# fmt: off
EXPECTED_CHIPS = {
    "310-atlas200dk-21.0.3.1.txt": [
        (0, '310', 0, 0, None, 'OK', 12.8, 58, None, None, None, 0, 5324, 8192, None, None),
    ],
    "310b1-soc-23.0.rc3.txt": [
        (0, '310B1', 0, 0, None, 'OK', 8.9, 54, 15, 15, None, 0, 4974, 11577, None, None),
    ],
    "310p3-1card-22.0.0-driver-22.0.2.txt": [
        (0, '310P3', 0, 0, None, 'OK', 17.1, 55, 0, 0, '0000:87:00.0', 0, 927, 23054, None, None),
    ],
    "310p3-2card-23.0.rc3-readme.txt": [
        (0, '310P3', 0, 0, None, 'OK', None, 51, 996, 996, '0000:01:00.0', 0, 3841, 21527, None, None),
        (64, '310P3', 0, 1, None, 'OK', None, 48, 0, 0, '0000:06:00.0', 0, 1764, 21527, None, None),
    ],
    "310p3-300i-duo-1card-2chip-25.2.0-truncated.txt": [
        (2, '310P3', 0, 0, None, 'OK', None, 45, 0, 0, '0000:01:00.0', 0, 1529, 44280, None, None),
        (2, '310P3', 1, 1, None, 'OK', None, 43, 0, 0, '0000:01:00.0', 0, 1412, 43693, None, None),
    ],
    "910b2-2card-26.0.rc1-wide-with-container-pid.txt": [
        (0, '910B2', 0, None, None, 'OK', 424.0, 64, 0, 0, '0000:C1:00.0', 100, 0, 0, 38711, 65536),
        (1, '910B2', 0, None, None, 'OK', 93.6, 44, 0, 0, '0000:01:00.0', 0, 0, 0, 3406, 65536),
    ],
    "910b3-8card-23.0.7-with-processes.txt": [
        (0, '910B3', 0, None, None, 'OK', 98.3, 43, 0, 0, '0000:C1:00.0', 0, 0, 0, 59985, 65536),
        (1, '910B3', 0, None, None, 'OK', 96.6, 44, 0, 0, '0000:C2:00.0', 0, 0, 0, 59985, 65536),
        (2, '910B3', 0, None, None, 'OK', 96.3, 43, 0, 0, '0000:81:00.0', 0, 0, 0, 59988, 65536),
        (3, '910B3', 0, None, None, 'OK', 101.8, 46, 0, 0, '0000:82:00.0', 0, 0, 0, 59990, 65536),
        (4, '910B3', 0, None, None, 'OK', 91.3, 45, 0, 0, '0000:01:00.0', 0, 0, 0, 3353, 65536),
        (5, '910B3', 0, None, None, 'OK', 96.4, 47, 0, 0, '0000:02:00.0', 0, 0, 0, 3353, 65536),
        (6, '910B3', 0, None, None, 'OK', 97.5, 47, 0, 0, '0000:41:00.0', 0, 0, 0, 3352, 65536),
        (7, '910B3', 0, None, None, 'OK', 92.1, 49, 0, 0, '0000:42:00.0', 0, 0, 0, 3350, 65536),
    ],
    "910b4-4card-24.1.rc3-noprocs.txt": [
        (0, '910B4', 0, None, None, 'OK', 89.6, 48, 0, 0, '0000:C1:00.0', 0, 0, 0, 2859, 32768),
        (1, '910B4', 0, None, None, 'OK', 86.4, 46, 0, 0, '0000:01:00.0', 0, 0, 0, 2848, 32768),
        (2, '910B4', 0, None, None, 'OK', 87.8, 44, 0, 0, '0000:C2:00.0', 0, 0, 0, 2847, 32768),
        (3, '910B4', 0, None, None, 'OK', 93.2, 49, 0, 0, '0000:02:00.0', 0, 0, 0, 2847, 32768),
    ],
    "910prob-910a-8card-24.1.0-noprocs.txt": [
        (0, '910ProB', 0, None, None, 'OK', 78.0, 38, 0, 0, '0000:C1:00.0', 0, 2387, 13553, 18, 32768),
        (1, '910ProB', 0, None, None, 'OK', 75.8, 38, 0, 0, '0000:81:00.0', 0, 1840, 15665, 8, 32768),
        (2, '910ProB', 0, None, None, 'OK', 78.2, 39, 0, 0, '0000:41:00.0', 0, 2512, 15665, 5, 32768),
        (3, '910ProB', 0, None, None, 'OK', 76.5, 39, 0, 0, '0000:01:00.0', 0, 1645, 15567, 4, 32768),
        (4, '910ProB', 0, None, None, 'OK', 78.8, 38, 0, 0, '0000:C2:00.0', 0, 1520, 13553, 10, 32768),
        (5, '910ProB', 0, None, None, 'OK', 77.0, 38, 0, 0, '0000:82:00.0', 0, 2639, 15665, 14, 32768),
        (6, '910ProB', 0, None, None, 'OK', 83.0, 40, 0, 0, '0000:42:00.0', 0, 2143, 15665, 3, 32768),
        (7, '910ProB', 0, None, None, 'OK', 77.3, 38, 0, 0, '0000:02:00.0', 0, 2088, 15567, 2, 32768),
    ],
    "a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt": [
        (0, 'Ascend910', 0, None, 0, 'OK', 178.7, 37, 0, 0, '0000:9D:00.0', 0, 0, 0, 3419, 65536),
        (0, 'Ascend910', 1, None, 1, 'OK', None, 36, 0, 0, '0000:9F:00.0', 0, 0, 0, 3196, 65536),
        (1, 'Ascend910', 0, None, 2, 'OK', 186.4, 36, 0, 0, '0000:99:00.0', 0, 0, 0, 3413, 65536),
        (1, 'Ascend910', 1, None, 3, 'OK', None, 36, 0, 0, '0000:9B:00.0', 0, 0, 0, 3189, 65536),
        (2, 'Ascend910', 0, None, 4, 'OK', 177.2, 37, 0, 0, '0000:95:00.0', 0, 0, 0, 3412, 65536),
        (2, 'Ascend910', 1, None, 5, 'OK', None, 37, 0, 0, '0000:97:00.0', 0, 0, 0, 3190, 65536),
        (3, 'Ascend910', 0, None, 6, 'OK', 178.5, 36, 0, 0, '0000:91:00.0', 0, 0, 0, 3411, 65536),
        (3, 'Ascend910', 1, None, 7, 'OK', None, 37, 0, 0, '0000:93:00.0', 0, 0, 0, 3187, 65536),
        (4, 'Ascend910', 0, None, 8, 'OK', 180.6, 37, 0, 0, '0000:8D:00.0', 0, 0, 0, 3403, 65536),
        (4, 'Ascend910', 1, None, 9, 'OK', None, 37, 0, 0, '0000:8F:00.0', 0, 0, 0, 3200, 65536),
        (5, 'Ascend910', 0, None, 10, 'OK', 189.2, 36, 0, 0, '0000:89:00.0', 0, 0, 0, 3398, 65536),
        (5, 'Ascend910', 1, None, 11, 'OK', None, 36, 0, 0, '0000:8B:00.0', 0, 0, 0, 3202, 65536),
        (6, 'Ascend910', 0, None, 12, 'OK', 183.7, 39, 0, 0, '0000:85:00.0', 0, 0, 0, 3400, 65536),
        (6, 'Ascend910', 1, None, 13, 'OK', None, 37, 0, 0, '0000:87:00.0', 0, 0, 0, 3203, 65536),
        (7, 'Ascend910', 0, None, 14, 'OK', 186.1, 37, 0, 0, '0000:81:00.0', 0, 0, 0, 3418, 65536),
        (7, 'Ascend910', 1, None, 15, 'OK', None, 38, 0, 0, '0000:83:00.0', 0, 0, 0, 3187, 65536),
    ],
}
# fmt: on

# (tool_version, driver_version, npu_count, chip_count, npu ids in order)
# fmt: off
EXPECTED_HEADER = {
    "310-atlas200dk-21.0.3.1.txt": ('21.0.3.1', '21.0.3.1', 1, 1, [0]),
    "310b1-soc-23.0.rc3.txt": ('23.0.rc3', '23.0.rc3', 1, 1, [0]),
    "310p3-1card-22.0.0-driver-22.0.2.txt": ('22.0.0', '22.0.2', 1, 1, [0]),
    "310p3-2card-23.0.rc3-readme.txt": ('23.0.rc3', '23.0.rc3', 2, 2, [0, 64]),
    "310p3-300i-duo-1card-2chip-25.2.0-truncated.txt": ('25.2.0', '25.2.0', 1, 2, [2]),
    "910b2-2card-26.0.rc1-wide-with-container-pid.txt": ('26.0.rc1', '26.0.rc1', 2, 2, [0, 1]),
    "910b3-8card-23.0.7-with-processes.txt": ('23.0.7', '23.0.7', 8, 8, [0, 1, 2, 3, 4, 5, 6, 7]),
    "910b4-4card-24.1.rc3-noprocs.txt": ('24.1.rc3', '24.1.rc3', 4, 4, [0, 1, 2, 3]),
    "910prob-910a-8card-24.1.0-noprocs.txt": ('24.1.0', '24.1.0', 8, 8, [0, 1, 2, 3, 4, 5, 6, 7]),
    "a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt": ('24.1.rc3.7', '24.1.rc3.7', 8, 16, [0, 1, 2, 3, 4, 5, 6, 7]),
}
# fmt: on

CHIP_KEYS = (
    "chip",
    "device",
    "phy_id",
    "health",
    "power_w",
    "temp_c",
    "hugepages_used",
    "hugepages_total",
    "bus_id",
    "aicore_pct",
    "memory_used_mb",
    "memory_total_mb",
    "hbm_used_mb",
    "hbm_total_mb",
)

INFO_FIXTURES = sorted(EXPECTED_CHIPS)


def test_every_info_fixture_has_an_expectation():
    names = {
        path.name
        for path in FIXTURES.glob("*.txt")
        if not path.name.startswith(("npu-smi-info-", "npu-smi-upgrade-", "lspci-"))
    }
    assert names == set(EXPECTED_CHIPS)


@pytest.mark.parametrize("name", INFO_FIXTURES)
def test_parse_info_chips(name):
    fact = parse_info(fixture(name))
    got = []
    for npu in fact["npus"]:
        assert set(npu) == {"id", "name", "health", "chips"}
        for chip in npu["chips"]:
            assert set(chip) == set(CHIP_KEYS)
            got.append((npu["id"], npu["name"]) + tuple(chip[key] for key in CHIP_KEYS))
    assert got == EXPECTED_CHIPS[name]


@pytest.mark.parametrize("name", INFO_FIXTURES)
def test_parse_info_header_and_counts(name):
    fact = parse_info(fixture(name))
    tool, driver, npu_count, chip_count, ids = EXPECTED_HEADER[name]
    assert fact["tool_version"] == tool
    assert fact["driver_version"] == driver
    assert fact["npu_count"] == npu_count
    assert fact["chip_count"] == chip_count
    assert [npu["id"] for npu in fact["npus"]] == ids
    assert fact["healthy"] is True
    assert all(npu["health"] == "OK" for npu in fact["npus"])
    assert set(fact) == {
        "tool_version",
        "driver_version",
        "npu_count",
        "chip_count",
        "healthy",
        "npus",
        "processes",
    }


def test_power_is_float_and_temperature_int():
    chip = parse_info(fixture("910b2-2card-26.0.rc1-wide-with-container-pid.txt"))[
        "npus"
    ][0]["chips"][0]
    assert isinstance(chip["power_w"], float)
    assert isinstance(chip["temp_c"], int)


def test_processes_with_empty_names():
    fact = parse_info(fixture("910b3-8card-23.0.7-with-processes.txt"))
    assert fact["processes"] == [
        {
            "npu": 0,
            "chip": 0,
            "pid": 49943,
            "name": "",
            "memory_mb": 56681,
            "container_pid": None,
        },
        {
            "npu": 1,
            "chip": 0,
            "pid": 49944,
            "name": "",
            "memory_mb": 56681,
            "container_pid": None,
        },
        {
            "npu": 2,
            "chip": 0,
            "pid": 49945,
            "name": "",
            "memory_mb": 56681,
            "container_pid": None,
        },
        {
            "npu": 3,
            "chip": 0,
            "pid": 49946,
            "name": "",
            "memory_mb": 56681,
            "container_pid": None,
        },
    ]


def test_processes_wide_layout_with_container_pid():
    fact = parse_info(fixture("910b2-2card-26.0.rc1-wide-with-container-pid.txt"))
    assert fact["processes"] == [
        {
            "npu": 0,
            "chip": 0,
            "pid": 1504884,
            "name": "",
            "memory_mb": 35358,
            "container_pid": 412309,
        },
    ]


@pytest.mark.parametrize(
    "name",
    [
        "910b4-4card-24.1.rc3-noprocs.txt",
        "910prob-910a-8card-24.1.0-noprocs.txt",
        "a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt",
        "310-atlas200dk-21.0.3.1.txt",
        "310p3-300i-duo-1card-2chip-25.2.0-truncated.txt",
    ],
)
def test_no_processes(name):
    assert parse_info(fixture(name))["processes"] == []


def test_named_process_and_na_container_pid():
    text = fixture("910b2-2card-26.0.rc1-wide-with-container-pid.txt").replace(
        "| 0       0                 | 1504884       |                    | 35358                 | 412309                  |",
        "| 0       0                 | 1504884       | python3            | 35358                 | NA                      |",
    )
    assert parse_info(text)["processes"] == [
        {
            "npu": 0,
            "chip": 0,
            "pid": 1504884,
            "name": "python3",
            "memory_mb": 35358,
            "container_pid": None,
        },
    ]


def test_unhealthy_chip_makes_npu_and_fact_unhealthy():
    text = fixture("a3-ascend910-8npu-16chip-24.1.rc3.7-noprocs.txt")
    lines = text.split("\n")
    # Second die of NPU 3 (line 28, 1-based) turns to Alarm, first die of NPU 5 (line 37) to Warning.
    assert lines[27].startswith("| 3     Ascend910           | OK ")
    lines[27] = lines[27].replace("| OK ", "| Alarm", 1)
    assert lines[36].startswith("| 5     Ascend910           | OK ")
    lines[36] = lines[36].replace("| OK ", "| Warning", 1)
    fact = parse_info("\n".join(lines))
    assert fact["healthy"] is False
    health = {npu["id"]: npu["health"] for npu in fact["npus"]}
    assert health == {
        0: "OK",
        1: "OK",
        2: "OK",
        3: "Alarm",
        4: "OK",
        5: "Warning",
        6: "OK",
        7: "OK",
    }
    assert [chip["health"] for chip in fact["npus"][3]["chips"]] == ["OK", "Alarm"]


def test_zero_k_typo_is_ok_and_unknown_health_is_reported_as_printed():
    text = fixture("310p3-2card-23.0.rc3-readme.txt")
    text = text.replace(
        "| 0     310P3  | OK          |", "| 0     310P3  | 0K          |"
    )
    text = text.replace(
        "| 64    310P3  | OK          |", "| 64    310P3  | Abnormal    |"
    )
    fact = parse_info(text)
    assert [npu["health"] for npu in fact["npus"]] == ["OK", "Abnormal"]
    assert fact["healthy"] is False


def test_health_ranking():
    assert [
        health_rank(v) for v in ("OK", "Warning", "Alarm", "Critical", "Whatever")
    ] == [0, 1, 2, 3, 4]
    assert normalize_health(" ok ") == "OK"
    assert normalize_health("0K") == "OK"
    assert normalize_health("CRITICAL") == "Critical"
    assert normalize_health("Unknown state") == "Unknown state"
    assert worst_health(["OK", "Alarm", "Warning"]) == "Alarm"
    assert worst_health(["Critical", "Strange"]) == "Strange"
    assert worst_health(["OK", "Warning", "Warning"]) == "Warning"
    assert worst_health([]) is None


def test_crlf_output_parses_the_same():
    text = fixture("910b4-4card-24.1.rc3-noprocs.txt")
    assert parse_info(text.replace("\n", "\r\n")) == parse_info(text)


# --- errors -------------------------------------------------------------------------------

NPU_SMI_8005 = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi module initialize failed. ret is -8005\n"


def test_error_8005():
    with pytest.raises(NpuSmiParseError) as err:
        parse_info(NPU_SMI_8005)
    assert str(err.value).startswith(
        "npu-smi reports error -8005: the device is not started normally"
    )
    assert "dcmi module initialize failed. ret is -8005" in err.value.excerpt
    assert npu_smi_error(NPU_SMI_8005) == "-8005"
    assert npu_smi_error(fixture("910b4-4card-24.1.rc3-noprocs.txt")) is None


def test_error_8020_and_unknown_code():
    with pytest.raises(NpuSmiParseError, match="error -8020: the device is in use"):
        parse_info(
            "dcmi model initialized failed, because the device is used. ret is -8020"
        )
    with pytest.raises(NpuSmiParseError, match="error -9999: see Huawei's list"):
        parse_info("something failed. ret is -9999")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no 'npu-smi <version>  Version: <version>' header line found"),
        (
            "command not found\n",
            "no 'npu-smi <version>  Version: <version>' header line found",
        ),
        ("| npu-smi 23.0.7   Version: 23.0.7 |\n", "no device table header"),
        (
            "| npu-smi 23.0.7   Version: 23.0.7 |\n| NPU Name | Health | Power(W) Temp(C) |\n| X | Bus-Id | AICore(%) |\n",
            "line 3: expected the second header line",
        ),
        (
            "| npu-smi 23.0.7   Version: 23.0.7 |\n| NPU Name | Health | Temp(C) |\n| Chip | Bus-Id | AICore(%) |\n",
            "line 2: device table header without Power(W) and AICore(%) columns",
        ),
    ],
)
def test_structural_errors(text, message):
    with pytest.raises(NpuSmiParseError) as err:
        parse_info(text)
    assert message in str(err.value)


def test_table_without_rows():
    text = "\n".join(fixture("910b4-4card-24.1.rc3-noprocs.txt").split("\n")[:6])
    with pytest.raises(NpuSmiParseError, match="line 5: the device table lists no NPU"):
        parse_info(text)


def test_truncated_inside_a_block():
    text = "\n".join(fixture("910b4-4card-24.1.rc3-noprocs.txt").split("\n")[:13])
    with pytest.raises(
        NpuSmiParseError, match="line 13: output ends inside a chip block"
    ):
        parse_info(text)


def test_truncated_line_is_reported_with_its_number_and_excerpt():
    lines = fixture("910b3-8card-23.0.7-with-processes.txt").split("\n")
    lines[9] = lines[9][:40]
    with pytest.raises(NpuSmiParseError) as err:
        parse_info("\n".join(lines))
    assert str(err.value) == "line 10: device row has 2 cells, expected 3"
    assert lines[9] in err.value.excerpt
    assert len(err.value.excerpt.split("\n")) <= 6


def test_value_count_mismatch():
    text = fixture("910b4-4card-24.1.rc3-noprocs.txt").replace(
        "| 89.6        48 ", "| 89.6        48  7", 1
    )
    with pytest.raises(
        NpuSmiParseError,
        match="line 7: NPU 0 row has 4 values but the header announces 3 columns",
    ):
        parse_info(text)


def test_garbage_number():
    text = fixture("910b4-4card-24.1.rc3-noprocs.txt").replace("| 89.6 ", "| 8x.6 ", 1)
    with pytest.raises(
        NpuSmiParseError, match=r"line 7: Power is '8x.6', not a number"
    ):
        parse_info(text)


def test_garbage_pair():
    text = fixture("910b4-4card-24.1.rc3-noprocs.txt").replace(
        "2859 / 32768", "2859 - 32768", 1
    )
    with pytest.raises(NpuSmiParseError, match="line 8: NPU 0 chip row has 5 values"):
        parse_info(text)


def test_garbage_process_row():
    text = fixture("910b3-8card-23.0.7-with-processes.txt").replace(
        "| 49943         |", "| pid?          |"
    )
    with pytest.raises(
        NpuSmiParseError, match=r"line 34: Process id is 'pid\?', expected an integer"
    ):
        parse_info(text)


def test_text_after_table_is_refused():
    text = fixture("910b4-4card-24.1.rc3-noprocs.txt") + "Segmentation fault\n"
    with pytest.raises(
        NpuSmiParseError, match="line 30: unexpected text in the process table"
    ):
        parse_info(text)


def test_non_text_input():
    with pytest.raises(
        NpuSmiParseError, match="npu-smi output must be text, got bytes"
    ):
        parse_info(b"npu-smi")


# --- key/value outputs ----------------------------------------------------------------------


def test_key_values_health_ok():
    assert parse_key_values(fixture("npu-smi-info-t-health-i0-c0-ok.txt")) == [
        {"Health Status": "OK", "Error Code": "NA", "Error Information": "NA"},
    ]


def test_key_values_health_alarm_with_continuation_lines():
    assert parse_key_values(fixture("npu-smi-info-t-health-i0-c0-alarm-910.txt")) == [
        {
            "Health Status": "Alarm",
            "Error Code": "A4025021 8C03A000 8C084E00",
            "Error Information": "ascend_monitor adda heart beat lost error\n"
            "node type=process-manager, sensor type=General Software, "
            "event state=The process start failed or exit abnormally\n"
            "node type=adda, sensor type=Heartbeat Sensor, event state=Heartbeat Lost.",
        },
    ]


def test_key_values_temp_blocks():
    assert parse_key_values(fixture("npu-smi-info-t-temp-i0-910b-with-mcu.txt")) == [
        {"NPU ID": "0", "Chip Count": "1"},
        {"NPU Temperature (C)": "39", "Chip ID": "0"},
        {"LM75A_TE (C)": "36", "LM75B_TE (C)": "36", "Chip Name": "MCU"},
    ]


def test_key_values_usages_910a():
    blocks = parse_key_values(fixture("npu-smi-info-t-usages-i0-910a.txt"))
    assert len(blocks) == 2
    assert blocks[0] == {"NPU ID": "0", "Chip Count": "1"}
    assert blocks[1]["DDR Capacity(MB)"] == "13553"
    assert blocks[1]["HBM Capacity(MB)"] == "32768"
    assert blocks[1]["Chip ID"] == "0"
    assert len(blocks[1]) == 12


def test_key_values_usages_910b_has_a2_keys():
    blocks = parse_key_values(fixture("npu-smi-info-t-usages-i0-910b-25.5.1.txt"))
    assert blocks[1]["HBM Usage Rate(%)"] == "5"
    assert blocks[1]["Ctrlcpu Usage Rate(%)"] == "6"
    assert blocks[1]["Aivector Usage Rate(%)"] == "0"
    assert blocks[1]["NPU Utilization(%)"] == "0"
    assert blocks[1]["Aicube Usage Rate(%)"] == "0"
    assert len(blocks[1]) == 15


def test_repeated_key_starts_a_new_block():
    assert parse_key_values("NPU ID : 0\nChip ID : 0\nChip ID : 1\n") == [
        {"NPU ID": "0", "Chip ID": "0"},
        {"Chip ID": "1"},
    ]


def test_key_values_error_output_is_refused():
    with pytest.raises(NpuSmiParseError) as err:
        parse_key_values(fixture("npu-smi-info-t-board-invalid-card-id-error.txt"))
    assert str(err.value) == "line 1: expected 'Key : value', got 'Invalid card id.'"
    assert err.value.excerpt.startswith("Invalid card id.\nError parameter of -i")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no 'Key : value' lines found"),
        ("\n\n", "no 'Key : value' lines found"),
        (": orphan", "line 1: continuation line without a key before it"),
    ],
)
def test_key_values_errors(text, message):
    with pytest.raises(NpuSmiParseError, match=message):
        parse_key_values(text)


def test_parse_list():
    assert parse_list(fixture("npu-smi-info-l-910b4-8card.txt")) == {
        "total_count": 8,
        "npus": [{"id": n, "chip_count": 1} for n in range(8)],
    }


def test_parse_list_errors():
    with pytest.raises(
        NpuSmiParseError, match="Total Count is 'eight', expected an integer"
    ):
        parse_list("Total Count : eight")
    with pytest.raises(NpuSmiParseError, match="'Chip Count' before any 'NPU ID'"):
        parse_list("Chip Count : 1")
    with pytest.raises(NpuSmiParseError, match="neither 'Total Count' nor 'NPU ID'"):
        parse_list("Health Status : OK")


def test_parse_mapping_marks_the_mcu():
    rows = parse_mapping(fixture("npu-smi-info-m-910b4-8card.txt"))
    assert len(rows) == 16
    assert rows[0] == {"npu": 0, "chip": 0, "logic_id": 0, "name": "Ascend 910B4"}
    assert rows[1] == {"npu": 0, "chip": 1, "logic_id": None, "name": "Mcu"}
    assert rows[14] == {"npu": 7, "chip": 0, "logic_id": 7, "name": "Ascend 910B4"}
    assert [row["logic_id"] for row in rows if row["logic_id"] is not None] == list(
        range(8)
    )


def test_parse_mapping_errors():
    with pytest.raises(
        NpuSmiParseError,
        match="line 1: expected the 'NPU ID  Chip ID  Chip Logic ID' header",
    ):
        parse_mapping("0 0 0 Ascend 910B4")
    with pytest.raises(NpuSmiParseError, match="no rows"):
        parse_mapping("NPU ID  Chip ID  Chip Logic ID  Chip Name\n")


def test_parse_board_910b():
    board = parse_board(fixture("npu-smi-info-t-board-i0-910b-25.5.1.txt"))
    raw = board.pop("raw")
    assert board == {
        "npu_id": 0,
        "chip_id": None,
        "product_name": "IT21HMDC_Bin5",
        "model": None,
        "manufacturer": "Huawei",
        "serial_number": "1025C9048791",
        "software_version": "25.5.1",
        "firmware_version": "7.8.0.6.201",
        "compatibility": "OK",
        "board_id": "0x60",
        "pcb_id": "A",
        "bom_id": "1",
        "bus_id": "0000:C1:00.0",
        "slot_id": 0,
        "class_id": None,
        "vendor_id": "0x19e5",
        "device_id": "0xd802",
        "subsystem_vendor_id": "0x19e5",
        "subsystem_device_id": "0x3003",
        "chip_count": 1,
        "chip_type": None,
        "chip_name": None,
        "chip_version": None,
    }
    assert raw["PCI Device ID"] == "0xD802"
    assert len(raw) == 19


def test_parse_board_910a():
    board = parse_board(fixture("npu-smi-info-t-board-i0-910a-23.0.5.txt"))
    assert board["board_id"] == "0x02"
    assert board["firmware_version"] == "7.1.0.7.220"
    assert board["software_version"] == "23.0.5"
    assert board["device_id"] == "0xd801"
    assert board["subsystem_vendor_id"] == "0x0200"
    assert board["product_name"] is None


def test_parse_board_chip_level():
    board = parse_board(fixture("npu-smi-info-t-board-i0-c0-910a-23.0.5.txt"))
    assert board["chip_id"] == 0
    assert board["chip_type"] == "Ascend"
    assert board["chip_name"] == "xxx"
    assert board["chip_version"] == "V1"
    assert board["pcb_id"] is None
    assert board["raw"]["VDie ID"] == "42C711D4 20B03704 4A10C8D4 14CC040A D2102003"


def test_parse_board_refuses_other_outputs():
    with pytest.raises(
        NpuSmiParseError, match="neither 'Board ID' nor 'Firmware Version'"
    ):
        parse_board(fixture("npu-smi-info-t-health-i0-c0-ok.txt"))
    with pytest.raises(NpuSmiParseError, match="Invalid card id"):
        parse_board(fixture("npu-smi-info-t-board-invalid-card-id-error.txt"))


def test_parse_template_info():
    templates = parse_template_info(
        fixture("npu-smi-info-t-template-info-i7-310p3.txt")
    )
    assert [t["name"] for t in templates] == [
        "vir01",
        "vir02",
        "vir02_1c",
        "vir04",
        "vir04_3c",
        "vir04_3c_ndvpp",
        "vir04_4c_dvpp",
    ]
    assert templates[0] == {
        "name": "vir01",
        "aicore": 1,
        "memory_gb": 3,
        "aicpu": 1,
        "vpc": 1,
        "venc": 0,
        "jpegd": 2,
        "pngd": 0,
        "vdec": 1,
        "jpege": 1,
    }
    assert templates[6] == {
        "name": "vir04_4c_dvpp",
        "aicore": 4,
        "memory_gb": 12,
        "aicpu": 4,
        "vpc": 12,
        "venc": 3,
        "jpegd": 16,
        "pngd": 0,
        "vdec": 12,
        "jpege": 8,
    }


def test_parse_template_info_errors():
    with pytest.raises(NpuSmiParseError, match="no vNPU template table found"):
        parse_template_info(fixture("910b4-4card-24.1.rc3-noprocs.txt"))
    text = fixture("npu-smi-info-t-template-info-i7-310p3.txt").split("\n")
    with pytest.raises(
        NpuSmiParseError, match="line 6: template has only one of its two lines"
    ):
        parse_template_info("\n".join(text[:6] + text[7:]))
