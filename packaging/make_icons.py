"""Render the app icon set from `resources/icons/memoir.svg`.

    python packaging/make_icons.py            # writes into resources/icons/

Writes `memoir-<size>.png` for 16 ... 512 px (window icon, hicolor theme for the .deb),
`memoir.ico` (Windows: the executable and the installer) and `memoir.icns` (macOS .app).
The outputs are committed, so a build needs neither this script nor a display; run it again
after changing the SVG. Qt renders the SVG (no other image library needed); .ico and .icns
are written here directly, both as containers of PNG images, which every supported
Windows (Vista+) and macOS (10.7+) version reads.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, by pixel size (several types share a size: @2x).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"ic11", 32),
    (b"icp6", 64),
    (b"ic12", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic13", 256),
    (b"ic09", 512),
    (b"ic14", 512),
    (b"ic10", 1024),
)


def render(renderer: QSvgRenderer, size: int) -> bytes:
    """The SVG drawn centred on a transparent square of `size` px, as PNG bytes."""
    image = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setRenderHint(QPainter.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data)


def write_ico(path: Path, images: dict[int, bytes]) -> None:
    """ICONDIR + one ICONDIRENTRY per size + the PNG payloads (a 0 byte means 256 px)."""
    sizes = sorted(images)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, payload = b"", b""
    for size in sizes:
        png = images[size]
        dim = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset + len(payload))
        payload += png
    path.write_bytes(header + entries + payload)


def write_icns(path: Path, images: dict[int, bytes]) -> None:
    """'icns' + total length, then (type, length, PNG) elements; lengths include 8-byte headers."""
    body = b"".join(
        kind + struct.pack(">I", len(images[size]) + 8) + images[size] for kind, size in ICNS_TYPES
    )
    path.write_bytes(b"icns" + struct.pack(">I", len(body) + 8) + body)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (fonts, image plug-ins)
    renderer = QSvgRenderer(str(ICONS / "memoir.svg"))
    if not renderer.isValid():
        print("memoir.svg could not be read", file=sys.stderr)
        return 1
    sizes = sorted(set(PNG_SIZES) | set(ICO_SIZES) | {size for _, size in ICNS_TYPES})
    images = {size: render(renderer, size) for size in sizes}
    for size in PNG_SIZES:
        (ICONS / f"memoir-{size}.png").write_bytes(images[size])
    write_ico(ICONS / "memoir.ico", {size: images[size] for size in ICO_SIZES})
    write_icns(ICONS / "memoir.icns", images)
    for name in [f"memoir-{s}.png" for s in PNG_SIZES] + ["memoir.ico", "memoir.icns"]:
        print(ICONS / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
