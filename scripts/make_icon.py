#!/usr/bin/env python3
"""Draws Skill Studio's source icon (1024x1024 PNG, standard library only): a blue rounded
square holding three white cards, the skills a bundle stacks. `tauri icon` makes every size
the desktops ask for from it (see scripts/package.sh)."""

import struct
import sys
import zlib

SIZE = 1024


def coverage(d):
    """Anti-aliased coverage of a pixel whose centre is `d` pixels inside an edge."""
    return max(0.0, min(1.0, d + 0.5))


def rounded_rect(x, y, left, top, right, bottom, radius):
    """Signed distance (positive inside) from (x, y) to a rounded rectangle."""
    cx = min(max(x, left + radius), right - radius)
    cy = min(max(y, top + radius), bottom - radius)
    dx, dy = x - cx, y - cy
    inside_core = left + radius <= x <= right - radius or top + radius <= y <= bottom - radius
    if inside_core:
        return min(x - left, right - x, y - top, bottom - y)
    return radius - (dx * dx + dy * dy) ** 0.5


def pixel(x, y):
    bg = coverage(rounded_rect(x, y, 64, 64, 960, 960, 200))
    if bg == 0:
        return (0, 0, 0, 0)
    r, g, b = 0x25, 0x63, 0xEB  # the studio's primary blue
    white = 0.0
    for i, top in enumerate((250, 440, 630)):
        inset = 40 * (2 - i)
        white = max(white, coverage(rounded_rect(x, y, 230 + inset, top, 794 - inset, top + 140, 36)))
    r, g, b = (round(c + (255 - c) * white) for c in (r, g, b))
    return (r, g, b, round(255 * bg))


def png(width, height, rows):
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in rows)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "studio/icons/source.png"
    rows = [[pixel(x + 0.5, y + 0.5) for x in range(SIZE)] for y in range(SIZE)]
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, rows))
