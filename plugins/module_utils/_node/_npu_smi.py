# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. Pure functions that turn the text printed by Huawei's ``npu-smi`` into data.
#
# Entry points (the simulator's golden tests import the first four names):
#   parse_info(text)          ``npu-smi info``                  -> dict (the ascend_npu_smi fact)
#   parse_key_values(text)    ``npu-smi info -t <type> -i N``   -> list of dicts, one per block
#   parse_list(text)          ``npu-smi info -l``               -> dict
#   NpuSmiParseError          the only exception raised on unexpected input
#   parse_mapping(text)       ``npu-smi info -m``               -> list of dicts
#   parse_board(text)         ``npu-smi info -t board -i N``    -> dict with snake_case keys
#   parse_template_info(text) ``npu-smi info -t template-info`` -> list of vNPU templates
#
# Health ranking ("worst" of several chips): OK < Warning < Alarm < Critical < anything else.
# Known values are reported in their canonical spelling (case-insensitive match); an unknown
# string ranks worst and is reported exactly as printed. ``0K`` (digit zero) appears only in
# hand-typed copies of the output, never from the tool itself, and is read as ``OK``.

from __future__ import annotations

import re

__all__ = [
    "HEALTH_ORDER",
    "NPU_SMI_ERROR_HINTS",
    "NpuSmiParseError",
    "excerpt",
    "health_rank",
    "normalize_health",
    "npu_smi_error",
    "parse_board",
    "parse_info",
    "parse_key_values",
    "parse_list",
    "parse_mapping",
    "parse_template_info",
    "worst_health",
]

HEALTH_ORDER = ("OK", "Warning", "Alarm", "Critical")
_HEALTH_CANON = {value.upper(): value for value in HEALTH_ORDER}
_HEALTH_CANON["0K"] = "OK"

# Spellings of "no value" in npu-smi tables.
_MISSING = ("NA", "N/A", "-", "--", "")

_EXCERPT_LINES = 6
_EXCERPT_WIDTH = 160

_VERSION_RE = re.compile(r"npu-smi\s+(?P<tool>\S+)\s+Version:\s*(?P<driver>[^\s|]+)")
_ERROR_CODE_RE = re.compile(r"\bret\s+is\s+(?P<code>-[0-9]+)")
_NO_PROCESS_RE = re.compile(
    r"No running processes found in NPU\s+[0-9]+", re.IGNORECASE
)
_PAIR_RE = re.compile(r"\s*/\s*")
_OUTER_PIPES_RE = re.compile(r"^\||\|$")
_INT_RE = re.compile(r"[0-9]+")
_SIGNED_INT_RE = re.compile(r"-?[0-9]+")
_FLOAT_RE = re.compile(r"-?[0-9]+\.[0-9]*")

# DCMI return codes that npu-smi prints as "dcmi module initialize failed. ret is <code>".
NPU_SMI_ERROR_HINTS = {
    "-8005": "the device is not started normally or is held by another container; free the "
    "device or restart it (reboot the node), then check the driver",
    "-8020": "the device is in use by another process or container",
}

# Words of the device table header (matched by prefix, lower case) -> internal field.
_ROW1_FIELDS = (("power", "power_w"), ("temp", "temp_c"), ("hugepages", "hugepages"))
_ROW2_FIELDS = (("aicore", "aicore_pct"), ("memory", "memory"), ("hbm", "hbm"))


class NpuSmiParseError(Exception):
    """The text is not what the npu-smi parser expects.

    ``str(error)`` is a one-line reason; ``error.excerpt`` holds a few lines of the offending
    input (at most six lines of 160 characters) to show to the user.
    """

    def __init__(self, message: str, excerpt: str = "") -> None:
        super().__init__(message)
        self.excerpt = excerpt


