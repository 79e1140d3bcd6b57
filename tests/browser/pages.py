"""Steps that many browser tests take."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout


def open_tab(browser, url: str, tab: str, model: str = "scripted-model"):
    """A new page on the app with the endpoint's model filled in and ``tab`` open."""
    page = browser.new_page()
    page.goto(url)
    page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
    page.locator("#endpoint-model").get_by_role("textbox").fill(model)
    page.get_by_role("tab", name=tab).click()
    return page


def choose(page, dropdown: str, option) -> None:
    """Pick ``option`` (a name or a pattern) in the dropdown whose elem_id is ``dropdown``.

    The dropdown is first scrolled to the middle of the page: a list that opens below the fold is
    placed again by Gradio on every scroll, so Playwright's own scrolling to an option kept it
    moving ("element is not stable") until the click timed out on a loaded machine."""
    box = page.locator(f"#{dropdown}")
    for attempt in range(3):  # a list re-rendered while it opened (an event's update) is opened again
        box.evaluate("element => element.scrollIntoView({block: 'center'})")
        box.locator("input").click()
        try:
            box.get_by_role("option", name=option).click(timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")


def attach(page, file_component: str, path) -> None:
    """Give the gr.File whose elem_id is ``file_component`` the file at ``path``, and wait until the
    upload has finished.

    The only lasting sign of a finished upload is the preview row's label: the file's name shows as
    text just while it uploads (afterwards stem and extension are two spans), so waiting for the
    name as text raced the upload and failed whenever the upload ended first."""
    page.locator(f"#{file_component} input[type=file]").set_input_files(str(path))
    page.locator(f'#{file_component} td.filename[aria-label="{path.name}"]').wait_for(timeout=30_000)
