"""Reports opened in a real headless Chromium (the system's, through Playwright; no browser is
downloaded): each plot of a page screenshotted and checked for ink."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"


def chromium() -> str:
    found = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if found is None:
        why = "no chromium here (Debian: apt-get install chromium; .ci/sysdeps.sh test)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: CI must open the reports")
        pytest.skip(why)
    return found


def inks(png: bytes) -> int:
    """How many different colours a screenshot holds (1: blank)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return len(image.getcolors(maxcolors=1 << 20) or [])


def rendered_plots(page_file: Path | str) -> dict[str, int]:
    """Each figure of the page at ``page_file`` (a file, or a URL as a string; by its
    caption) and the colours of its screenshot, as Chromium draws it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("requestfailed", lambda req: errors.append(req.url))
            # a served report (/stats) loads once its build is done: slow on a busy machine
            page.goto(page_file if isinstance(page_file, str) else page_file.resolve().as_uri(),
                      timeout=120_000)
            out = {}
            figures = page.locator("figure")
            for i in range(figures.count()):
                figure = figures.nth(i)
                caption = figure.locator("figcaption").inner_text()
                box = figure.locator("svg").bounding_box()
                assert box is not None and box["width"] > 100 and box["height"] > 100, caption
                out[caption] = inks(figure.locator("svg").screenshot())
            assert errors == []
            return out
        finally:
            browser.close()
