"""A font that only measures: every CJK character is one em wide, drawn as nothing anyone sees.

The report's charts keep their text as text (the reader's browser or the PDF renderer draws it,
with a Chinese font for Chinese), but matplotlib places labels, ticks and margins by measuring
each string with a font file. Measured with whatever Chinese font a machine happens to have,
the same report came out different on different machines; measured with DejaVu Sans alone,
Chinese text was measured with the width of a missing glyph, and warned about every character.

Chinese (and Japanese, Korean) characters are one em wide in every CJK font, so their width is
known without one: this module writes a TrueType file whose only glyph is an em-wide box mapped
to the CJK blocks. The charts measure Latin text with the DejaVu Sans that matplotlib ships and
fall back to this font for CJK: the same measure on every machine, fonts installed or not
(tco/exporters/charts.py). The file is built here, byte for byte the same each time
(`python -m tco.exporters.metrics_font`), and shipped as cjk-metrics.ttf; a test checks the
shipped file is this builder's output.

TrueType layout: Apple's TrueType Reference Manual and the OpenType specification (tables head,
hhea, maxp, OS/2, hmtx, cmap format 13, loca, glyf, name, post).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

FAMILY = "tco CJK metrics"
FILE = Path(__file__).with_name("cjk-metrics.ttf")
EM = 1000
# The one glyph's ink, inside its em-wide advance (a CJK glyph's usual box)
INK = (40, -80, 960, 840)  # xMin, yMin, xMax, yMax
ASCENT, DESCENT = 880, -120
# Full-width blocks: radicals, CJK punctuation, kana, bopomofo, enclosed and compatibility
# forms, the unified ideographs (extension A, the URO, the supplementary planes), compatibility
# ideographs and forms, fullwidth ASCII variants and signs (FF01-FF60, FFE0-FFE6).
RANGES = (
    (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3100, 0x312F), (0x3190, 0x33FF),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F),
    (0xFF01, 0xFF60), (0xFFE0, 0xFFE6), (0x20000, 0x2FA1F),
)


def _checksum(data: bytes) -> int:
    data += b"\0" * (-len(data) % 4)
    return sum(struct.unpack(f">{len(data) // 4}I", data)) & 0xFFFFFFFF


def _glyph() -> bytes:
    """A simple glyph: one contour, the four corners of INK, on-curve, int16 deltas."""
    x0, y0, x1, y1 = INK
    points = [(x0, y0), (x0, y1), (x1, y1), (x1, y0)]
    xs, ys, last = [], [], (0, 0)
    for x, y in points:
        xs.append(x - last[0])
        ys.append(y - last[1])
        last = (x, y)
    data = struct.pack(">hhhhhHH", 1, x0, y0, x1, y1, 3, 0) + bytes([1] * 4)
    data += struct.pack(">4h", *xs) + struct.pack(">4h", *ys)
    return data + b"\0" * (len(data) % 2)


def _name() -> bytes:
    names = {1: FAMILY, 2: "Regular", 3: FAMILY, 4: FAMILY, 5: "Version 1.0",
             6: FAMILY.replace(" ", "")}
    records, strings = b"", b""
    for name_id, text in names.items():
        raw = text.encode("utf-16-be")
        records += struct.pack(">6H", 3, 1, 0x409, name_id, len(raw), len(strings))
        strings += raw
    return struct.pack(">3H", 0, len(names), 6 + len(records)) + records + strings


def _cmap() -> bytes:
    groups = b"".join(struct.pack(">3I", lo, hi, 1) for lo, hi in RANGES)
    sub = struct.pack(">HHIII", 13, 0, 16 + len(groups), 0, len(RANGES)) + groups
    return struct.pack(">HH", 0, 1) + struct.pack(">HHI", 3, 10, 12) + sub


def _os2() -> bytes:
    return struct.pack(
        ">HhHHHhhhhhhhhhhh10s4I4sHHHhhhHHIIhhHHH",
        4, EM, 400, 5, 0,  # version, xAvgCharWidth, weight, width class, fsType
        650, 700, 0, 140, 650, 700, 0, 480, 50, 250, 0,  # sub/superscript, strikeout, family
        bytes(10), 0, 0, 0, 0, b"tco ",  # panose, ulUnicodeRange1-4, vendor id
        0x40, 0x3000, 0xFFFF,  # fsSelection REGULAR, first and last BMP character
        ASCENT, DESCENT, 0, ASCENT, -DESCENT,  # typo ascender/descender/gap, win ascent/descent
        0, 0, 0, EM // 2, 0, 0, 0)  # code pages, x-height, cap height, default/break char, context


def tables() -> dict[bytes, bytes]:
    glyf = _glyph()
    return {
        b"OS/2": _os2(),
        b"cmap": _cmap(),
        b"glyf": glyf,
        b"head": struct.pack(">IIIIHHqqhhhhHHhhh", 0x10000, 0x10000, 0, 0x5F0F3CF5, 0x3, EM,
                             0, 0, *INK, 0, 8, 2, 0, 0),
        b"hhea": struct.pack(">IhhhHhhhhhh5hH", 0x10000, ASCENT, DESCENT, 0, EM, 0, 0, INK[2],
                             1, 0, 0, 0, 0, 0, 0, 0, 2),
        b"hmtx": struct.pack(">HhHh", EM, 0, EM, INK[0]),
        b"loca": struct.pack(">3H", 0, 0, len(glyf) // 2),  # glyph 0 (.notdef) is empty
        b"maxp": struct.pack(">I14H", 0x10000, 2, 4, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0),
        b"name": _name(),
        b"post": struct.pack(">IIhhIIIII", 0x30000, 0, -100, 50, 0, 0, 0, 0, 0),
    }


def build() -> bytes:
    """The font file's bytes (the same on every call)."""
    parts = sorted(tables().items())
    n = len(parts)
    power = 1 << (n.bit_length() - 1)
    header = struct.pack(">IHHHH", 0x10000, n, power * 16, power.bit_length() - 1,
                         (n - power) * 16)
    offset = len(header) + 16 * n
    directory, body = b"", b""
    for tag, data in parts:
        directory += struct.pack(">4sIII", tag, _checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    font = bytearray(header + directory + body)
    head = offset + sum(len(d) + (-len(d) % 4) for t, d in parts if t < b"head")
    struct.pack_into(">I", font, head + 8, (0xB1B0AFBA - _checksum(bytes(font))) & 0xFFFFFFFF)
    return bytes(font)


if __name__ == "__main__":  # python -m tco.exporters.metrics_font [PATH]
    Path(sys.argv[1] if len(sys.argv) > 1 else FILE).write_bytes(build())
