"""A real browser for the web view's tests: Debian's chromium, driven by Playwright through its
own driver (never a browser download of its own), headless, in a fresh profile.

Skipped only where the system browser is missing, and never in CI (``CI`` set): there a
missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-quic", "--autoplay-policy=no-user-gesture-required",
    # Several pages at once, as several phones and a TV: none of them is a background tab.
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{why}: CI must run the browser tests (sh .ci/sysdeps.sh test)")
    pytest.skip(why)


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser context in a fresh profile (a test module's ``scope="module"`` fixture)."""
    if not os.path.exists(CHROMIUM):
        _missing(f"no system browser at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (the test extra)")
    profile = tempfile.mkdtemp(prefix="uno-table-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS)
            context.set_default_timeout(20_000)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def open_page(browser: Any, opened: list[Any], url: str, width: int = 390,
              height: int = 844) -> Any:
    page = browser.new_page()
    opened.append(page)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url, timeout=120_000)  # /stats loads once its build is done: slow when busy
    return page


def png_alpha(path: Path, points: list[tuple[int, int]]) -> list[int]:
    """The alpha of some pixels of an 8-bit RGBA PNG (what a screenshot without a background
    is), read with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert (depth, color) == (8, 6), "an 8-bit RGBA PNG"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * 4
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 4] if x >= 4 else 0
            b = previous[x]
            c = previous[x - 4] if x >= 4 else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                near = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + near) & 0xFF
        rows.append(line)
        previous = line
    return [rows[y][x * 4 + 3] for x, y in points]
