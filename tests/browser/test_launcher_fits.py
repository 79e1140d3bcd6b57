"""The launcher keeps the work in view at 1440×900, in Chromium: after Start the status and the
progress bar are inside the window and the endpoint panel is one closed line ("model @ host ✓"); a
reload brings back the base URL, the model and the form, never the key; the verification tab shows
no endpoint panel; and the categories are a compact grouped multiselect."""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect
from waiting import HANG_S

from browser.pages import choose
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser
HANG_MS = int(HANG_S * 1000)
VIEWPORT = {"width": 1440, "height": 900}
TYPED_KEY = "sk-typed-never-kept-38"
# A closed categories box with groups and singles chosen: a few lines, not one per chip (six chips, one
# per line, took ~260 px). Its row's tallest input (an option with a line of help) sets ~123 px.
COMPACT_PX = 130


def is_check(body) -> bool:
    return body.get("max_tokens") == 1  # the endpoint check before a run: answered at once


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def assert_in_window(page, selector: str) -> None:
    found = box(page, selector)
    assert found is not None, f"{selector} is not drawn"
    assert found["y"] >= 0 and found["y"] + found["height"] <= VIEWPORT["height"], (selector, found)
    assert found["x"] >= 0 and found["x"] + found["width"] <= VIEWPORT["width"], (selector, found)


def test_the_launcher_keeps_the_run_in_view_and_remembers_the_form(browser, launch_app):
    oracle = BfclOracle(["simple_python"])
    release = threading.Event()

    def script(body, n):
        if not is_check(body):
            release.wait(HANG_S)  # the run stays going while the page is measured and reloaded
        return oracle.gold_reply(body)

    with ScriptedPeer(script) as peer:
        try:
            check_the_launcher(browser, launch_app({}), peer)  # no server endpoint: the panel starts open
        finally:
            release.set()
    assert {r.authorization for r in peer.chat_requests()} == {f"Bearer {TYPED_KEY}"}


def check_the_launcher(browser, url, peer):
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(url)
    page.locator("#bfcl-start").wait_for(timeout=60_000)
    model_box = page.locator("#endpoint-model").get_by_role("textbox")
    expect(model_box).to_be_visible()
    page.locator("#endpoint-base-url").get_by_role("textbox").fill(peer.base_url)
    model_box.fill("scripted-model")
    page.locator("#endpoint-api-key").get_by_role("textbox").fill(TYPED_KEY)
    page.get_by_label("Timeout per request (s)").fill("3600")  # a held answer is never a timeout and a retry

    # Groups and singles together still make a box of a few lines.
    for name in ("All live", "All multi-turn", "simple_java", "parallel"):
        choose(page, "bfcl-categories", re.compile(f"^{re.escape(name)}$"))
        page.locator("#bfcl-categories input").blur()  # a focused list opens on focus, not on a click
        expect(page.locator("#bfcl-categories")).to_contain_text(name)
    categories = page.locator("#bfcl-categories")
    assert box(page, "#bfcl-categories")["height"] < COMPACT_PX, box(page, "#bfcl-categories")
    # Back to one category for the run itself (each chip has its remove button).
    while categories.locator(".token").count() > 1:
        categories.locator(".token").last.locator(".token-remove").click()
    expect(categories.locator(".token")).to_have_text(["simple_python"])

    page.locator("#bfcl-limit input").fill("3")
    concurrency = page.locator("#bfcl-concurrency input[type=number]")
    concurrency.fill("1")
    concurrency.press("Enter")
    page.locator("#bfcl-exp-id").get_by_role("textbox").fill("kept-in-view")
    page.locator("#bfcl-start").click()

    status = page.locator("#bfcl-status")
    status.filter(has_text=re.compile(r"kept-in-view.*running")).wait_for(timeout=HANG_MS)
    page.locator("#bfcl-progress").filter(has_text=re.compile(r"BFCL 0/3")).wait_for(timeout=HANG_MS)
    host = peer.base_url.split("//")[1].split("/")[0]
    panel = page.locator("#endpoint-panel")
    expect(panel).to_contain_text(f"scripted-model @ {host} ✓", timeout=HANG_MS)
    expect(model_box).to_be_hidden()  # closed to its one line
    assert box(page, "#endpoint-panel")["height"] < 80, box(page, "#endpoint-panel")
    status.filter(has_text=re.compile(r"1 in flight: simple_python_0")).wait_for(timeout=HANG_MS)
    for part in ("#bfcl-status", "#bfcl-progress", "#bfcl-cancel"):
        assert_in_window(page, part)

    page.reload()
    status.filter(has_text=re.compile(r"kept-in-view.*running")).wait_for(timeout=HANG_MS)
    expect(page.locator("#bfcl-limit input")).to_have_value("3")
    expect(page.locator("#bfcl-exp-id").get_by_role("textbox")).to_have_value("kept-in-view")
    expect(panel).to_contain_text(f"scripted-model @ {host}")  # closed to its line, until opened
    panel.locator(".label-wrap").click()
    expect(page.locator("#endpoint-base-url").get_by_role("textbox")).to_have_value(peer.base_url)
    expect(model_box).to_have_value("scripted-model")
    expect(page.locator("#endpoint-timeout input")).to_have_value("3600")
    expect(page.locator("#endpoint-api-key").get_by_role("textbox")).to_have_value("")  # keys never come back

    page.get_by_role("tab", name="Verification").click()
    page.locator("#tab-verify").wait_for(timeout=HANG_MS)
    expect(page.locator("#endpoint-panel")).to_be_hidden()
    expect(page.locator("#endpoint-test-result")).to_be_hidden()
    page.get_by_role("tab", name="BFCL", exact=True).click()
    expect(page.locator("#endpoint-panel")).to_be_visible()
