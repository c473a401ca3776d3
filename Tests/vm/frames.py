"""What a person sees, frame by frame (Tests/vm/power_on.py, docs/power-on.md): a capture of an
output reduced to a thumbnail, the thumbnail classified, and a filmstrip of thumbnails written as
a PNG. Pure: no VM, no files but the PNG's bytes; test_frames.py checks it on synthetic frames.

A frame is (width, height, RGB bytes). `thumbnail` reduces it `STEP` times each way, keeping a
lit pixel lit (a glyph's stroke between the samples lights its cell); `classify` reads a
thumbnail:

- "app": the test app's colour (Tests/vm/app.c paints every output in one colour) nearly
  everywhere;
- "splash": the theme's background (the reference's #0D7377, Plymouth's theme on the same colour)
  over most of the output;
- "black": nothing lit (a black frame, or an output that scans nothing out: QEMU's placeholder,
  "Display output is not active." centred on black, counts as black: a monitor shows no picture,
  and the guest's driver resetting the device shows it);
- "firmware": the firmware's picture as first captured (`firmware`, a thumbnail), unchanged;
- "console": black with light pixels (glyphs, a cursor) and nothing else lit;
- "mixed": anything else (a half-drawn frame, two pictures at once).
"""

from __future__ import annotations

import struct
import zlib

STEP = 8
TEAL = (0x0D, 0x73, 0x77)
MAGENTA = (0xFF, 0x00, 0xFF)
KINDS = ("firmware", "black", "console", "splash", "app", "mixed")
# The colour of each kind's bar under a thumbnail in a filmstrip.
BAR = {"firmware": (0x80, 0x80, 0x80), "black": (0x00, 0x00, 0x00), "console": (0xFF, 0xFF, 0xFF),
       "splash": TEAL, "app": MAGENTA, "mixed": (0xFF, 0xA5, 0x00), "none": (0x40, 0x40, 0x40)}


# Bytes of a pixel's channels that light it (a channel of 24 or more).
_LIT = bytes(0 if i < 24 else 1 for i in range(256))