def _lines(text: str) -> list:
    """Lines of ``text`` whatever the newline convention; every message numbers these."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def excerpt(text: str, around: int | None = None) -> str:
    """A short, printable piece of ``text`` (starting near line index ``around`` if given)."""
    lines = _lines(text)
    start = 0 if around is None else max(0, around - 2)
    return "\n".join(
        line[:_EXCERPT_WIDTH] for line in lines[start : start + _EXCERPT_LINES]
    )


def _error(text: str, line_no: int | None, message: str) -> NpuSmiParseError:
    """A parse error for 0-based ``line_no`` of ``text`` (``line N:`` is 1-based)."""
    if line_no is None:
        return NpuSmiParseError(message, excerpt(text))
    return NpuSmiParseError(f"line {line_no + 1}: {message}", excerpt(text, line_no))


def _require_text(text) -> None:
    if not isinstance(text, str):
        raise NpuSmiParseError(
            f"npu-smi output must be text, got {type(text).__name__}"
        )


def normalize_health(value: str) -> str:
    """Canonical spelling of a known health value, else the value as printed (stripped)."""
    stripped = value.strip()
    return _HEALTH_CANON.get(stripped.upper(), stripped)


def health_rank(value: str) -> int:
    """Rank of a health value: 0 for OK up to 3 for Critical, 4 for anything unknown."""
    canon = normalize_health(value)
    if canon in HEALTH_ORDER:
        return HEALTH_ORDER.index(canon)
    return len(HEALTH_ORDER)


def worst_health(values) -> str | None:
    """The worst of several health values (the first wins among equals); None when empty."""
    worst = None
    for value in values:
        if worst is None or health_rank(value) > health_rank(worst):
            worst = value
    return worst


def npu_smi_error(text: str) -> str | None:
    """The DCMI error code printed as ``ret is <code>`` (e.g. ``-8005``), else None."""
    match = _ERROR_CODE_RE.search(text or "")
    return match.group("code") if match else None


def _cells(line: str) -> list:
    """Cells of a table line ``| a | b | c |`` (outer borders removed, each stripped)."""
    body = _OUTER_PIPES_RE.sub("", line.strip())
    return [cell.strip() for cell in body.split("|")]


def _is_border(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and stripped[0] == "+" and set(stripped) <= set("+-=")


def _is_missing(token: str) -> bool:
    return token.upper() in _MISSING


def _number(token: str, what: str, text: str, line_no: int):
    """int or float of a table value; None for NA and -."""
    if _is_missing(token):
        return None
    if _SIGNED_INT_RE.fullmatch(token):
        return int(token)
    if _FLOAT_RE.fullmatch(token):
        return float(token)
    raise _error(text, line_no, f"{what} is {token!r}, not a number")


def _pair(token: str, what: str, text: str, line_no: int) -> tuple:
    """(used, total) of a ``used/total`` value; (None, None) for NA and -."""
    if _is_missing(token):
        return None, None
    if "/" not in token:
        raise _error(text, line_no, f"{what} is {token!r}, expected 'used / total'")
    used, total = token.split("/", 1)
    return _number(used, what, text, line_no), _number(total, what, text, line_no)


def _int(token: str, what: str, text: str, line_no: int | None) -> int:
    if not _INT_RE.fullmatch(token or ""):
        raise _error(text, line_no, f"{what} is {token!r}, expected an integer")
    return int(token)


def _header_fields(cell: str, known: tuple) -> list:
    """Field name for each word of a header cell (None for a column we do not know)."""
    fields = []
    for word in cell.split():
        lowered = word.lower()
        fields.append(
            next((field for prefix, field in known if lowered.startswith(prefix)), None)
        )
    return fields


def _values(cell: str, fields: list, what: str, text: str, line_no: int) -> dict:
    """Assign the whitespace-separated values of a metrics cell to the header's fields."""
    tokens = _PAIR_RE.sub("/", cell).split()
    if len(tokens) != len(fields):
        raise _error(
            text,
            line_no,
            f"{what} has {len(tokens)} values but the header announces {len(fields)} columns",
        )
    return {field: token for field, token in zip(fields, tokens) if field is not None}


