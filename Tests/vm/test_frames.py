"""frames.py, the power-on filmstrip's classifier, on synthetic frames: each kind a person can see
(docs/power-on.md), and the frames that must not pass for another."""

import struct
import zlib

import frames

W, H = 1280, 800
BLACK, WHITE, GREY = (0, 0, 0), (0xFF, 0xFF, 0xFF), (0xAA, 0xAA, 0xAA)
TEAL, MAGENTA = frames.TEAL, frames.MAGENTA


def frame(width=W, height=H, colour=BLACK, boxes=()):
    """A frame of `colour` with `boxes` ((x0, y0, x1, y1, colour), ...) painted over it."""
    pixels = bytearray(bytes(colour) * (width * height))
    for x0, y0, x1, y1, c in boxes:
        for y in range(y0, y1):
            pixels[(y * width + x0) * 3:(y * width + x1) * 3] = bytes(c) * (x1 - x0)
    return (width, height, bytes(pixels))


def text_lines(x0, y0, lines, columns, colour=GREY):
    """Console-like glyphs: 8x16 cells, each a few vertical strokes, `columns` per line."""
    boxes = []
    for line in range(lines):
        for column in range(columns):
            x, y = x0 + column * 8, y0 + line * 16
            boxes += [(x + 1, y + 2, x + 2, y + 14, colour), (x + 1, y + 2, x + 7, y + 3, colour), (x + 5, y + 2, x + 6, y + 14, colour)]
    return boxes


def kind(f, firmware=None):
    return frames.classify(frames.thumbnail(f), None if firmware is None else frames.thumbnail(firmware))


# The firmware's logo: a coloured emblem above the middle, on black (OVMF's BGRT is such a picture).
LOGO = [(560, 250, 720, 330, (0xC0, 0x20, 0x40)), (600, 270, 680, 310, (0x20, 0x60, 0xC0))]


def test_the_app_and_the_splash():
    assert kind(frame(colour=MAGENTA)) == "app"
    assert kind(frame(colour=TEAL)) == "splash"
    # The reference splash: logo and name on the background.
    assert kind(frame(colour=TEAL, boxes=[(585, 305, 695, 415, WHITE), (520, 444, 760, 484, WHITE)])) == "splash"
    # Plymouth's spinner on the same background.
    assert kind(frame(colour=TEAL, boxes=[(620, 540, 660, 580, WHITE)])) == "splash"


def test_black_and_an_output_with_nothing_scanned_out():
    assert kind(frame()) == "black"
    # QEMU's placeholder: "Display output is not active." across the middle of 640x480, or of
    # the size the output had before the guest's driver reset it.
    assert kind(frame(640, 480, boxes=text_lines(200, 232, 1, 30, WHITE))) == "black"
    assert kind(frame(boxes=text_lines(520, 392, 1, 30, WHITE))) == "black"
    # The same line of text at the top of an output is console text, not the placeholder.
    assert kind(frame(640, 480, boxes=text_lines(0, 0, 1, 30, WHITE))) == "console"


def test_console_text_and_a_lone_cursor():
    assert kind(frame(boxes=text_lines(0, 0, 12, 80))) == "console"
    # A screen full of it.
    assert kind(frame(boxes=text_lines(0, 0, 50, 160, WHITE))) == "console"
    # fbcon's cursor alone, on an otherwise black screen: an underscore-like block in the first
    # cell (wider than a sample step, as a real cursor on a 1280 wide console is not: one 8x2
    # block could fall between samples, which is why the capture counts runs, not single frames).
    assert kind(frame(boxes=[(0, 8, 16, 24, GREY)])) == "console"


def test_the_firmwares_logo_is_known_by_its_first_capture():
    logo = frame(boxes=LOGO)
    assert kind(logo, firmware=logo) == "firmware"
    # Before the firmware's picture is known, a coloured logo on black is not the console.
    assert kind(logo) == "mixed"
    # The logo with text under it (a kernel's or a firmware's lines) is not the firmware's picture.
    assert kind(frame(boxes=LOGO + text_lines(0, 600, 6, 100)), firmware=logo) != "firmware"
    # Another picture than the firmware's, on black, is not it either.
    assert kind(frame(boxes=[(100, 100, 260, 180, (0xC0, 0x20, 0x40))]), firmware=logo) == "mixed"


def test_half_drawn_and_two_pictures_at_once_are_mixed():
    assert kind(frame(colour=TEAL, boxes=[(0, 0, W, 480, BLACK)])) == "mixed"
    assert kind(frame(colour=TEAL, boxes=[(0, 0, W, 400, MAGENTA)])) == "mixed"
    assert kind(frame(colour=MAGENTA, boxes=[(0, 0, 400, H, TEAL)])) == "mixed"


def test_thumbnails_keep_every_eighth_pixel():
    f = frame(boxes=[(8, 16, 9, 17, WHITE)])
    w, h, pixels = frames.thumbnail(f)
    assert (w, h) == (160, 100) and len(pixels) == w * h * 3
    assert pixels[(2 * w + 1) * 3:(2 * w + 1) * 3 + 3] == bytes(WHITE)
    assert frames.thumbnail(frame(1024, 768))[:2] == (128, 96)


def test_runs_and_the_same_picture():
    assert frames.runs(["black", "black", "splash", "app", "app"]) == [["black", 2], ["splash", 1], ["app", 2]]
    a = frames.thumbnail(frame(colour=TEAL))
    assert frames.same_picture(a, a)
    assert not frames.same_picture(a, frames.thumbnail(frame(colour=TEAL, boxes=[(0, 0, 640, 800, WHITE)])))
    assert not frames.same_picture(a, frames.thumbnail(frame(1024, 768, colour=TEAL)))


def test_a_filmstrip_is_a_png_of_its_cells():
    thumb = frames.thumbnail(frame(colour=TEAL))
    data = frames.filmstrip([[(0.0, "firmware", thumb), (1.25, "splash", thumb)], [(2.5, "app", None)]])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (2 * 164 + 4, 2 * 122 + 4)
    idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
    raw = zlib.decompress(idat)
    assert len(raw) == height * (1 + width * 3)
    # The first cell's first pixel: the thumbnail's teal.
    row = 4 * (1 + width * 3) + 1
    assert raw[row + 4 * 3:row + 5 * 3] == bytes(TEAL)
