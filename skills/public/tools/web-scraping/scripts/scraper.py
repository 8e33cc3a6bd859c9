"""Render a JavaScript page and return its HTML (carried as an asset, never run by skillc)."""

from playwright.sync_api import sync_playwright


def render_page(url: str, wait_ms: int = 1000) -> str:
    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()
        page.goto(url)
        page.wait_for_timeout(wait_ms)
        html = page.content()
        browser.close()
        return html