def _layout(header1: tuple, header2: tuple, text: str) -> dict:
    """Column layout announced by the two header lines of the device table."""
    line_no, cells1 = header1
    cells2 = header2[1]
    if len(cells1) < 3 or len(cells2) < 3:
        raise _error(text, line_no, "device table header has fewer than 3 columns")
    row1 = _header_fields(cells1[2], _ROW1_FIELDS)
    row2 = _header_fields(cells2[2], _ROW2_FIELDS)
    if "power_w" not in row1 or "aicore_pct" not in row2:
        raise _error(
            text, line_no, "device table header without Power(W) and AICore(%) columns"
        )
    words = cells2[0].split()
    second = None
    if len(words) > 1:
        lowered = words[1].lower()
        if lowered.startswith("device"):
            second = "device"
        elif lowered.startswith("phy"):
            second = "phy_id"
        else:
            second = "other"
    return {"row1": row1, "row2": row2, "second_column": second}


def _chip(row1: tuple, row2: tuple, layout: dict, text: str) -> tuple:
    """(npu id, name, chip dict) from the two lines of one chip block."""
    (no1, cells1), (no2, cells2) = row1, row2
    for line_no, cells in ((no1, cells1), (no2, cells2)):
        if len(cells) < 3:
            raise _error(
                text, line_no, f"device row has {len(cells)} cells, expected 3"
            )

    ident = cells1[0].split()
    if not ident:
        raise _error(text, no1, "NPU id missing")
    npu_id = _int(ident[0], "NPU id", text, no1)
    health = cells1[1]
    if not health:
        raise _error(text, no1, "health missing")
    chip_ident = cells2[0].split()
    if not chip_ident:
        raise _error(text, no2, "chip id missing")
    chip_no = _int(chip_ident[0], "chip id", text, no2)
    second = None
    if len(chip_ident) > 1:
        second = _int(chip_ident[1], "second chip column", text, no2)

    values1 = _values(cells1[2], layout["row1"], f"NPU {npu_id} row", text, no1)
    values2 = _values(cells2[2], layout["row2"], f"NPU {npu_id} chip row", text, no2)
    power = _number(values1["power_w"], "Power", text, no1)
    temp = (
        _number(values1["temp_c"], "Temp", text, no1) if "temp_c" in values1 else None
    )
    hugepages = (None, None)
    if "hugepages" in values1:
        hugepages = _pair(values1["hugepages"], "Hugepages-Usage", text, no1)
    memory = (None, None)
    if "memory" in values2:
        memory = _pair(values2["memory"], "Memory-Usage", text, no2)
    hbm = (None, None)
    if "hbm" in values2:
        hbm = _pair(values2["hbm"], "HBM-Usage", text, no2)
    bus_id = None if _is_missing(cells2[1]) else cells2[1]

    chip = {
        "chip": chip_no,
        "device": second if layout["second_column"] == "device" else None,
        "phy_id": second if layout["second_column"] == "phy_id" else None,
        "health": normalize_health(health),
        "power_w": None if power is None else float(power),
        "temp_c": temp,
        "hugepages_used": hugepages[0],
        "hugepages_total": hugepages[1],
        "bus_id": bus_id,
        "aicore_pct": _number(values2["aicore_pct"], "AICore", text, no2),
        "memory_used_mb": memory[0],
        "memory_total_mb": memory[1],
        "hbm_used_mb": hbm[0],
        "hbm_total_mb": hbm[1],
    }
    return npu_id, " ".join(ident[1:]), chip


def _process(line_no: int, cells: list, text: str) -> dict | None:
    """One process row as a dict; None for a 'No running processes found' row."""
    if _NO_PROCESS_RE.search(" ".join(cells)):
        return None
    if len(cells) < 4:
        raise _error(
            text, line_no, f"process row has {len(cells)} cells, expected 4 or 5"
        )
    ident = cells[0].split()
    if len(ident) != 2:
        raise _error(text, line_no, "process row must start with 'NPU Chip'")
    container_pid = None
    if len(cells) > 4:
        container_pid = _number(cells[4], "Process id in container", text, line_no)
    return {
        "npu": _int(ident[0], "NPU id", text, line_no),
        "chip": _int(ident[1], "chip id", text, line_no),
        "pid": _int(cells[1], "Process id", text, line_no),
        "name": cells[2],
        "memory_mb": _number(cells[3], "Process memory", text, line_no),
        "container_pid": container_pid,
    }


