"""Unpriced is not free, through the dashboard's own named endpoints: GAIA runs started with /gaia_start
and 0 in both of the endpoint panel's price fields (what the page sends when they were never typed in)
are costed at the price table's line for their model, or are unpriced: an unpriced run reports no
cost and is left off the Runs tab's accuracy-against-cost chart, and the chart's note says so. A price
typed into the panel reaches the run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_client import app_client
from waiting import wait_for

from evalui.config import runs_dir
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

# Not in evalui's price table; gpt-4o-mini is (0.15 / 0.60 USD per million tokens).
UNLISTED, LISTED = "my-local-model", "gpt-4o-mini"


def gaia_start(base_url: str, model: str, exp_id: str, price_input, price_output) -> tuple:
    """/gaia_start's inputs: endpoint (URL, model, key, temperature, max tokens, timeout), source, split,
    level, folder, upload, solver, limit, concurrency, tools, seconds per program, max steps, run id,
    epochs, budget, and last the panel's prices per million input and output tokens."""
    return (base_url, model, "", 0.0, 16, 30, "Bundled sample", "validation", "1", "", None, "The endpoint above",
            1, 1, [], 30, 12, exp_id, 1, 0, price_input, price_output)


def finished(exp_id: str):
    store = RunStore()
    try:
        experiment = store.experiment(exp_id)
    finally:
        store.close()
    return experiment if experiment and experiment["status"] == "finished" and experiment.get("summary") else None


def plotted(figure) -> dict:
    """The Plot output as gradio_client returns it, read back into plotly's traces by name."""
    plot = figure["plot"] if isinstance(figure, dict) and "plot" in figure else figure
    data = json.loads(plot) if isinstance(plot, str) else plot
    return {trace["name"]: trace for trace in data["data"]}


def test_zero_prices_from_the_panel_are_no_price_and_an_unpriced_run_is_off_the_chart(app_url, monkeypatch):
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    runs = {"zero-unlisted": (UNLISTED, 0, 0), "zero-listed": (LISTED, 0, 0), "typed": (UNLISTED, 1.0, 2.0)}
    with ScriptedPeer(lambda body, n: completion("FINAL ANSWER: 1", prompt_tokens=1000, completion_tokens=100)) as peer:
        client = app_client(app_url, verbose=False)
        for exp_id, (model, price_input, price_output) in runs.items():
            client.predict(*gaia_start(peer.base_url, model, exp_id, price_input, price_output),
                           api_name="/gaia_start")
            wait_for(lambda: finished(exp_id), f"GAIA run {exp_id} finished")
        experiments = {exp_id: finished(exp_id) for exp_id in runs}

        # 0 in both fields is no price: the table's line where the model has one, else none at all.
        unpriced = experiments["zero-unlisted"]
        assert unpriced["config"]["pricing"] is None
        assert unpriced["summary"]["cost"]["usd"] is None and unpriced["summary"]["cost"]["priced_by"] is None
        listed = experiments["zero-listed"]["summary"]["cost"]
        assert listed["priced_by"] == "table" and listed["usd"] > 0
        typed = experiments["typed"]["summary"]["cost"]
        assert typed["priced_by"] == "run" and typed["usd"] == pytest.approx((1000 * 1.0 + 100 * 2.0) / 1e6)

        status = json.dumps(client.predict("zero-unlisted", api_name="/gaia_show"), ensure_ascii=False)
        assert "cost: unpriced" in status and "cost $" not in status
        assert "cost $0.0012" in json.dumps(client.predict("typed", api_name="/gaia_show"), ensure_ascii=False)

        note, figure = client.predict("gaia", api_name="/runs_cost_pareto")
    assert "2 shown, 1 without a price" in note and "left off the chart" in note
    traces = plotted(figure)
    assert sorted(traces["runs"]["customdata"]) == ["typed", "zero-listed"]  # the unpriced run is not drawn
    assert "zero-unlisted" not in json.dumps(figure)
    assert all(x > 0 for x in traces["runs"]["x"])  # nothing sits at $0 as the cheapest "frontier"


def pricing_of(exp_id: str) -> dict | None:
    return finished(exp_id)["config"]["pricing"]


