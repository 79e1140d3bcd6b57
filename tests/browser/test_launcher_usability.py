"""The launcher tabs stay usable: a reload reopens the run that is going, the page follows its
progress on its own, cancel says "cancelling" before the run ends and ends a run whose answers are
held, a dead endpoint is one message instead of a 0 % run, delete asks first, and the page has
unique ids and named table headers. How fast each happens is bench/dashboard_responsiveness.py's."""

from __future__ import annotations

import re
import socket
import threading

import pytest
from peers import SENTINEL_KEY, Held, settings_for
from playwright.sync_api import expect
from waiting import HANG_S, wait_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser
HANG_MS = int(HANG_S * 1000)  # for states the test waits for: only a hang takes this long
# Records every text #bfcl-status shows, so a state the timer replaces within a tick is still seen.
RECORD_STATUS_JS = """() => {
    window.__statuses = [];
    const read = () => {
        const text = document.querySelector('#bfcl-status')?.innerText ?? '';
        if (window.__statuses.at(-1) !== text) window.__statuses.push(text);
    };
    read();
    new MutationObserver(read).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def is_check(body) -> bool:
    return body.get("max_tokens") == 1  # the endpoint check before a run: answered at once


def gold_peer(answer=None) -> ScriptedPeer:
    """Gold answers; ``answer(body, reply)`` may hold a sample's (never the endpoint check's)."""
    oracle = BfclOracle(["simple_python"])

    def script(body, n):
        reply = oracle.gold_reply(body)
        return reply if answer is None or is_check(body) else answer(body, reply)

    return ScriptedPeer(script)


def sample_requests(peer) -> list:
    return [r for r in peer.chat_requests() if not is_check(r.body)]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def open_page(browser, url, locale="en-US"):
    page = browser.new_context(locale=locale).new_page()
    page.goto(url)
    page.locator("#bfcl-start").wait_for(timeout=60_000)
    return page


def endpoint(page, model="scripted-model", base_url=None):
    # The panel starts closed (the server has an endpoint), or closed to its "model @ host" line
    if not page.locator("#endpoint-model").get_by_role("textbox").is_visible():
        page.locator("#endpoint-panel .label-wrap").click()
    if base_url is not None:
        page.locator("#endpoint-base-url").get_by_role("textbox").fill(base_url)
    page.locator("#endpoint-model").get_by_role("textbox").fill(model)


def set_bfcl(page, *, limit, concurrency, mode=None, exp_id=None):
    page.locator("#bfcl-limit input").fill(str(limit))
    box = page.locator("#bfcl-concurrency input[type=number]")
    box.fill(str(concurrency))
    box.press("Enter")
    if mode:
        page.locator("#bfcl-mode").get_by_text(mode, exact=True).click()
    if exp_id:
        page.locator("#bfcl-exp-id").get_by_role("textbox").fill(exp_id)


def test_reload_reopens_the_running_run_with_its_inputs(browser, launch_app):
    # Each sample's answer waits for a permit, so the run stands still at a known count while the
    # pages are checked, and moves one sample at a time when the page's own updates are watched.
    permits = threading.Semaphore(2)

    def paced(body, reply):
        permits.acquire(timeout=HANG_S)
        return reply

    with gold_peer(paced) as peer:
        try:
            reload_and_follow(browser, launch_app, peer, permits)
        finally:
            permits.release(1000)  # nothing waits on after the test
    assert all(r.authorization == "Bearer sk-typed-never-kept-42" for r in peer.chat_requests())


def reload_and_follow(browser, launch_app, peer, permits):
    url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
    page = open_page(browser, url)
    endpoint(page)
    page.locator("#endpoint-api-key").get_by_role("textbox").fill("sk-typed-never-kept-42")
    page.get_by_label("Timeout per request (s)").fill("3600")  # a held answer is never a timeout and a retry
    set_bfcl(page, limit=20, concurrency=1, mode="prompt", exp_id="reload-run")
    page.locator("#bfcl-start").click()
    status = page.locator("#bfcl-status")
    status.filter(has_text=re.compile(r"reload-run.*running · 2/20 done")).wait_for(timeout=HANG_MS)
    expect(page.locator("#bfcl-start")).to_be_disabled()

    page.reload()
    status.filter(has_text=re.compile(r"reload-run.*running")).wait_for(timeout=HANG_MS)
    expect(page.locator("#bfcl-limit input")).to_have_value("20")
    expect(page.locator("#bfcl-concurrency input[type=number]")).to_have_value("1")
    expect(page.locator("#bfcl-mode input[value=prompt]")).to_be_checked()
    expect(page.locator("#bfcl-exp-id").get_by_role("textbox")).to_have_value("reload-run")
    # The panel is back as its one line (the model at the server's own endpoint), closed until opened.
    expect(page.locator("#endpoint-panel")).to_contain_text("scripted-model @ the server's endpoint")
    page.locator("#endpoint-panel .label-wrap").click()
    expect(page.locator("#endpoint-model").get_by_role("textbox")).to_have_value("scripted-model")
    expect(page.locator("#endpoint-api-key").get_by_role("textbox")).to_have_value("")  # keys never come back
    expect(page.locator("#bfcl-start")).to_be_disabled()
    expect(page.locator("#bfcl-runs input")).to_have_value(re.compile("reload-run"))

    # Another browser, with nothing remembered, still finds the run that is going.
    other = open_page(browser, url)
    other.locator("#bfcl-status").filter(has_text=re.compile(r"reload-run.*running")).wait_for(timeout=HANG_MS)
    expect(other.locator("#bfcl-start")).to_be_disabled()
    expect(other.locator("#bfcl-limit input")).to_have_value("5")  # its own inputs: nothing to restore
    other.context.close()

    # The reloaded page follows the run on its own: each answer let through shows as the next
    # count, with no click and no reload (the run cannot move until the test lets it).
    for count in (3, 4, 5):
        permits.release()
        status.filter(has_text=re.compile(rf"running · {count}/20 done")).wait_for(timeout=HANG_MS)

    permits.release(15)
    status.filter(has_text=re.compile(r"finished · 20/20 done")).wait_for(timeout=HANG_MS)
    expect(page.locator("#bfcl-start")).to_be_enabled(timeout=HANG_MS)
    page.locator("#bfcl-accuracy-plot .js-plotly-plot").wait_for(timeout=HANG_MS)
    # The log follows its newest lines.
    log = page.locator("#bfcl-log textarea")
    expect(log).to_have_value(re.compile("finished"))
    page.wait_for_function("""() => { const t = document.querySelector('#bfcl-log textarea');
        return t.scrollHeight > t.clientHeight && t.scrollTop + t.clientHeight >= t.scrollHeight - 4; }""",
                           timeout=HANG_MS)


def test_cancel_says_cancelling_before_the_run_ends_and_ends_it(browser, launch_app):
    # Every sample's answer is held until the test ends: only the cancel can end the run.
    with Held() as held, gold_peer(lambda body, reply: held(body, 0)) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        page = open_page(browser, url)
        endpoint(page)
        page.get_by_label("Timeout per request (s)").fill("3600")  # a held answer is never a timeout and a retry
        set_bfcl(page, limit=4, concurrency=1)
        page.locator("#bfcl-start").click()
        status = page.locator("#bfcl-status")
        status.filter(has_text="running · 0/4 done").wait_for(timeout=HANG_MS)
        expect(page.locator("#bfcl-start")).to_be_disabled()
        wait_for(lambda: sample_requests(peer), "the run never asked for its first sample")
        page.evaluate(RECORD_STATUS_JS)
        page.locator("#bfcl-cancel").click()
        status.filter(has_text=re.compile(r"cancelled · 0/4 done")).wait_for(timeout=HANG_MS)
        expect(page.locator("#bfcl-start")).to_be_enabled(timeout=HANG_MS)
        asked = len(sample_requests(peer))
        shown = page.evaluate("window.__statuses")
    assert asked == 1, asked  # the one request in flight at the cancel, none after it
    states = [m.group(1) for text in shown if (m := re.search(r"\b(running|cancelling|cancelled)\b", text))]
    assert "cancelling" in states and states.index("cancelling") < states.index("cancelled"), shown


def test_endpoint_check_and_a_dead_port_stop_early(browser, launch_app, tmp_path):
    with ScriptedPeer(lambda body, n: BfclOracle(["simple_python"]).gold_reply(body)) as peer:
        url = launch_app({})
        page = open_page(browser, url)
        result = page.locator("#endpoint-test-result")
        endpoint(page, base_url=peer.base_url)
        page.locator("#endpoint-test").click()
        host = peer.base_url.split("//")[1].split("/")[0]
        result.filter(has_text=re.compile(rf"OK: {re.escape(host)} answered in \d+\.\d\d s")).wait_for(timeout=15_000)

        dead = f"http://127.0.0.1:{closed_port()}/v1"
        endpoint(page, base_url=dead)
        page.locator("#endpoint-test").click()
        # Refused, said as such: not retried until the deadline (which would say "did not answer").
        result.filter(has_text="connection refused").wait_for(timeout=HANG_MS)
        assert result.inner_text().count("\n") == 0

        endpoint(page, base_url="ftp://example.com/v1")
        page.locator("#endpoint-test").click()
        result.filter(has_text="must start with http:// or https://").wait_for(timeout=HANG_MS)

        endpoint(page, base_url=dead)
        set_bfcl(page, limit=3, concurrency=1)
        page.locator("#bfcl-start").click()
        page.locator("#bfcl-status").filter(has_text=re.compile("Not started: .*connection refused")).wait_for(
            timeout=HANG_MS)
        toasts = page.get_by_text(re.compile("The endpoint check failed: connection refused"))
        expect(toasts).to_have_count(2)  # the one toast, and the status line saying the same
        expect(page.locator("#bfcl-start")).to_be_enabled()
    store = RunStore(tmp_path / "data" / "evalui.sqlite")
    assert store.experiments() == []  # no 0 % run was left behind
    store.close()


def test_delete_asks_for_confirmation(browser, launch_app, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    with gold_peer() as peer:
        store = RunStore()
        settings = settings_for(peer)
        options = BfclOptions(categories=["simple_python"], limit=2, mode="fc")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id="doomed"), settings)
    page = open_page(browser, launch_app({}))
    page.get_by_role("tab", name="Runs").click()
    page.locator("#runs-runs input").click()
    page.get_by_role("option", name=re.compile("^doomed")).click()
    page.locator('#runs-viewer-list tr[data-id="simple_python_1"]').wait_for(timeout=30_000)  # the run's viewer
    question = page.locator("#runs-delete-question")

    page.locator("#runs-delete").click()
    question.filter(has_text="Delete doomed and its folder?").wait_for(timeout=10_000)
    page.locator("#runs-delete-keep").click()
    expect(page.locator("#runs-delete-confirm")).to_be_hidden()
    assert store.experiment("doomed") is not None

    page.locator("#runs-delete").click()
    page.locator("#runs-delete-confirm").click()
    page.get_by_text("Deleted doomed.").first.wait_for(timeout=10_000)
    expect(page.locator("#runs-table")).not_to_contain_text("doomed")
    assert store.experiment("doomed") is None
    store.close()


def test_ids_are_unique_and_empty_tables_name_their_columns(browser, launch_app):
    page = open_page(browser, launch_app({}))
    for tab in page.get_by_role("tab").all():
        tab.click()
    # Every tab is in the page, not just the last: waited for, since tabs render as they are opened.
    page.wait_for_function("""ids => ids.every(id => document.getElementById(id))""",
                           arg=["bfcl-start", "gaia-start", "aime-start", "aime-judge-start", "runs-start",
                                "runs-refresh", "runs-runs-refresh", "endpoint-test"], timeout=HANG_MS)
    ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id).filter(Boolean)")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert duplicates == [], duplicates

    # The one table left (the runs list); a run's samples are the viewer's list (#38).
    expected = {"#runs-table": "benchmark"}
    for tab, table in (("Runs", "#runs-table"),):
        page.get_by_role("tab", name=tab, exact=True).click()
        expect(page.locator(f"{table} thead")).to_contain_text(expected[table], timeout=HANG_MS)  # drawn, then read
        headers = [h.strip() for h in page.locator(f"{table} thead th").all_inner_texts() if h.strip()]
        assert expected[table] in headers, (table, headers)
        assert not {"1", "2", "3"} & set(headers), (table, headers)


def test_run_time_messages_follow_the_browser_language(browser, launch_app):
    with gold_peer() as peer:
        page = open_page(browser, launch_app({}), locale="zh-CN")
        endpoint(page, base_url=f"http://127.0.0.1:{closed_port()}/v1")
        page.locator("#endpoint-test").click()
        page.locator("#endpoint-test-result").filter(has_text=re.compile("端点检查失败：.*拒绝连接")).wait_for(timeout=10_000)
        endpoint(page, base_url=peer.base_url)
        set_bfcl(page, limit=2, concurrency=1)
        page.locator("#bfcl-start").click()
        page.locator("#bfcl-status").filter(has_text=re.compile("已完成 · 已完成 2/2 · 正确 2（100.0%）")).wait_for(timeout=60_000)