def _find_sections(lines: list, text: str) -> tuple:
    """Line numbers of the version header, both device table headers and the process header."""
    versions = header1 = header2 = process_header = None
    for line_no, line in enumerate(lines):
        if versions is None:
            match = _VERSION_RE.search(line)
            if match:
                versions = (match.group("tool"), match.group("driver"), line_no)
            continue
        if not line.strip().startswith("|"):
            continue
        cells = _cells(line)
        if header1 is None:
            if len(cells) >= 2 and "NPU" in cells[0] and "Health" in cells[1]:
                header1 = (line_no, cells)
            continue
        if header2 is None:
            if cells[0].split()[:1] != ["Chip"]:
                raise _error(
                    text, line_no, "expected the second header line ('Chip ... Bus-Id')"
                )
            header2 = (line_no, cells)
            continue
        if "Process id" in line:
            process_header = line_no
            break
    if versions is None:
        code = npu_smi_error(text)
        if code is not None:
            hint = NPU_SMI_ERROR_HINTS.get(
                code, "see Huawei's list of npu-smi error codes"
            )
            raise _error(text, None, f"npu-smi reports error {code}: {hint}")
        raise _error(
            text, None, "no 'npu-smi <version>  Version: <version>' header line found"
        )
    if header1 is None or header2 is None:
        raise _error(
            text,
            versions[2],
            "no device table header ('NPU Name | Health | ...') found",
        )
    return versions, header1, header2, process_header


def parse_info(text: str) -> dict:
    """Parse the output of ``npu-smi info`` into the ``ascend_npu_smi`` fact.

    Raises NpuSmiParseError when the text is not a complete device table.
    """
    _require_text(text)
    lines = _lines(text)
    versions, header1, header2, process_header = _find_sections(lines, text)
    layout = _layout(header1, header2, text)

    npus: list = []
    by_id: dict = {}
    pending = None
    end = len(lines) if process_header is None else process_header
    for line_no in range(header2[0] + 1, end):
        line = lines[line_no]
        if _is_border(line) or not line.strip():
            if pending is not None:
                raise _error(
                    text, pending[0], "chip block has only one of its two lines"
                )
            continue
        if not line.strip().startswith("|"):
            raise _error(text, line_no, "unexpected text in the device table")
        if pending is None:
            pending = (line_no, _cells(line))
            continue
        npu_id, name, chip = _chip(pending, (line_no, _cells(line)), layout, text)
        pending = None
        if npu_id not in by_id:
            by_id[npu_id] = {"id": npu_id, "name": name, "health": None, "chips": []}
            npus.append(by_id[npu_id])
        by_id[npu_id]["chips"].append(chip)
    if pending is not None:
        raise _error(text, pending[0], "output ends inside a chip block")
    if not npus:
        raise _error(text, header2[0], "the device table lists no NPU")
    for npu in npus:
        npu["health"] = worst_health(chip["health"] for chip in npu["chips"])

    processes = []
    if process_header is not None:
        for line_no in range(process_header + 1, len(lines)):
            line = lines[line_no]
            if _is_border(line) or not line.strip():
                continue
            if not line.strip().startswith("|"):
                raise _error(text, line_no, "unexpected text in the process table")
            process = _process(line_no, _cells(line), text)
            if process is not None:
                processes.append(process)

    chips = [chip for npu in npus for chip in npu["chips"]]
    return {
        "tool_version": versions[0],
        "driver_version": versions[1],
        "npu_count": len(npus),
        "chip_count": len(chips),
        "healthy": all(chip["health"] == "OK" for chip in chips),
        "npus": npus,
        "processes": processes,
    }