def newest(benchmark: str, after: set[str]) -> str:
    store = RunStore()
    try:
        ids = {e["exp_id"] for e in store.experiments(benchmark)} - after
    finally:
        store.close()
    return ids.pop() if len(ids) == 1 else ""


def test_the_panel_prices_reach_every_launchers_run(monkeypatch, request):
    from aime_script import AimeScript

    from integration.core.test_toy_benchmark import REGISTRY_LINE, TESTS, answering

    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("EVALUI_BENCHMARKS", REGISTRY_LINE["EVALUI_BENCHMARKS"])
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    app_url = request.getfixturevalue("app_url")  # after the registry line: the toy tab is built
    client = app_client(app_url, verbose=False)
    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    starts = sorted(name for name in endpoints if name.endswith("_start"))
    assert {"/bfcl_start", "/gaia_start", "/toy_start", "/aime_generate_start", "/aime_judge_start",
            "/aime_winrate_start"} <= set(starts)
    for name in set(starts) - {"/runs_start", "/local_model_start"}:  # a resume keeps its run's price
        last = [(p["label"]["key"], p["parameter_default"]) for p in endpoints[name]["parameters"][-2:]]
        assert last == [("endpoint.price_input", 0), ("endpoint.price_output", 0)], name

    aime = AimeScript()

    def script(body, n):
        if body.get("max_tokens") == 1:  # the endpoint check before each run
            return completion("OK")
        system = body["messages"][0]["content"] if body["messages"][0]["role"] == "system" else ""
        if "competition mathematics" in system or "strict reviewer" in system:
            return aime(body, n)
        if "calculate_triangle_area" in json.dumps(body):
            return completion("[calculate_triangle_area(base=10, height=5)]", prompt_tokens=500, completion_tokens=20)
        return answering(body, n)

    with ScriptedPeer(script) as peer:
        endpoint = (peer.base_url, "my-local-model", "", 0.0, 256, 30)
        client.predict(*endpoint, ["simple_python"], 1, "prompt", 1, "bfcl-typed", 1, 0, 2.0, 8.0,
                       api_name="/bfcl_start")
        client.predict(*endpoint, 2, 0, 1, "toy-zero", 1, 0, 0, 0, api_name="/toy_start")
        client.predict(peer.base_url, "gpt-4o-mini", "", 0.0, 256, 30, 2, 0, 1, "toy-listed", api_name="/toy_start")
        client.predict(*endpoint, 1, [], 0, "Bundled sample", 1, "aime-typed", 0, 3.0, 4.0,
                       api_name="/aime_generate_start")
        for exp_id in ("bfcl-typed", "toy-zero", "toy-listed", "aime-typed"):
            wait_for(lambda: finished(exp_id), f"run {exp_id} finished")

        # The file as the page names it (relative to the runs folder), once the session's list holds it.
        generated = str(Path(finished("aime-typed")["summary"]["output"]).relative_to(runs_dir()))
        client.predict(api_name="/aime_files")
        judged = set()
        for judge in ("my-local-model", "another-judge"):
            client.predict(*endpoint, generated, judge, "Bundled sample", 0, 0, 3.0, 4.0, api_name="/aime_judge_start")
            exp_id = wait_for(lambda: newest("aime-judge", judged), f"a judge run with {judge}")
            wait_for(lambda: finished(exp_id), f"judge run {exp_id} finished")
            judged.add(exp_id)
            assert finished(exp_id)["model"] == judge
            price = pricing_of(exp_id)
            if judge == "my-local-model":  # the panel's model: the panel's price
                assert (price["priced_by"], price["input_per_m"]) == ("run", 3.0)
            else:  # another model: the panel's price is not its price
                assert price is None

    typed = pricing_of("bfcl-typed")
    assert (typed["priced_by"], typed["input_per_m"], typed["output_per_m"]) == ("run", 2.0, 8.0)
    assert pricing_of("toy-zero") is None
    assert pricing_of("toy-listed")["priced_by"] == "table"  # prices left out: the table's line
    generation = pricing_of("aime-typed")
    assert (generation["priced_by"], generation["input_per_m"], generation["output_per_m"]) == ("run", 3.0, 4.0)
