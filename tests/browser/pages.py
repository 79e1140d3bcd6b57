"""Steps that many browser tests take."""

from __future__ import annotations


def open_tab(browser, url: str, tab: str, model: str = "scripted-model"):
    """A new page on the app with the endpoint's model filled in and ``tab`` open."""
    page = browser.new_page()
    page.goto(url)
    page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
    page.locator("#endpoint-model").get_by_role("textbox").fill(model)
    page.get_by_role("tab", name=tab).click()
    return page
