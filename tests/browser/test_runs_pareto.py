"""Cost in the dashboard, in headless Chromium: the Runs tab's accuracy-against-cost chart with its
Pareto frontier, and a run that its budget stops, shows its estimate, and resumes with more."""

from __future__ import annotations

import re
import threading

import pytest
from integration.core.test_toy_benchmark import REGISTRY_LINE, TESTS
from peers import settings_for
from playwright.sync_api import expect
from toy_benchmark import ToyOptions, ask
from waiting import HANG_S

from evalui.core import registry
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.browser

PROMPT, COMPLETION = 1000, 400


def question(body) -> str:
    return body["messages"][-1]["content"]


def by_model(body, n):
    """'strong' answers every sum; the others get the odd sums wrong."""
    numbers = [int(x) for x in re.findall(r"\d+", question(body))[:2]]
    text = f"The answer is {sum(numbers)}" if len(numbers) == 2 else "OK"
    if body.get("model") != "strong" and sum(numbers) % 2:
        text = "The answer is 0"
    return completion(text, prompt_tokens=PROMPT, completion_tokens=COMPLETION)


def plotly_traces(page, elem_id: str) -> list[dict]:
    page.locator(f"#{elem_id} .js-plotly-plot").wait_for(timeout=60_000)
    return page.evaluate(f"""() => document.querySelector('#{elem_id} .js-plotly-plot').data.map(t => (
        {{name: t.name, ids: Array.from(t.customdata || []), x: Array.from(t.x), y: Array.from(t.y),
          errors: t.error_y ? Array.from(t.error_y.array) : null}}))""")


def test_the_runs_tab_draws_accuracy_against_cost_with_the_pareto_frontier(browser, launch_app, tmp_path,
                                                                            monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EVALUI_BENCHMARKS", REGISTRY_LINE["EVALUI_BENCHMARKS"])
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    runs = {"pareto-cheap": ("cheap", 0.1), "pareto-strong": ("strong", 10.0), "pareto-waste": ("waste", 10.0),
            "pareto-local": ("local-x", None)}
    with ScriptedPeer(by_model) as peer:
        store = RunStore()
        for exp_id, (model, price) in runs.items():
            settings = settings_for(peer, model=model, price_input_per_m=price, price_output_per_m=price)
            lifecycle.prepare(store, registry.get("toy"), ToyOptions(n=8, seed=5), settings, exp_id=exp_id)
            lifecycle.execute(store, exp_id, settings)
        summaries = {exp_id: store.experiment(exp_id)["summary"] for exp_id in runs}
        store.close()
    cheap, strong, waste = (summaries[i] for i in ("pareto-cheap", "pareto-strong", "pareto-waste"))
    assert strong["accuracy"] == 1.0 and cheap["accuracy"] == waste["accuracy"] < 1.0
    assert waste["cost"]["usd"] == pytest.approx(100 * cheap["cost"]["usd"])  # as accurate, a hundred times dearer

    page = browser.new_page()
    page.goto(launch_app({**REGISTRY_LINE}))
    page.get_by_role("tab", name="Runs").click()
    page.locator("#runs-pareto-benchmark input").click()
    page.get_by_role("option", name="toy", exact=True).click()
    traces = plotly_traces(page, "runs-pareto")
    by_name = {t["name"]: t for t in traces}
    assert set(by_name) == {"runs", "Pareto frontier"}
    assert sorted(by_name["runs"]["ids"]) == ["pareto-cheap", "pareto-strong", "pareto-waste"]  # the unpriced run is out
    # The frontier names its runs, cheapest first; the dominated run is not on it.
    assert by_name["Pareto frontier"]["ids"] == ["pareto-cheap", "pareto-strong"]
    assert by_name["Pareto frontier"]["x"] == pytest.approx([cheap["cost"]["usd"], strong["cost"]["usd"]])
    # Error bars: each run's 95 % interval above its accuracy.
    for exp_id, high in zip(by_name["runs"]["ids"], by_name["runs"]["errors"]):
        assert high == pytest.approx(summaries[exp_id]["ci95"][1] - summaries[exp_id]["accuracy"])
    # The note is its own component: drawn on its own time, not by the time the chart's data is read.
    note = page.locator("#runs-pareto-note")
    expect(note).to_contain_text("3 shown, 1 without a price", timeout=30_000)
    expect(note).to_contain_text("left off the chart")
    expect(note).to_contain_text("1: pareto-cheap, 2: pareto-strong")  # numbered as the chart labels them


def test_a_budget_stops_a_dashboard_run_and_a_higher_one_resumes_it(browser, launch_app, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    release, asked = threading.Event(), []

    def script(body, n):
        if question(body).startswith("What is"):
            asked.append(n)
            if len(asked) == 7:  # held: the run is under way, six samples answered
                release.wait(HANG_S)
        return completion(ask(question(body)), prompt_tokens=PROMPT, completion_tokens=COMPLETION)

    # gpt-4o-mini is in evalui's price table: 1000 × 0.15 + 400 × 0.60 per million = $0.00039 a sample.
    with ScriptedPeer(script) as peer:
        page = browser.new_page()
        page.goto(launch_app({**REGISTRY_LINE, "OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": "sk-toy"}))
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        page.locator("#endpoint-model").get_by_role("textbox").fill("gpt-4o-mini")
        page.get_by_role("tab", name="Toy sums").click()
        page.locator("#toy-option-n input").fill("10")
        concurrency = page.locator("#toy-concurrency input[type=number]")
        concurrency.fill("1")
        concurrency.press("Enter")
        page.locator("#toy-exp-id textarea, #toy-exp-id input").first.fill("budget-ui")
        page.locator("#toy-max-cost input").fill("0.001")
        page.locator("#toy-start").click()
        # Two samples spend $0.00078, the third $0.00117: the run stops there, and says why.
        status = page.locator("#toy-status")
        status.filter(has_text="stopped: budget spent").wait_for(timeout=60_000)
        assert "3/10" in status.inner_text() and "cost $0.0012" in status.inner_text()
        assert "budget $0.0010" in status.inner_text()
        assert len(asked) == 3
        expect(page.locator("#toy-log textarea")).to_have_value(
            re.compile(re.escape("budget_spent: $0.0012 spent of the $0.0010 budget")), timeout=30_000)

        # The same run id with a higher budget resumes it; mid-way the progress shows the whole run's estimate.
        page.locator("#toy-max-cost input").fill("1")
        page.locator("#toy-start").click()
        progress = page.locator("#toy-progress")
        progress.filter(has_text="about $0.0039 for the whole run").wait_for(timeout=60_000)
        # The estimate shows from the fifth answer on; the line reaches six (the seventh is held) a poll later.
        expect(progress).to_contain_text("$0.0023 spent", timeout=60_000)  # six samples answered so far
        release.set()
        status.filter(has_text="finished").wait_for(timeout=60_000)
    assert "10/10" in status.inner_text() and "cost $0.0039" in status.inner_text()
    assert len(asked) == 10
