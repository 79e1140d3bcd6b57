"""Two stored runs side by side at 1440×900 in real Chromium: the two columns never overlap and
everything in a column stays inside it (a long unbroken answer included), a multi-turn answer reads
turn by turn as calls from "Turn 1", "differences only" hides the samples both runs answered alike,
and typing in the sample box while a sample is shown raises no error."""

from __future__ import annotations

import re
import time

import pytest
from peers import settings_for
from playwright.sync_api import expect

from browser.pages import choose
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser
WAIT = 30_000
# Words, then one token far wider than a column: it must wrap, and break only where it must.
LONG_ANSWER = "I would rather explain than call a function. " * 12 + "x" * 600


@pytest.fixture()
def two_runs(tmp_path, monkeypatch):
    """'base' answers 3 simple_python and 3 multi_turn_base samples with the gold calls; 'cand'
    answers simple_python_1 with a wrong call, simple_python_2 with LONG_ANSWER, and leaves turn 2's
    move out of multi_turn_base_1. The other three both runs answer alike."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    single = BfclOracle(["simple_python"])

    def drop_a_move(entry, turn, calls):
        return calls[:-1] if entry.id.endswith("_1") and turn == 1 else calls

    def script(multi_turn, candidate):
        def reply(body, n):
            if multi_turn.entry_for(body) is not None:
                return multi_turn.reply(body)
            index = int(single.entry_for(body).id.rsplit("_", 1)[-1])
            if candidate and index == 1:
                return single.wrong_reply(body)
            if candidate and index == 2:
                return completion(LONG_ANSWER)
            return single.gold_reply(body)
        return reply

    store = RunStore()
    for name, candidate in (("base", False), ("cand", True)):
        multi_turn = MultiTurnOracle(["multi_turn_base"], limit=3, perturb=drop_a_move if candidate else None)
        with ScriptedPeer(script(multi_turn, candidate)) as peer:
            settings = settings_for(peer, max_retries=0)
            options = BfclOptions(categories=["simple_python", "multi_turn_base"], limit=3, mode="fc")
            lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=name), settings,
                              concurrency=2)
    store.close()


# For each column: its box, every element of it with a box that reaches outside it, and every one
# whose text is wider than its box (folded parts opened first, so their text is laid out too). The
# answers table's cells stay inside it, and the page itself must not scroll sideways.
LAYOUT = """() => {
  const pair = document.querySelector('#runs-pair-detail .evalui-pair');
  pair.querySelectorAll('details').forEach(d => { d.open = true; });
  const box = el => el.getBoundingClientRect();
  const columns = ['.evalui-pair-a', '.evalui-pair-b'].map(sel => {
    const column = pair.querySelector(sel), outer = box(column);
    const outside = [...column.querySelectorAll('*')].filter(el => {
      const r = box(el);
      return r.width > 0 && r.height > 0 && (r.left < outer.left - 0.5 || r.right > outer.right + 0.5);
    }).map(el => el.tagName + '.' + el.className + ' ' + Math.round(box(el).left) + '-' + Math.round(box(el).right));
    // Text wider than its own box spills out of it (or scrolls it sideways) though the box fits; an
    // id is cut with an ellipsis by design.
    const spilled = [column, ...column.querySelectorAll('*')].filter(el => el.clientWidth > 0
        && el.scrollWidth > el.clientWidth + 1 && !el.classList.contains('evalui-id'))
      .map(el => el.tagName + '.' + el.className + ' ' + el.scrollWidth + '>' + el.clientWidth);
    return {left: outer.left, right: outer.right, top: outer.top, bottom: outer.bottom, outside, spilled};
  });
  const table = box(pair.querySelector('table.evalui-pair-answers'));
  const cells = [...pair.querySelectorAll('table.evalui-pair-answers td, table.evalui-pair-answers pre')]
    .filter(el => box(el).right > table.right + 0.5).length;
  return {columns, cells, tableRight: table.right, pairRight: box(pair).right,
          scroll: document.scrollingElement.scrollWidth - window.innerWidth};
}"""


def assert_columns_fit(page):
    found = page.evaluate(LAYOUT)
    a, b = found["columns"]
    assert a["right"] <= b["left"], f"the columns overlap: {a} {b}"
    assert a["right"] - a["left"] > 300 and b["right"] - b["left"] > 300  # two real columns, side by side
    assert a["outside"] == [] and b["outside"] == [], (a["outside"][:5], b["outside"][:5])
    assert a["spilled"] == [] and b["spilled"] == [], (a["spilled"][:5], b["spilled"][:5])
    assert found["cells"] == 0 and found["tableRight"] <= found["pairRight"] + 0.5
    assert found["scroll"] <= 0  # no sideways scroll of the page


def options_of(page, dropdown: str) -> list[str]:
    """The texts of the dropdown's options (opened, read, closed again)."""
    box = page.locator(f"#{dropdown}")
    box.evaluate("element => element.scrollIntoView({block: 'center'})")
    box.locator("input").click()
    options = box.get_by_role("option")
    options.first.wait_for(timeout=WAIT)
    found = [text.strip().removeprefix("✓").strip() for text in options.all_inner_texts()]  # ✓: the one chosen
    page.locator("#runs-pair-figures").click()  # away: the list closes
    return found