def thumbnail(frame, step=STEP):
    """`frame` reduced `step` times each way: each cell the pixel at its top left, unless that is
    dark and the cell holds a lit pixel, then that pixel (a glyph's stroke or a cursor
    between the samples still lights its cell: the first lit pixel of its rows). (width, height, RGB
    bytes)."""
    width, height, pixels = frame
    stride = width * 3
    columns = len(range(0, width, step))
    rows = []
    for top in range(0, height, step):
        bottom = min(top + step, height)
        lit = 0
        for y in range(top, bottom):
            lit |= int.from_bytes(pixels[y * stride:(y + 1) * stride].translate(_LIT), "big")
        lit_row = lit.to_bytes(stride, "big")
        first = pixels[top * stride:(top + 1) * stride]
        row = bytearray(columns * 3)
        row[0::3], row[1::3], row[2::3] = first[0::3 * step], first[1::3 * step], first[2::3 * step]
        position = lit_row.find(1)
        while position >= 0:
            cell = position // (3 * step)
            if max(row[cell * 3:cell * 3 + 3]) < 24:
                left, right = cell * step, min((cell + 1) * step, width)
                for y in range(top, bottom):
                    segment = pixels[y * stride + left * 3:y * stride + right * 3]
                    found = segment.translate(_LIT).find(1)
                    if found >= 0:
                        row[cell * 3:cell * 3 + 3] = segment[found // 3 * 3:found // 3 * 3 + 3]
                        break
            position = lit_row.find(1, (cell + 1) * 3 * step)
        rows.append(bytes(row))
    return (columns, len(rows), b"".join(rows))


def _near(pixel, colour, tolerance):
    return abs(pixel[0] - colour[0]) <= tolerance and abs(pixel[1] - colour[1]) <= tolerance \
        and abs(pixel[2] - colour[2]) <= tolerance


def _pixels(frame):
    _, _, data = frame
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def same_picture(a, b, tolerance=8, share=0.99):
    """Two thumbnails of one size that agree on at least `share` of their pixels."""
    if a is None or b is None or a[:2] != b[:2]:
        return False
    pa, pb = _pixels(a), _pixels(b)
    return sum(_near(x, y, tolerance) for x, y in zip(pa, pb)) >= share * len(pa)


def classify(frame, firmware=None, app=MAGENTA, background=TEAL):
    """The kind of a thumbnail (module's docstring); `firmware`: the firmware's picture as first
    captured (a thumbnail), or None before it is known."""
    width, height, _ = frame
    pixels = _pixels(frame)
    total = len(pixels)
    if total == 0:
        return "black"
    if sum(_near(p, app, 24) for p in pixels) >= 0.9 * total:
        return "app"
    if sum(_near(p, background, 24) for p in pixels) >= 0.6 * total:
        return "splash"
    lit = [(i, p) for i, p in enumerate(pixels) if max(p) >= 24]
    if not lit:
        return "black"
    if firmware is not None and same_picture(frame, firmware):
        return "firmware"
    # Glyphs and a cursor are grey or white; anything coloured (a logo, a half-drawn splash) is
    # not the console.
    if any(max(p) - min(p) > 48 for _, p in lit):
        return "mixed"
    rows = {i // width for i, _ in lit}
    # QEMU's placeholder for an output with nothing scanned out ("Display output is not active.",
    # at the size the output had, 640x480 before it had any): one line of light text across the
    # middle, nothing else. A console writes from the top.
    if all(abs(row - height / 2) <= max(2, height / 24) for row in rows):
        return "black"
    return "console"


def runs(kinds):
    """[[kind, count], ...]: each run of one kind in `kinds`, in order."""
    out = []
    for kind in kinds:
        if out and out[-1][0] == kind:
            out[-1][1] += 1
        else:
            out.append([kind, 1])
    return out


# A 3x5 font for the times under a filmstrip's pictures.
GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", ".": "000000000000010", "s": "000011110001110",
    " ": "000000000000000", "-": "000000111000000",
}


def _text(canvas, width, x, y, text, scale=2, colour=(0xFF, 0xFF, 0xFF)):
    for ch in text:
        bits = GLYPHS.get(ch, GLYPHS[" "])
        for i, bit in enumerate(bits):
            if bit == "1":
                gx, gy = i % 3, i // 3
                for dy in range(scale):
                    for dx in range(scale):
                        o = ((y + gy * scale + dy) * width + x + gx * scale + dx) * 3
                        canvas[o:o + 3] = bytes(colour)
        x += 4 * scale


def filmstrip(rows, cell=(160, 100)):
    """A PNG of rows of frames: `rows` is a list of lists of (seconds, kind, thumbnail or None);
    each frame in a cell of `cell` (scaled to fit, nearest), its kind's colour in a bar under it,
    its time under that."""
    cw, ch = cell
    label = 16
    columns = max((len(r) for r in rows), default=1)
    width, height = columns * (cw + 4) + 4, len(rows) * (ch + 6 + label) + 4
    canvas = bytearray(bytes((0x30, 0x30, 0x30)) * (width * height))
    for r, row in enumerate(rows):
        for c, (seconds, kind, thumb) in enumerate(row):
            x0, y0 = 4 + c * (cw + 4), 4 + r * (ch + 6 + label)
            if thumb is not None:
                tw, th, data = thumb
                scale = max(tw / cw, th / ch)
                for y in range(ch):
                    sy = int(y * scale)
                    for x in range(cw):
                        sx = int(x * scale)
                        o = ((y0 + y) * width + x0 + x) * 3
                        if sx < tw and sy < th:
                            canvas[o:o + 3] = data[(sy * tw + sx) * 3:(sy * tw + sx) * 3 + 3]
                        else:
                            canvas[o:o + 3] = bytes((0x30, 0x30, 0x30))
            bar = bytes(BAR.get(kind, BAR["mixed"]))
            for y in range(y0 + ch, y0 + ch + 4):
                canvas[(y * width + x0) * 3:(y * width + x0 + cw) * 3] = bar * cw
            _text(canvas, width, x0 + 2, y0 + ch + 6, f"{seconds:.2f}s")
    return png(width, height, bytes(canvas))


def png(width, height, rgb):
    """An RGB PNG's bytes."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
