"""--max-cost against a scripted endpoint that reports its tokens: the run stops at the sample that
spends the budget, its status says so, and it resumes with a higher budget; the cost figures are
the hand-computed ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from peers import Held, settings_for
from toy_benchmark import ToyOptions, ask, samples
from waiting import HANG_S, wait_for

from evalui.run import lifecycle
from evalui.run.pricing import set_budget
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]
PROMPT, COMPLETION = 1000, 500  # tokens each reply reports
PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens
PER_SAMPLE = (PROMPT * PRICE_IN + COMPLETION * PRICE_OUT) / 1e6  # 0.006 USD, by hand


def answering(body, n):
    return completion(ask(body["messages"][-1]["content"]), prompt_tokens=PROMPT, completion_tokens=COMPLETION)


def correct_answers(n: int, seed: int) -> int:
    return sum(1 for _, _, p in samples(ToyOptions(n=n, seed=seed)) if (p["a"] + p["b"]) % 10 != 7)


def run_cli(data: Path, peer, *flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(data),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("EVALUI_PRICES", None)
    return subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", "20", "--seed", "3",
                           "--base-url", peer.base_url, "--exp-id", "budget", "--concurrency", "1", *flags],
                          env=env, capture_output=True, text=True, timeout=HANG_S * 3)


def last_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_budget_stops_the_run_at_the_sample_that_spends_it_and_a_higher_budget_resumes_it(tmp_path):
    data = tmp_path / "data"
    prices = ("--price-input", str(PRICE_IN), "--price-output", str(PRICE_OUT))
    with ScriptedPeer(answering) as peer:
        # 3 samples spend 0.018 < 0.02; the 4th spends it (0.024), and no 5th is asked.
        first = last_json(run_cli(data, peer, "--model", "m", *prices, "--max-cost", "0.02"))
        assert len(peer.chat_requests()) == 4
        assert first["status"] == "budget_spent" and first["total"] == 20
        assert first["cost"]["usd"] == pytest.approx(4 * PER_SAMPLE)
        assert first["cost"]["max_cost_usd"] == 0.02 and first["cost"]["priced_by"] == "run"
        # A resume without --max-cost keeps the budget: nothing more is asked.
        again = last_json(run_cli(data, peer, "--model", "m", *prices))
        assert again["status"] == "budget_spent" and len(peer.chat_requests()) == 4
        # A higher budget goes on from there: 0.024 + 5 × 0.006 = 0.054 ≥ 0.05.
        more = last_json(run_cli(data, peer, "--model", "m", *prices, "--max-cost", "0.05"))
        assert more["status"] == "budget_spent" and len(peer.chat_requests()) == 9
        # The resume without prices keeps the run's own; with enough budget the run finishes.
        done = last_json(run_cli(data, peer, "--model", "m", "--max-cost", "1"))
        assert done["status"] == "finished" and len(peer.chat_requests()) == 20
    correct = correct_answers(20, 3)
    assert done["correct"] == correct
    assert done["cost"]["usd"] == pytest.approx(20 * PER_SAMPLE)
    assert done["cost"]["per_correct_usd"] == pytest.approx(20 * PER_SAMPLE / correct)
    written = json.loads((Path(done["out_dir"]) / "summary.json").read_text())
    assert written["cost"]["per_sample_usd"] == pytest.approx(PER_SAMPLE)
    assert written["cost"]["input_tokens"] == 20 * PROMPT and written["cost"]["output_tokens"] == 20 * COMPLETION
    assert written["provenance"]["prices"] == {"input_per_m": PRICE_IN, "output_per_m": PRICE_OUT,
                                               "priced_by": "run", "source": "prices given with the run"}
    lines = [json.loads(line) for line in (Path(done["out_dir"]) / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == 20 and all(line["cost_usd"] == pytest.approx(PER_SAMPLE) for line in lines)


def test_a_model_in_the_pinned_table_is_priced_by_it_and_an_unpriced_budget_is_refused(tmp_path):
    data = tmp_path / "data"
    with ScriptedPeer(answering) as peer:
        refused = run_cli(data, peer, "--model", "my-local-model", "--max-cost", "1")
        assert refused.returncode == 2 and "--max-cost needs a price" in refused.stderr
        assert not peer.chat_requests()
        priced = last_json(run_cli(tmp_path / "other", peer, "--model", "openai/gpt-4o-mini-2024-07-18"))
    # gpt-4o-mini in evalui/data/prices.json: 0.15 and 0.60 USD per million tokens.
    assert priced["cost"]["priced_by"] == "table"
    assert priced["cost"]["usd"] == pytest.approx(20 * (PROMPT * 0.15 + COMPLETION * 0.60) / 1e6)
    assert priced["cost"]["price"]["model_key"] == "gpt-4o-mini"
    assert priced["cost"]["price"]["source"].startswith("https://")


def test_a_prices_file_wins_over_the_table(tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"as_of": "2026-11-01", "models": {"gpt-4o-mini": {"input_per_m": 1, "output_per_m": 3}}}))
    with ScriptedPeer(answering) as peer:
        priced = last_json(run_cli(tmp_path / "data", peer, "--model", "gpt-4o-mini", "--prices", str(table)))
        broken = tmp_path / "broken.json"
        broken.write_text(json.dumps({"models": {"x": {"input_per_m": "cheap"}}}))
        refused = run_cli(tmp_path / "data2", peer, "--model", "x", "--prices", str(broken))
    assert priced["cost"]["priced_by"] == "file"
    assert priced["cost"]["usd"] == pytest.approx(20 * (PROMPT * 1 + COMPLETION * 3) / 1e6)
    assert priced["cost"]["price"]["file"] == "prices.json" and priced["cost"]["price"]["table_as_of"] == "2026-11-01"
    assert refused.returncode == 2 and "input_per_m" in refused.stderr


def test_samples_in_flight_when_the_budget_is_spent_finish_and_are_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EVALUI_BENCHMARKS", "toy=toy_benchmark:BENCHMARK")
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    from evalui.core import registry

    spec = registry.get("toy")
    store = RunStore(tmp_path / "runs.sqlite")
    events = []
    with Held(answering) as held, ScriptedPeer(held) as peer:
        settings = settings_for(peer, model="m", price_input_per_m=PRICE_IN, price_output_per_m=PRICE_OUT)
        exp_id = lifecycle.prepare(store, spec, ToyOptions(n=12, seed=1), settings, exp_id="flight", concurrency=3)
        set_budget(store, exp_id, 0.001)  # less than one sample: the first answer spends it
        result = {}
        thread = threading.Thread(target=lambda: result.update(
            lifecycle.execute(store, exp_id, settings, on_progress=events.append)))
        thread.start()
        wait_for(lambda: len(peer.chat_requests()) == 3, "three samples in flight at once")
        held.release()
        thread.join(HANG_S)
        assert not thread.is_alive()
        asked = len(peer.chat_requests())
    assert asked == 3  # none started after the budget was spent
    assert result["status"] == "budget_spent"
    assert store.progress(exp_id)["judged"] == 3  # the three in flight finished and were stored
    assert result["cost"]["usd"] == pytest.approx(3 * PER_SAMPLE)
    assert events[-1].message.startswith("budget_spent: $0.0180 spent of the $0.0010 budget")
    store.close()


def test_the_whole_runs_cost_is_estimated_after_the_first_five_samples(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EVALUI_BENCHMARKS", "toy=toy_benchmark:BENCHMARK")
    monkeypatch.delenv("EVALUI_PRICES", raising=False)
    from evalui.core import registry

    store = RunStore(tmp_path / "runs.sqlite")
    events = []
    with ScriptedPeer(answering) as peer:
        settings = settings_for(peer, model="m", price_input_per_m=PRICE_IN, price_output_per_m=PRICE_OUT)
        exp_id = lifecycle.prepare(store, registry.get("toy"), ToyOptions(n=10, seed=2), settings, concurrency=1)
        lifecycle.execute(store, exp_id, settings, on_progress=events.append)
    # Before any answer there is nothing to go by; from the fifth answer on (each sample costs the
    # same here) every estimate is the whole run's cost. Which event first carries it depends on
    # when the store commits, so the test does not name it (unit tests hold the threshold).
    assert events[0].done == 0 and events[0].cost_estimate_usd is None
    estimates = [e.cost_estimate_usd for e in events if e.cost_estimate_usd is not None]
    assert estimates and estimates == pytest.approx([10 * PER_SAMPLE] * len(estimates))
    assert events[-1].cost_usd == pytest.approx(10 * PER_SAMPLE)
    assert events[-1].cost_estimate_usd == pytest.approx(10 * PER_SAMPLE)
    store.close()


def test_a_resume_keeps_the_runs_own_price_unless_prices_are_given_with_it(tmp_path):
    data = tmp_path / "data"
    with ScriptedPeer(answering) as peer:
        first = last_json(run_cli(data, peer, "--model", "gpt-4o-mini", "--price-input", "2", "--price-output", "8",
                                  "--max-cost", "0.01"))
        assert first["status"] == "budget_spent" and first["cost"]["priced_by"] == "run"
        # Resumed without prices: the run's own, not the table's line for gpt-4o-mini.
        kept = last_json(run_cli(data, peer, "--model", "gpt-4o-mini", "--max-cost", "0.05"))
        assert kept["cost"]["priced_by"] == "run" and kept["cost"]["price"]["input_per_m"] == 2.0
        # Prices given with a resume replace it, for every sample of the run.
        given = last_json(run_cli(data, peer, "--model", "gpt-4o-mini", "--price-input", "1", "--price-output", "1"))
    asked = len(peer.chat_requests())
    assert given["cost"]["usd"] == pytest.approx(asked * (PROMPT + COMPLETION) / 1e6)
