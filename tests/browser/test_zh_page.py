"""A Chinese browser reads no English UI word: Chromium with locale zh-CN at 1440x900 opens the app
with two stored finished runs and a generated file under review (a dispute in it), shows the run in
the Runs tab's viewer (list, transcript, filters and their choices), the two runs side by side (the
buckets, a sample of one), the run in its benchmark's tab (the run page), the verification tab with the file open and its adjudication, and every
other tab; on each it collects the visible text and finds no English word outside the allow-list of
tests/support/english_words.py.

What is data, not UI, is left out in two robust ways:
- by element: the renderer marks the run's text (``.evalui-data``: ids, names, a fold's model text,
  the scorer's metadata, a finding's message), and model and file text always sits in ``pre``,
  ``code`` or ``textarea``; the list's id, group and error-type cells hold stored values; charts
  (``svg``, ``canvas``) are drawn from data, all but their titles, axis names and legends, which are
  read (the AIME results tab draws its three with a judged file open);
- by value: the stored values (a run's id, model, benchmark, endpoint; a sample's id or group; the
  file's name, its problems' ids, topics and texts; the reviewers' names and comments) are data
  wherever they show (Gradio's tables and dropdowns carry no marks of ours): each is taken out of a
  text as a whole word, and a text that is a piece of a stored text (a problem's statement split by
  its formulas) is data.

Texts in files another change is still translating are listed in PENDING with their file: each must
still be found (so the list only shrinks), and nothing else may be English."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect
from viewer_runs import store_two_runs

from browser.pages import choose
from browser.test_review_fits import write_disputed_file
from browser.verify_steps import DIMENSIONS
from evalui.store.run_store import RunStore
from support.english_words import english_words

pytestmark = pytest.mark.browser
WAIT = 60_000

GRADIO_PENDING = re.compile(r"^\s*(processing|queue: \d+/\d*) \|")
# (text, file that renders it): English a later change translates (those files are not this one's).
PENDING: set[tuple[str, str]] = set()

# Texts the tabs once showed in English, now from the catalog: where each shows in Chinese (a tab's
# name -> (element, text)), so a label Gradio drew raw (an untranslated key) would fail, not pass unseen.
CHINESE = {
    "运行记录": [("#runs-table", "已完成"), ("#runs-table", "未完成"), ("#runs-table", "准确率"),
             ("#runs-table", "（1 个无效）")],
    "BFCL": [("#bfcl-figures", "BFCL v4 总分："), ("#bfcl-figures", "（部分结果：未运行的类别按 0 计，详见排行榜）"),
             ("#bfcl-leaderboard", "已运行的部分：非实时（AST）"), ("#bfcl-leaderboard", "警告：总分只是部分结果。")],
    "GAIA": [("#gaia-source", "内置样例"), ("#gaia-source", "Hugging Face（受限访问）"), ("#gaia-source", "本地文件夹"),
             ("#gaia-source", "上传的 JSON 文件"), ("#gaia-split", "验证集"), ("#gaia-split", "测试集"),
             ("#gaia-level", "全部"), ("#gaia-tools", "文件")],
    "AIME 题目生成": [("#aime-references", "优先 Hub，否则用内置样例"), ("#aime-references", "内置样例"),
                  ("#aime-topics", "代数"), ("#aime-topics", "数论")],
    "AIME 评估结果": [("#tab-aime-results", "优先 Hub，否则用内置样例")],
}

COLLECT = """() => {
  const DATA = 'pre, code, textarea, script, style, svg, canvas, .katex, .evalui-data,'
    + ' td[data-col="id"], td[data-col="group"], td[data-col="error_type"]';
  const shown = (el) => el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
    && el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().height > 0;
  const where = (el) => (el.closest('[id]') || {}).id || '';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement, text = node.textContent.trim();
    if (text && el && !el.closest(DATA) && shown(el)) out.push([text, where(el)]);
  }
  // A chart is drawn from data, but its title, axis names and legend are the page's words.
  for (const el of document.querySelectorAll('.js-plotly-plot :is(.gtitle, .g-xtitle, .g-ytitle, .legendtext)')) {
    const text = el.textContent.trim();
    if (text && shown(el)) out.push([text, where(el)]);
  }
  // What a dropdown or a text box shows is its input's value (a filter's "all", a chosen bucket).
  for (const input of document.querySelectorAll('input:not([type]), input[type=text], input[type=search]')) {
    if (input.value && shown(input)) out.push([input.value, 'value of ' + where(input)]);
  }
  return out;
}"""


@pytest.fixture()
def stored(tmp_path, monkeypatch):
    """Two finished runs and a generated file under review; the stored values that are data."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store)
    values = set()
    for exp_id in ("base", "cand"):
        experiment = store.experiment(exp_id)
        values |= {exp_id, str(experiment.get("model")), str(experiment.get("benchmark")),
                   str(experiment.get("base_url") or "")}
        values |= {s.sample_id for s in store.samples(exp_id)} | {s.group for s in store.samples(exp_id)}
    store.close()
    path = write_disputed_file(tmp_path)
    problems = json.loads(path.read_text())
    # The judge's and the win rate's summaries, so that the AIME results tab draws its three charts.
    judge = path.with_name(f"{path.stem}_judge.json")
    judged = json.loads(judge.read_text())
    judge.write_text(json.dumps({**judged, "summary": {"dimensions": dict.fromkeys(DIMENSIONS, 4.0),
                                                       "score_distribution": {"4.0": 1}}}))
    path.with_name(f"{path.stem}_winrate.json").write_text(json.dumps({"summary": {
        f"{outcome}_rate": {"successes": count} for outcome, count in (("win", 1), ("loss", 1), ("tie", 0))}}))
    values |= {path.name, "ana", "ben", "fine", "the answer is wrong"}
    values |= {p["problem_id"] for p in problems} | {p["problem"] for p in problems} | {p["topic"] for p in problems}
    return {v for v in values if v}