def parse_key_values(text: str) -> list:
    """Parse ``Key : value`` output (``npu-smi info -t board|health|usages|temp``, ``-l``).

    Blocks are separated by blank lines; a key that repeats inside a block also starts a new
    block. A line whose first non-blank character is ``:`` continues the previous value, even
    across blank lines (health's ``Error Information``); the parts are joined with a newline.
    Keys and values are returned as printed, stripped. Raises NpuSmiParseError on a line that
    is not ``Key : value`` (e.g. ``Invalid card id.``) and on text without any such line.
    """
    _require_text(text)
    blocks: list = []
    current: dict | None = None
    last_block: dict = {}  # the block and key that a ':' continuation line extends
    last_key = None
    for line_no, raw in enumerate(_lines(text)):
        line = raw.strip()
        if not line:
            current = None
            continue
        if line.startswith(":"):
            if last_key is None:
                raise _error(text, line_no, "continuation line without a key before it")
            addition = line[1:].strip()
            previous = last_block[last_key]
            last_block[last_key] = f"{previous}\n{addition}" if previous else addition
            continue
        if ":" not in line:
            raise _error(text, line_no, f"expected 'Key : value', got {line[:80]!r}")
        key, value = line.split(":", 1)
        key = key.strip()
        if current is None or key in current:
            current = {}
            blocks.append(current)
        current[key] = value.strip()
        last_block, last_key = current, key
    if not blocks:
        raise _error(text, None, "no 'Key : value' lines found")
    return blocks


def parse_list(text: str) -> dict:
    """Parse ``npu-smi info -l``: ``{total_count: int|None, npus: [{id, chip_count}]}``."""
    total = None
    npus: list = []
    for block in parse_key_values(text):
        for key, value in block.items():
            lowered = key.lower()
            if lowered == "total count":
                total = _int(value, key, text, None)
            elif lowered == "npu id":
                npus.append({"id": _int(value, key, text, None), "chip_count": None})
            elif lowered == "chip count":
                if not npus:
                    raise _error(text, None, "'Chip Count' before any 'NPU ID'")
                npus[-1]["chip_count"] = _int(value, key, text, None)
    if total is None and not npus:
        raise _error(
            text, None, "neither 'Total Count' nor 'NPU ID' in npu-smi info -l output"
        )
    return {"total_count": total, "npus": npus}


def parse_mapping(text: str) -> list:
    """Parse ``npu-smi info -m`` into ``[{npu, chip, logic_id, name}]``.

    ``logic_id`` is None where the tool prints ``-`` (the MCU of A2 boards, named ``Mcu``);
    whoever counts NPU chips skips the rows whose logic_id is None.
    """
    _require_text(text)
    rows = []
    seen_header = False
    for line_no, line in enumerate(_lines(text)):
        words = line.split()
        if not words:
            continue
        if not seen_header:
            if words[:2] != ["NPU", "ID"] or "Logic" not in words:
                raise _error(
                    text,
                    line_no,
                    "expected the 'NPU ID  Chip ID  Chip Logic ID' header",
                )
            seen_header = True
            continue
        if len(words) < 3:
            raise _error(
                text, line_no, f"mapping row has {len(words)} fields, expected 4"
            )
        logic = (
            None
            if _is_missing(words[2])
            else _int(words[2], "Chip Logic ID", text, line_no)
        )
        rows.append(
            {
                "npu": _int(words[0], "NPU ID", text, line_no),
                "chip": _int(words[1], "Chip ID", text, line_no),
                "logic_id": logic,
                "name": " ".join(words[3:]),
            }
        )
    if not rows:
        raise _error(text, None, "no rows in npu-smi info -m output")
    return rows


