"""The toy benchmark (one package plus one registry line) in its own tab, in headless Chromium."""

from __future__ import annotations

from integration.core.test_toy_benchmark import REGISTRY_LINE, TESTS, answering, expected

from support.openai_peer import ScriptedPeer


def test_the_toy_benchmark_runs_in_its_own_tab(browser, launch_app, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    with ScriptedPeer(answering) as peer:
        url = launch_app({**REGISTRY_LINE, "OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": "sk-toy"})
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        page.locator("#endpoint-model").get_by_role("textbox").fill("m")
        page.get_by_role("tab", name="Toy sums").click()
        page.locator("#toy-option-n input").fill("8")
        page.locator("#toy-start").click()
        page.locator("#toy-status").filter(has_text="8/8").wait_for(timeout=60_000)
        headline = page.locator("#toy-headline")
        headline.filter(has_text="accuracy").wait_for(timeout=30_000)
        share = expected(8) / 8
        assert f"{share:.1%}" in headline.inner_text()
        page.locator('#toy-viewer-list tr[data-id="sum-7"]').wait_for(timeout=30_000)  # the viewer lists the samples
