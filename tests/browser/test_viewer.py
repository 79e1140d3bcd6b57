"""The sample viewer in real Chromium: the list beside the transcript (coloured verdicts, roles,
folded function docs, tool calls in <details>), filters, the store's full-text search, sorting by a
column, j / k, a deep link (?run=…&sample=…) that opens the Runs tab on that sample, and the static
bundle of `evalui view` opened from file:// and navigated list → transcript."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from viewer_runs import HOSTILE, store_two_runs

from evalui.store.run_store import RunStore
from evalui.viewer.bundle import write_bundle

pytestmark = pytest.mark.browser


@pytest.fixture()
def two_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store)
    store.close()


def detail(page, sample: str, verdict: str | None = None):
    shown = f'#runs-inspector-detail .evalui-transcript[data-sample="{sample}"]'
    return page.locator(shown + (f'[data-verdict="{verdict}"]' if verdict else ""))


def test_list_transcript_filters_search_sort_keys_and_deep_link(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(url + "?run=cand&sample=simple_python_2")  # the deep link opens the Runs tab on that sample
    detail(page, "simple_python_2", "wrong").wait_for(timeout=60_000)
    expect(page.locator("#tab-runs-button")).to_have_attribute("aria-selected", "true", timeout=30_000)
    # The list is another component than the transcript waited for: its rows are waited for too.
    listed = page.locator("#runs-viewer-list tr[data-id]")
    expect(listed).to_have_count(6, timeout=30_000)
    expect(page.locator("#runs-viewer-list tr.evalui-selected")).to_have_attribute("data-id", "simple_python_2")
    colour = page.locator('#runs-viewer-list tr[data-id="simple_python_1"] td[data-col="verdict"]') \
        .evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert colour == "rgb(207, 34, 46)"  # wrong is red
    assert page.evaluate("window.__pwned") is None and page.locator("#runs-inspector-detail img").count() == 0
    assert HOSTILE in page.locator('#runs-inspector-detail pre[data-role="answer"]').inner_text()

    page.locator('#runs-viewer-list tr[data-id="simple_python_1"]').click()  # list → transcript
    shown = detail(page, "simple_python_1", "wrong")
    shown.wait_for(timeout=30_000)
    assert [r for r in shown.locator(".evalui-msg").evaluate_all("els => els.map(e => e.dataset.role)")] == \
        ["user", "assistant"]
    docs = shown.locator('details[data-kind="function-docs"]')
    assert docs.count() == 1 and docs.get_attribute("open") is None  # folded
    call = shown.locator('details[data-kind="tool-call"]')
    assert "math_factorial" in call.locator("summary").inner_text()
    assert not call.locator("pre").is_visible()
    call.locator("summary").click()
    assert "zz_wrong" in call.locator("pre").inner_text()
    assert "score I" in shown.locator(".evalui-score").inner_text() and "missing_parameter" in shown.inner_text()

    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("j")
    detail(page, "simple_python_2").wait_for(timeout=30_000)
    page.keyboard.press("k")
    detail(page, "simple_python_1").wait_for(timeout=30_000)
    expect(page.locator("#runs-inspector-position")).to_contain_text("2 / 6", timeout=30_000)

    page.locator('#runs-viewer-list th[data-sort="tokens"]').click()  # sorted by tokens: the error (0) first
    page.locator('#runs-viewer-list th[data-sort="tokens"][aria-sort="ascending"]').wait_for(timeout=30_000)
    assert listed.first.get_attribute("data-id") == "simple_python_3"

    page.locator("#runs-inspector-verdict input").click()
    page.locator("#runs-inspector-verdict").get_by_role("option", name="correct").click()
    page.locator("#runs-inspector-position").filter(has_text="1 / 3").wait_for(timeout=30_000)
    expect(listed).to_have_count(3, timeout=30_000)  # the list, not only the position line, is the filtered one
    assert {row.get_attribute("data-verdict") for row in listed.all()} == {"correct"}

    search = page.locator("#runs-inspector-search input, #runs-inspector-search textarea").first
    search.fill("triangle")  # a prompt's word, found by the store's index
    search.press("Enter")
    page.locator("#runs-inspector-position").filter(has_text="1 / 1").wait_for(timeout=30_000)
    expect(listed).to_have_count(1, timeout=30_000)
    assert [row.get_attribute("data-id") for row in listed.all()] == ["simple_python_0"]
    detail(page, "simple_python_0", "correct").wait_for(timeout=30_000)


def bundle_page(browser, folder):
    """The candidate run's static bundle written to ``folder``, a page for it, and the errors that
    page reports (script errors, and any request that leaves the file system)."""
    store = RunStore()
    write_bundle(store, "cand", folder)
    store.close()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: errors.append(request.url) if not request.url.startswith("file:") else None)
    return page, errors, (folder / "index.html").as_uri()


def test_the_static_bundle_opens_from_a_file(browser, two_runs, tmp_path):
    page, errors, index = bundle_page(browser, tmp_path / "bundle")
    page.goto(index)
    rows = page.locator("#evalui-rows tr[data-id]")
    rows.first.wait_for(timeout=30_000)
    assert rows.count() == 6 and "cand" in page.locator("#evalui-title").inner_text()
    rows.nth(1).click()  # list → transcript
    page.locator('#evalui-detail .evalui-transcript[data-sample="simple_python_1"][data-verdict="wrong"]') \
        .wait_for(timeout=10_000)
    page.keyboard.press("j")
    page.locator('#evalui-detail [data-sample="simple_python_2"]').wait_for(timeout=10_000)
    assert HOSTILE in page.locator('#evalui-detail pre[data-role="answer"]').inner_text()
    assert page.evaluate("window.__pwned") is None and page.locator("#evalui-detail img").count() == 0
    page.select_option("#evalui-verdict", "error")
    assert [r.get_attribute("data-id") for r in rows.all()] == ["simple_python_3"]
    page.select_option("#evalui-verdict", "all")
    page.locator("#evalui-search").fill("factorial")
    assert [r.get_attribute("data-id") for r in rows.all()] == ["simple_python_1"]
    page.goto(index + "#sample=simple_python_4")  # a deep link
    page.reload()
    page.locator('#evalui-detail [data-sample="simple_python_4"]').wait_for(timeout=10_000)
    assert errors == []  # no script error, nothing fetched from any network


def test_a_bundle_link_to_a_prototype_member_finds_no_sample(browser, two_runs, tmp_path):
    # Sample ids are keys of the bundle's data: "constructor" once showed Object's source in the pane.
    page, errors, index = bundle_page(browser, tmp_path / "bundle")

    def opened(sample: str) -> tuple[list[str], str]:
        page.goto("about:blank")  # a new document: the link is read when the page loads
        page.goto(index + "#sample=" + sample)
        page.locator("#evalui-rows tr[data-id]").first.wait_for(timeout=10_000)  # the script has run
        selected = page.locator("#evalui-rows tr.evalui-selected")
        return [row.get_attribute("data-id") for row in selected.all()], page.locator("#evalui-detail").inner_html()

    unknown = opened("no_such_sample")  # what the bundle shows for an id it does not have: the first sample
    assert unknown[0] == ["simple_python_0"] and 'data-sample="simple_python_0"' in unknown[1]
    for member in ("constructor", "__proto__", "toString", "hasOwnProperty"):
        selected, pane = opened(member)
        assert (selected, pane) == unknown, member
        assert "native code" not in pane and "[object Object]" not in pane
    assert errors == []
