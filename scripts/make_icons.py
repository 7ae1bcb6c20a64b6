"""Render the app's icon (src/flyingchess/web/icons/icon.svg) to the PNG sizes a phone
asks for when the page is added to its home screen. Run after changing the SVG:

    python scripts/make_icons.py

Uses Playwright with Debian's chromium (or Playwright's own browser).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "src" / "flyingchess" / "web" / "icons"
SIZES = (192, 512)


def main() -> None:
    svg = (ICONS / "icon.svg").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for size in SIZES:
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                f"<style>html,body{{margin:0}}svg{{display:block;width:{size}px;height:{size}px}}</style>{svg}"
            )
            page.screenshot(path=str(ICONS / f"icon-{size}.png"), omit_background=True)
            page.close()
        browser.close()
    for size in SIZES:
        print(ICONS / f"icon-{size}.png", (ICONS / f"icon-{size}.png").stat().st_size, "bytes")


if __name__ == "__main__":
    main()
