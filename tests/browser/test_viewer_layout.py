"""The sample viewer's layout in real Chromium at 1440x900: the list beside the transcript with every
column in view and nothing to scroll sideways, the pager above the rows, a deep-linked row scrolled
into view, a sort that goes back to page 1, the column chooser remembered across a reload, the
pane's JSON tab and Copy button, and a search's hits marked and counted in the transcript."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect
from viewer_runs import store_two_runs

from browser.pages import choose
from evalui.store.run_store import RunStore

pytestmark = pytest.mark.browser

SAMPLES = 55  # two pages of the list (50 a page)
VIEWPORT = {"width": 1440, "height": 900}

# Each element's box against the viewport and against every ancestor up to the viewer's panel: the
# sides that stick out by more than half a pixel, as "<element> <side> <ancestor>" lines.
OUTSIDE = """(elements) => {
  const out = [];
  for (const element of elements) {
    const box = element.getBoundingClientRect();
    const name = element.tagName + ':' + element.textContent.trim();
    const inside = (outer, what) => {
      if (box.left < outer.left - 0.5) out.push(`${name} left ${what}`);
      if (box.right > outer.right + 0.5) out.push(`${name} right ${what}`);
      if (box.top < outer.top - 0.5) out.push(`${name} top ${what}`);
      if (box.bottom > outer.bottom + 0.5) out.push(`${name} bottom ${what}`);
    };
    inside({left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight}, 'viewport');
    for (let parent = element.parentElement; parent && !parent.matches('.evalui-viewer'); parent = parent.parentElement) {
      inside(parent.getBoundingClientRect(), parent.tagName + '.' + String(parent.className).split(' ')[0]);
    }
  }
  return out;
}"""

# Every box that could scroll the list sideways: the list, the component and its scroller.
SIDEWAYS = """(list) => {
  const boxes = [];
  for (let box = list.querySelector('.evalui-list'); box; box = box.parentElement) {
    boxes.push([box.scrollWidth, box.clientWidth, box.scrollLeft]);
    if (box.matches('.evalui-viewer-list-pane')) break;
  }
  return boxes;
}"""


@pytest.fixture()
def two_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store, limit=SAMPLES)
    store.close()


def headers_outside(page, listing, wait_s: float = 30.0) -> list[str]:
    """The list's column headers, scrolled into view, that stick out of the viewport or a box of the
    viewer (OUTSIDE); [] once they all fit. Measured again until they fit or ``wait_s`` has passed:
    a tab draws its cards and charts after its list, and one drawn late moved the list down."""
    deadline = time.monotonic() + wait_s
    while True:
        listing.locator("thead").evaluate("head => head.scrollIntoView({block: 'nearest'})")
        outside = listing.locator("th").evaluate_all(OUTSIDE)
        if not outside or time.monotonic() > deadline:
            return outside
        page.wait_for_timeout(250)


def selected_row_in_view(page) -> bool:
    return page.locator("#runs-viewer-list tr.evalui-selected").evaluate("""(row) => {
      const box = row.getBoundingClientRect();
      let scroller = row.parentElement;
      while (scroller && !/(auto|scroll)/.test(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
      const seen = scroller.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight && box.top >= seen.top - 0.5 && box.bottom <= seen.bottom + 0.5;
    }""")


def test_the_list_fits_beside_the_transcript_with_the_pager_on_top(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url + "?run=cand&sample=simple_python_47")  # the 48th row: below the list's fold
    page.locator('#runs-inspector-detail .evalui-transcript[data-sample="simple_python_47"]').wait_for(timeout=60_000)
    listing = page.locator("#runs-viewer-list")
    # The list is another component than the transcript waited for: its selected row is waited for too.
    expect(listing.locator("tr.evalui-selected")).to_have_attribute("data-id", "simple_python_47", timeout=30_000)
    page.wait_for_function("""() => {
      const row = document.querySelector('#runs-viewer-list tr.evalui-selected');
      const box = row && row.getBoundingClientRect();
      return box && box.top >= 0 && box.bottom <= window.innerHeight;
    }""", timeout=10_000)
    assert selected_row_in_view(page)  # in the page's viewport and in the list's own scroll box

    for width, seen, left in listing.evaluate(SIDEWAYS):
        assert width <= seen and left == 0
    heads = listing.locator("th")
    assert heads.evaluate_all("hs => hs.map(h => h.dataset.col)") == \
        ["id", "group", "verdict", "error_type", "latency_s", "tokens", "findings"]
    assert headers_outside(page, listing) == []
    detail = page.locator("#runs-inspector-detail").bounding_box()
    assert detail["x"] >= listing.bounding_box()["x"] + listing.bounding_box()["width"]  # beside, not below

    pager = listing.locator(".evalui-pager").bounding_box()
    first_row = listing.locator("tr[data-id]").first.bounding_box()
    assert pager["y"] + pager["height"] <= first_row["y"]  # the pager is above the rows

    listing.locator('tr[data-id="simple_python_3"] td[data-col="findings"]').click()  # the row's far end
    page.locator('#runs-inspector-detail .evalui-transcript[data-sample="simple_python_3"]').wait_for(timeout=30_000)
    assert all(left == 0 and width <= seen for width, seen, left in listing.evaluate(SIDEWAYS))

    listing.locator('button[data-page="1"]').first.click()
    listing.locator('.evalui-list[data-page="1"]').wait_for(timeout=30_000)
    # Sorted by verdict, the selected sample (the one error) is the last row, on page 2; a sort shows page 1.
    listing.locator('th[data-sort="verdict"]').click()
    listing.locator('th[data-sort="verdict"][aria-sort="ascending"]').wait_for(timeout=30_000)
    assert listing.locator(".evalui-list").get_attribute("data-page") == "0"
    assert "page 1 / 2" in listing.locator(".evalui-page").inner_text()
    assert listing.locator("tr[data-id]").first.get_attribute("data-verdict") == "correct"
    expect(page.locator("#runs-inspector-position")).to_contain_text("55 / 55", timeout=30_000)  # still the selected sample

    # The same viewer in a benchmark tab fits as well.
    page.get_by_role("tab", name="BFCL").click()
    choose(page, "bfcl-runs", re.compile("^cand"))
    other = page.locator("#bfcl-viewer-list")
    other.locator("tr.evalui-selected").wait_for(timeout=30_000)
    assert all(width <= seen for width, seen, _ in other.evaluate(SIDEWAYS))
    assert headers_outside(page, other) == []


def test_the_column_chooser_hides_columns_and_remembers_them(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url + "?run=cand&sample=simple_python_1")
    listing = page.locator("#runs-viewer-list")
    listing.locator("tr.evalui-selected").wait_for(timeout=60_000)
    listing.locator(".evalui-chooser summary").click()
    listing.locator('input[data-column="tokens"]').uncheck()
    assert not listing.locator('th[data-col="tokens"]').is_visible()
    assert not listing.locator('tr[data-id="simple_python_1"] td[data-col="tokens"]').is_visible()
    assert listing.locator('th[data-col="latency_s"]').is_visible()

    page.reload()  # the choice is the browser's: it outlives the page
    listing.locator('tr.evalui-selected[data-id="simple_python_1"]').wait_for(timeout=60_000)
    page.wait_for_function("() => document.querySelector('#runs-viewer-list th[data-col=\"tokens\"]').hidden")
    assert not listing.locator('input[data-column="tokens"]').is_checked()
    listing.locator(".evalui-chooser summary").click()
    listing.locator('input[data-column="tokens"]').check()
    assert listing.locator('th[data-col="tokens"]').is_visible()


def test_the_pane_has_a_json_tab_a_copy_button_and_marked_search_hits(browser, launch_app, two_runs):
    url = launch_app({})
    context = browser.new_context(viewport=VIEWPORT)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
    page = context.new_page()
    page.goto(url + "?run=cand&sample=simple_python_1")
    pane = page.locator("#runs-inspector-detail")
    pane.locator('.evalui-transcript[data-sample="simple_python_1"]').wait_for(timeout=60_000)
    shown = pane.locator('pre[data-role="json"]')
    assert not shown.is_visible()

    pane.locator('.evalui-tabbar button[data-tab="json"]').click()
    assert shown.is_visible() and not pane.locator(".evalui-transcript").is_visible()
    stored = json.loads(shown.inner_text())
    assert stored["sample_id"] == "simple_python_1" and stored["exp_id"] == "cand"
    assert "zz_wrong" in json.dumps(stored)  # the wrong call the candidate made
    assert "claimed_by" not in stored and "api_key" not in shown.inner_text().lower()

    copy = pane.locator("button.evalui-copy")
    copy.click()
    pane.locator('button.evalui-copy[data-copied="true"]').wait_for(timeout=10_000)
    assert json.loads(page.evaluate("navigator.clipboard.readText()")) == stored
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("j")  # the next sample opens on the tab chosen
    pane.locator('.evalui-transcript[data-sample="simple_python_2"]').wait_for(state="attached", timeout=30_000)
    # The pane's script puts the new sample on the chosen tab once it is drawn: waited for, not read at once.
    expect(shown).to_be_visible(timeout=30_000)
    assert json.loads(shown.inner_text())["sample_id"] == "simple_python_2"
    pane.locator('.evalui-tabbar button[data-tab="transcript"]').click()
    assert pane.locator(".evalui-transcript").is_visible() and not shown.is_visible()

    search = page.locator("#runs-inspector-search input, #runs-inspector-search textarea").first
    search.fill("factorial")
    search.press("Enter")
    hits = pane.locator(".evalui-hits[data-hits]")
    hits.wait_for(timeout=30_000)
    marks = pane.locator(".evalui-transcript mark.evalui-hit")
    count = int(hits.get_attribute("data-hits"))
    assert count >= 2 and marks.count() == count and str(count) in hits.inner_text()
    assert all(text.lower() == "factorial" for text in marks.all_inner_texts())
    assert marks.first.is_visible()
    assert pane.locator('pre[data-role="json"] mark').count() == 0  # the JSON stays as stored
