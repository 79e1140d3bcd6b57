"""The docs' screenshots, taken from the real dashboard in Chromium at 1440×900 (issue 40).

One app, one data folder: a BFCL run started from the BFCL tab against a scripted peer (the run
page), a second stored run of the same samples (the viewer and the side-by-side comparison), and a
judged AIME file with ten reviews (the review panel and the AIME results tab's calibration view).

Each screenshot is taken only once its page shows what the docs say it shows (a named element is
visible, no Gradio error toast or red "Error" badge is on the page), is checked as a PNG of the
viewport's size, and only then replaces docs/images/<name>.png: a failed page never overwrites a
good image. The suite checks the pages every time but keeps the images it took in its scratch folder
(the times on the pages differ on every run, and a test run should not leave the checkout changed);
`make screenshots` (EVALUI_DOC_SCREENSHOTS=1) writes them into docs/images, to commit after a change
to the pages. A missing image is always written.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from peers import SENTINEL_KEY, settings_for
from PIL import Image
from playwright.sync_api import expect
from unit.ui.test_calibration_views import judge_score, review, write_judged, write_winrate

from browser.pages import choose
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
UPDATE_ENV = "EVALUI_DOC_SCREENSHOTS"  # 1: the images replace the docs' own (make screenshots)
WIDTH, HEIGHT = 1440, 900
WAIT = 60_000
SCROLL_TRIES = 15
SAMPLES = 6
WRONG_IN_CANDIDATE = (1, 4)  # the candidate run answers these simple_python samples wrong


def assert_not_an_error_page(page) -> None:
    """Nothing on the page says that an event failed: no error toast, no red "Error" badge on an output."""
    assert page.locator(".toast-body.error").count() == 0, page.locator(".toast-body").all_inner_texts()
    assert page.get_by_text("Error", exact=True).count() == 0, "an output of the page is marked Error"
    assert page.get_by_text("Connection errored out").count() == 0


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    with Image.open(path) as image:
        image.verify()  # a truncated or corrupt file fails here
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT), (path, image.format, image.size)


def shoot(page, name: str, shows, scratch: Path, above: int = 16, also=()) -> Path:
    """Scroll ``shows`` (the element the docs point at) to the top of the view, ``above`` pixels below
    it, check the page (``shows`` and every locator of ``also`` in view, no error), take the viewport,
    check the PNG, then put it in docs/images when asked (EVALUI_DOC_SCREENSHOTS=1) or missing there.
    Returns the checked image."""
    expect(shows).to_be_visible(timeout=WAIT)
    # Scrolled again until what the docs point at stays in view: a part of the page drawn late (a
    # chart, a card) can move it after a scroll.
    for attempt in range(SCROLL_TRIES):
        shows.evaluate("element => element.scrollIntoView({block: 'start'})")
        page.evaluate(f"window.scrollBy(0, -{above})")  # some room above the element
        try:
            for element in (shows, *also):
                expect(element).to_be_in_viewport(timeout=2_000)
            break
        except AssertionError:
            if attempt == SCROLL_TRIES - 1:
                raise
    assert_not_an_error_page(page)
    taken = scratch / f"{name}.png"
    page.screenshot(path=str(taken))
    assert_png(taken)
    assert_not_an_error_page(page)  # nothing failed while the picture was taken
    target = IMAGES / f"{name}.png"
    if os.environ.get(UPDATE_ENV) != "1" and target.exists():
        return taken
    IMAGES.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(taken, target)
    assert target.read_bytes() == taken.read_bytes()
    return target


@pytest.fixture()
def gold_peer():
    """The scripted endpoint the run page's run asks: bfcl's gold call for every sample."""
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        yield peer


@pytest.fixture()
def data_folder(tmp_path, monkeypatch):
    """A stored candidate run ('cand': two samples wrong) and a judged AIME file with ten reviews."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    oracle = BfclOracle(["simple_python"])

    def candidate(body, n):
        index = int(oracle.entry_for(body).id.rsplit("_", 1)[-1])
        return oracle.wrong_reply(body) if index in WRONG_IN_CANDIDATE else oracle.gold_reply(body)

    store = RunStore()
    with ScriptedPeer(candidate) as peer:
        settings = settings_for(peer, max_retries=0)
        options = BfclOptions(categories=["simple_python"], limit=SAMPLES, mode="fc")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id="cand"), settings)
    store.close()

    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data_file = write_judged(folder)  # 20 problems, the judge passes the even ones
    write_winrate(data_file)
    # Ten reviews, enough for a corrected figure; the reviewer fails one problem the judge passed.
    review(data_file, range(10), reviewer="cy", human=lambda i: judge_score(i) == 5 and i != 0)
    return tmp_path / "data"


