"""The second toy benchmark (tests/toy_benchmark/products.py, one registry line) in its generic tab, in
headless Chromium: a run started from the tab, its headline, and the tab's sample viewer showing
answers in the toy's own rendering, a wrong one beside the gold answer as the toy writes it."""

from __future__ import annotations

import pytest
from integration.test_toy_end_to_end import REGISTRY_LINE, TESTS, answering_for, passes
from playwright.sync_api import expect
from toy_benchmark.products import ProductOptions, samples

from browser.pages import choose
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser


def test_the_products_toy_runs_from_its_generic_tab_and_its_viewer_shows_its_answers(browser, launch_app,
                                                                                     monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    specs = samples(ProductOptions(n=8))  # the tab's defaults, but n
    wrong = [(sid, p) for sid, _, p in specs if not passes(sid, p)]
    assert [sid for sid, _ in wrong] == ["3x19-1", "3x21-5"]  # the endpoint gets products by 3 wrong
    with ScriptedPeer(answering_for(specs, refused_ids=())) as peer:
        url = launch_app({**REGISTRY_LINE, "OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": "sk-toy"})
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        page.locator("#endpoint-model").get_by_role("textbox").fill("m")
        page.get_by_role("tab", name="Toy products").click()
        page.locator("#products-option-n input").fill("8")
        page.locator("#products-start").click()
        page.locator("#products-status").filter(has_text="8/8").wait_for(timeout=60_000)
        headline = page.locator("#products-headline")
        headline.filter(has_text="accuracy").wait_for(timeout=30_000)
        assert f"{(len(specs) - len(wrong)) / len(specs):.1%}" in headline.inner_text()
        # The tab's viewer (the run page has no samples table) follows the finished run: the first
        # sample, 2 × 18 answered right in the toy's own rendering; then a wrong one beside its gold answer.
        first = page.locator('#products-inspector-detail [data-sample="2x18-0"][data-verdict="correct"]')
        first.wait_for(timeout=30_000)
        assert first.locator('pre[data-role="answer"]').inner_text() == "= 36"
        choose(page, "products-inspector-verdict", "wrong")
        pane = page.locator('#products-inspector-detail [data-sample="3x19-1"][data-verdict="wrong"]')
        pane.wait_for(timeout=30_000)
        detail = page.locator("#products-inspector-detail")
        assert detail.locator('pre[data-role="answer"]').inner_text() == "= 58"
        assert detail.locator('pre[data-role="gold"]').inner_text() == "3 × 19 = 57"
        assert "wrong_product" in pane.inner_text() and "58 is not 57" in pane.inner_text()
        expect(page.locator("#products-inspector-position")).to_contain_text("1 / 2", timeout=30_000)