def without_data(text: str, values: set[str]) -> str:
    """``text`` with the stored values in it taken out; "" when it is a piece of a stored text."""
    if any(len(value) > 40 and text in value for value in values):
        return ""
    for value in sorted(values, key=len, reverse=True):
        text = re.sub(rf"(?<![\w/-]){re.escape(value)}(?![\w-])", " ", text)
    return text


def english_on(page, values: set[str], seen: dict) -> None:
    """Add the page's visible English to ``seen``: its words (data values left out) -> (text, where).
    Read once Gradio's own status text ("processing |", "queue: 1/2 |", which it does not translate)
    has left every component: an event still running would otherwise be read as the page's words."""
    expect(page.get_by_text(GRADIO_PENDING)).to_have_count(0, timeout=WAIT)
    for text, where in page.evaluate(COLLECT):
        if words := english_words(without_data(text, values)):
            seen.setdefault(" ".join(words), (text, where))


def test_a_chinese_browser_reads_no_english(browser, launch_app, stored):
    url = launch_app({})
    page = browser.new_context(locale="zh-CN", viewport={"width": 1440, "height": 900}).new_page()
    page.goto(url + "?run=cand&sample=simple_python_1")  # the Runs tab's viewer, on a wrong answer
    page.locator('#runs-inspector-detail .evalui-transcript[data-sample="simple_python_1"]').wait_for(timeout=WAIT)
    seen: dict[str, str] = {}
    english_on(page, stored, seen)

    # The filters' choices, as the opened list shows them.
    verdict = page.locator("#runs-inspector-verdict")
    verdict.locator("input").click()
    options = verdict.get_by_role("option")
    expect(options.first).to_be_visible(timeout=WAIT)
    listed = [text.split("\n")[-1] for text in options.all_inner_texts()]  # the chosen one after a ✓
    assert listed == ["全部", "正确", "错误", "出错"], listed
    english_on(page, stored, seen)
    page.keyboard.press("Escape")

    # Two runs side by side: the figures, the buckets and one sample of a bucket.
    choose(page, "runs-pair-a", "base")
    choose(page, "runs-pair-b", "cand")
    page.locator("#runs-pair-compare").click()
    page.locator("#runs-pair-figures").filter(has_text="McNemar").wait_for(timeout=WAIT)
    choose(page, "runs-pair-flips", re.compile(r"^simple_python_1 "))
    page.locator('#runs-pair-detail .evalui-pair[data-sample="simple_python_1"]').wait_for(timeout=WAIT)
    english_on(page, stored, seen)

    tabs = page.locator("button[role=tab]:not(.evalui-tabbar button)")
    for name in tabs.all_inner_texts():
        tabs.filter(has_text=re.compile(f"^{re.escape(name)}$")).click()
        page.wait_for_timeout(500)  # a tab's content mounts when first shown
        if name == "BFCL":  # the run page of a benchmark tab: its header, downloads and viewer
            choose(page, "bfcl-runs", re.compile("^cand"))
            page.locator("#bfcl-inspector-detail .evalui-transcript").wait_for(timeout=WAIT)
            # The header is filled once the run is shown (until then Gradio's own "processing" sits on the status).
            page.locator("#bfcl-figures").filter(has_text="BFCL v4").wait_for(timeout=WAIT)
            page.get_by_text("排行榜：总分的各部分", exact=True).click()  # the leaderboard's parts, opened on demand
        if name == "人工验证":
            page.locator("#verify-file input").click()
            page.get_by_role("option", name=re.compile("aime_generated_")).first.click()
            expect(page.locator("#verify-where")).to_contain_text("gen-0000", timeout=WAIT)
            page.get_by_text("争议题目的裁决", exact=True).click()
            expect(page.locator("#verify-disputed input")).to_have_value("gen-0000", timeout=WAIT)
        if name == "AIME 评估结果":  # a judged file: the judge's dimensions, its scores, the win rate
            choose(page, "aime-file", re.compile("aime_generated_"))
            for chart in ("aime-judge-plot", "aime-score-plot", "aime-winrate-plot"):
                page.locator(f"#{chart} .js-plotly-plot .gtitle").wait_for(timeout=WAIT)
        if name == "GAIA":
            expect(page.locator("#gaia-solver input")).to_have_value("上方的端点")
        for element, text in CHINESE.get(name, []):
            expect(page.locator(element)).to_contain_text(text)
        english_on(page, stored, seen)
    assert set(CHINESE) <= set(tabs.all_inner_texts())

    # A pending text excuses the English words it holds, wherever they show (a topic in a heading too).
    pending = {" ".join(english_words(text)) for text, _ in PENDING}
    assert {words: shown for words, shown in seen.items() if words not in pending} == {}
    assert pending - set(seen) == set(), "translated now: remove these from PENDING"