_BOARD_KEYS = (
    ("NPU ID", "npu_id"),
    ("Chip ID", "chip_id"),
    ("Product Name", "product_name"),
    ("Model", "model"),
    ("Manufacturer", "manufacturer"),
    ("Serial Number", "serial_number"),
    ("Software Version", "software_version"),
    ("Firmware Version", "firmware_version"),
    ("Compatibility", "compatibility"),
    ("Board ID", "board_id"),
    ("PCB ID", "pcb_id"),
    ("BOM ID", "bom_id"),
    ("PCIe Bus Info", "bus_id"),
    ("Slot ID", "slot_id"),
    ("Class ID", "class_id"),
    ("PCI Vendor ID", "vendor_id"),
    ("PCI Device ID", "device_id"),
    ("Subsystem Vendor ID", "subsystem_vendor_id"),
    ("Subsystem Device ID", "subsystem_device_id"),
    ("Chip Count", "chip_count"),
    ("Chip Type", "chip_type"),
    ("Chip Name", "chip_name"),
    ("Chip Version", "chip_version"),
)
_BOARD_INT_KEYS = ("npu_id", "chip_id", "chip_count", "slot_id")
_BOARD_HEX_KEYS = (
    "board_id",
    "vendor_id",
    "device_id",
    "subsystem_vendor_id",
    "subsystem_device_id",
)


def parse_board(text: str) -> dict:
    """Parse ``npu-smi info -t board -i N [-c C]`` into a dict with snake_case keys.

    Every name of ``_BOARD_KEYS`` is present (None where absent or ``NA``); counters and ids are
    ints, hexadecimal ids are lower-cased strings (``0x19e5``), and ``raw`` keeps every line as
    printed (first occurrence of each key).
    """
    raw: dict = {}
    for block in parse_key_values(text):
        for key, value in block.items():
            raw.setdefault(key, value)
    if "Board ID" not in raw and "Firmware Version" not in raw:
        raise _error(
            text,
            None,
            "npu-smi board output has neither 'Board ID' nor 'Firmware Version'",
        )
    board: dict = {}
    for printed, name in _BOARD_KEYS:
        value = raw.get(printed)
        if value is None or _is_missing(value):
            board[name] = None
        elif name in _BOARD_INT_KEYS:
            board[name] = int(value) if _INT_RE.fullmatch(value) else value
        elif name in _BOARD_HEX_KEYS:
            board[name] = value.lower()
        else:
            board[name] = value
    board["raw"] = raw
    return board


_TEMPLATE_COLUMNS = ("aicore", "memory_gb", "aicpu", "vpc", "venc", "jpegd")
_TEMPLATE_COLUMNS_2 = ("pngd", "vdec", "jpege")


def parse_template_info(text: str) -> list:
    """Parse ``npu-smi info -t template-info -i N`` (vNPU templates of 310P and 910 cards).

    Each template spans two table lines, ``name AICORE Memory AICPU VPC VENC JPEGD`` and
    ``PNGD VDEC JPEGE``. Returns ``[{name, aicore, memory_gb, aicpu, vpc, venc, jpegd, pngd,
    vdec, jpege}]`` with integer values.
    """
    _require_text(text)
    lines = _lines(text)
    start = next(
        (no + 1 for no, line in enumerate(lines) if _is_border(line) and "=" in line),
        None,
    )
    if start is None or not any("template" in line for line in lines[:start]):
        raise _error(text, None, "no vNPU template table found")
    templates = []
    pending = None
    for line_no in range(start, len(lines)):
        line = lines[line_no]
        if _is_border(line) or not line.strip():
            if pending is not None:
                raise _error(text, pending[0], "template has only one of its two lines")
            continue
        words = _cells(line)[0].split()
        if pending is None:
            if len(words) != len(_TEMPLATE_COLUMNS) + 1:
                raise _error(
                    text, line_no, f"template line has {len(words)} fields, expected 7"
                )
            pending = (line_no, words)
            continue
        if len(words) != len(_TEMPLATE_COLUMNS_2):
            raise _error(
                text, line_no, f"template line has {len(words)} fields, expected 3"
            )
        first_no, first = pending
        pending = None
        template = {"name": first[0]}
        for field, value in zip(_TEMPLATE_COLUMNS, first[1:]):
            template[field] = _int(value, field, text, first_no)
        for field, value in zip(_TEMPLATE_COLUMNS_2, words):
            template[field] = _int(value, field, text, line_no)
        templates.append(template)
    if pending is not None:
        raise _error(text, pending[0], "output ends inside a template")
    if not templates:
        raise _error(text, None, "the vNPU template table is empty")
    return templates