def test_the_docs_screenshots(browser, launch_app, gold_peer, data_folder, tmp_path):
    scratch = tmp_path / "shots"
    scratch.mkdir()
    url = launch_app({"OPENAI_BASE_URL": gold_peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    written = []

    # 1. The run page: a BFCL run started from the tab against the scripted peer, finished.
    assert page.goto(url).ok
    page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
    page.locator("#endpoint-model").get_by_role("textbox").fill("scripted-model")
    page.locator("#bfcl-limit input").fill(str(SAMPLES))
    page.locator("#bfcl-exp-id").get_by_role("textbox").fill("base")
    page.locator("#bfcl-start").click()
    status = page.locator("#bfcl-status")
    expect(status).to_contain_text(f"{SAMPLES}/{SAMPLES} done", timeout=WAIT)
    expect(status).to_contain_text("(100.0%)", timeout=WAIT)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=WAIT)
    expect(page.locator('#bfcl-viewer-list tr[data-id="simple_python_0"]')).to_be_visible(timeout=WAIT)
    written.append(shoot(page, "run-page", status, scratch))

    # 2. The viewer: the candidate's wrong sample open beside the list (a deep link opens it).
    assert page.goto(url + "?run=cand&sample=simple_python_1").ok
    shown = page.locator('#runs-inspector-detail .evalui-transcript[data-sample="simple_python_1"][data-verdict="wrong"]')
    shown.wait_for(timeout=WAIT)
    expect(page.locator("#runs-viewer-list tr[data-id]")).to_have_count(SAMPLES, timeout=WAIT)
    shown.locator('details[data-kind="tool-call"] summary').first.click()  # the call the model made, unfolded
    written.append(shoot(page, "viewer", page.locator("#runs-viewer-list"), scratch))

    # 3. Side by side: base against cand, a flipped sample open in both runs.
    choose(page, "runs-pair-a", "base")
    choose(page, "runs-pair-b", "cand")
    page.locator("#runs-pair-compare").click()
    figures = page.locator("#runs-pair-figures")
    expect(figures).to_contain_text("McNemar", timeout=WAIT)
    expect(figures).to_contain_text(f"{SAMPLES} paired samples")
    expect(figures).to_contain_text(f"Flipped to wrong: {len(WRONG_IN_CANDIDATE)}")
    choose(page, "runs-pair-flips", re.compile(r"^simple_python_1 .*correct → wrong"))
    pair = page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_1"]')
    pair.wait_for(timeout=WAIT)
    assert pair.locator('.evalui-pair-a [data-sample="simple_python_1"][data-verdict="correct"]').count() == 1
    assert pair.locator('.evalui-pair-b [data-sample="simple_python_1"][data-verdict="wrong"]').count() == 1
    written.append(shoot(page, "compare-side-by-side", figures, scratch, also=[pair.locator(".evalui-pair-b").first]))

    # 4. The review panel: the judged file open for a named reviewer, with "review these next".
    assert page.goto(url).ok
    page.get_by_role("tab", name="Verification").click()
    choose(page, "verify-file", re.compile("aime_generated_"))
    expect(page.locator("#verify-where")).to_contain_text("Problem 1 of 20", timeout=WAIT)
    page.locator("#verify-reviewer").get_by_role("textbox").fill("ana")
    page.locator("#verify-problem .katex").first.wait_for(timeout=WAIT)  # LaTeX rendered
    expect(page.locator("#verify-judge")).to_contain_text("correctness", timeout=WAIT)
    expect(page.locator("#verify-review-next")).to_contain_text("Review these", timeout=WAIT)
    written.append(shoot(page, "review-panel", page.locator("#verify-reviewer"), scratch,
                         also=[page.locator("#verify-where"), page.locator("#verify-judge")]))

    # 5. The AIME results tab's calibration view: judge only, reviewers only, corrected.
    page.get_by_role("tab", name="AIME results").click()
    choose(page, "aime-file", re.compile("aime_generated_"))
    calibration = page.locator("#aime-calibration")
    expect(calibration).to_contain_text("10 reviewed", timeout=WAIT)
    expect(calibration).not_to_contain_text("too small")
    expect(calibration.locator("tr").filter(has_text="pass rate")).to_contain_text("corrected")
    page.locator("#aime-calibration-plot .js-plotly-plot").wait_for(timeout=WAIT)
    written.append(shoot(page, "aime-calibration", calibration, scratch, above=120,
                         also=[page.locator("#aime-calibration-plot .js-plotly-plot")]))

    assert [path.name for path in written] == ["run-page.png", "viewer.png", "compare-side-by-side.png",
                                               "review-panel.png", "aime-calibration.png"]
    for path in written:
        assert_png(path)
    assert SENTINEL_KEY not in page.content()


def test_an_error_page_is_never_kept(browser, tmp_path, monkeypatch):
    """The check before every screenshot refuses a page that shows a failed event, even when asked to
    update the docs' images."""
    monkeypatch.setenv(UPDATE_ENV, "1")
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.set_content('<div id="shown">Problem 1 of 20</div>'
                     '<div class="toast-body error">Error: No stored run named cand</div>')
    with pytest.raises(AssertionError):
        shoot(page, "never-kept", page.locator("#shown"), tmp_path)
    assert not (IMAGES / "never-kept.png").exists()
    page.set_content('<div id="shown">6/6 done</div><span>Error</span>')  # an output's red badge
    with pytest.raises(AssertionError):
        shoot(page, "never-kept", page.locator("#shown"), tmp_path)
    assert not (IMAGES / "never-kept.png").exists()