def test_two_runs_side_by_side_read_at_1440_by_900(browser, launch_app, two_runs):
    url = launch_app({})
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(url)
    page.get_by_role("tab", name="Runs").click()
    choose(page, "runs-pair-a", "base")
    choose(page, "runs-pair-b", "cand")
    page.locator("#runs-pair-compare").click()
    page.locator("#runs-pair-figures").filter(has_text="McNemar").wait_for(timeout=WAIT)

    # The multi-turn sample: both answers and the gold turn by turn, as calls.
    choose(page, "runs-pair-flips", re.compile(r"^multi_turn_base_1 .*correct → wrong"))
    pair = page.locator('#runs-pair-detail .evalui-pair[data-sample="multi_turn_base_1"]')
    pair.wait_for(timeout=WAIT)
    answers = pair.locator("table.evalui-pair-answers")
    for text in answers.locator('pre[data-role="answer"]').all_inner_texts() + [
            answers.locator('pre[data-role="gold"]').inner_text()]:
        assert text.startswith("Turn 1\n") and "Turn 2" in text and "Turn 0" not in text
        assert 'cd(folder="' in text and '\\"' not in text and "[[" not in text and "{" not in text
    assert "mv(source=" in answers.locator('tr[data-field="gold"]').inner_text()
    assert "mv(source=" not in answers.locator('tr[data-field="answer"] td').nth(1).inner_text()  # B left it out
    for column in (".evalui-pair-a", ".evalui-pair-b"):  # the transcripts' own answers read the same way
        assert pair.locator(f'{column} pre[data-role="answer"]').inner_text().startswith("Turn 1\n")
    labels = answers.locator("th").all_inner_texts()
    assert {"Verdict", "Answer", "Gold answer", "Latency"} <= set(labels)
    assert_columns_fit(page)

    # A long unbroken answer wraps inside its own column.
    choose(page, "runs-pair-flips", re.compile(r"^simple_python_2 .*correct → wrong"))
    pair = page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_2"]')
    pair.wait_for(timeout=WAIT)
    assert "x" * 100 in pair.locator('.evalui-pair-b pre[data-role="answer"]').inner_text().replace("\n", "")
    assert_columns_fit(page)

    # Typing in the sample box while a sample is shown: no error, and the sample stays.
    box = page.locator("#runs-pair-flips input")
    box.click()
    box.press("Control+a")
    box.press("Backspace")
    page.keyboard.type("simple_py", delay=30)
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    page.locator("#runs-pair-figures").click()  # away: the box loses focus, emptied
    page.wait_for_timeout(1_500)  # the time an event takes to come back with its toast
    assert page.locator(".toast-body").count() == 0, page.locator(".toast-body").all_inner_texts()
    assert page.get_by_text("Choose a sample.").count() == 0
    expect(page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_2"]')).to_be_visible()

    # Every paired sample, then only those the runs disagree on.
    page.locator("#runs-pair-bucket").get_by_text(re.compile(r"^every paired sample: 6$")).click()
    every = options_of(page, "runs-pair-flips")
    assert len(every) == 6 and any(o.startswith("multi_turn_base_0 ") for o in every)
    choose(page, "runs-pair-flips", re.compile(r"^simple_python_2 "))
    page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_2"]').wait_for(timeout=WAIT)
    page.locator("#runs-pair-differ input").check()
    expected = ["simple_python_1", "simple_python_2", "multi_turn_base_1"]
    deadline = time.monotonic() + WAIT / 1000
    while True:  # the list is replaced when the filter's event comes back
        shown = sorted(o.split(" ")[0] for o in options_of(page, "runs-pair-flips"))
        if shown == sorted(expected) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(300)
    assert shown == sorted(expected)
    # The sample on show is still one of them: it stays.
    expect(page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_2"]')).to_be_visible()
    assert page.locator(".toast-body").count() == 0
