"""An endpoint whose usage lies (negative, huge, NaN, strings, booleans), through the real path: the
client refuses the reply as a bad response, a CLI run records the sample's error and goes on
without a traceback, its cost stays what the honest replies cost, a budget still stops the run, and
the stores (SQLite and PostgreSQL) hold counts no endpoint can overflow."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from peers import settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from toy_benchmark import ToyOptions, ask, samples
from unit.store.test_postgres_store import _register, store_url  # noqa: F401  (fixtures are used by name)
from waiting import HANG_S

from evalui.endpoint.client import EndpointError, ModelClient
from evalui.endpoint.completion import MAX_REPLY_TOKENS
from evalui.store.counts import MAX_SAMPLE_TOKENS
from evalui.store.run_store import MIGRATIONS, RunStore
from support.openai_peer import Reply, ScriptedPeer, completion

TESTS = Path(__file__).resolve().parents[2]
PROMPT, COMPLETION = 1000, 500  # what an honest reply reports
PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens
PER_SAMPLE = (PROMPT * PRICE_IN + COMPLETION * PRICE_OUT) / 1e6  # 0.006 USD

# (field, value as the JSON body spells it, how the error shows it). The body is written by hand:
# NaN and Infinity are not JSON, but a server's encoder may write them, and evalui's reader takes them.
LIES = [
    ("prompt_tokens", "-1000000", "-1000000"),
    ("completion_tokens", "1.5e19", "1.5e+19"),
    ("prompt_tokens", "15000000000000000000", "15000000000000000000"),
    ("completion_tokens", "NaN", "nan"),
    ("prompt_tokens", "Infinity", "inf"),
    ("prompt_tokens", '"12"', "'12'"),
    ("completion_tokens", "true", "True"),
    ("prompt_tokens", "12.5", "12.5"),
    ("completion_tokens", str(MAX_REPLY_TOKENS + 1), str(MAX_REPLY_TOKENS + 1)),
]


def lying(text: str, field: str, raw: str) -> Reply:
    """An honest completion but for one usage count, spelled ``raw`` in the body."""
    body = completion(text, prompt_tokens=PROMPT, completion_tokens=COMPLETION).body
    usage = {"prompt_tokens": str(PROMPT), "completion_tokens": str(COMPLETION), field: raw}
    usage_text = "{" + ", ".join(f'"{key}": {value}' for key, value in usage.items()) + "}"
    return Reply(body=json.dumps({**body, "usage": "USAGE"}).replace('"USAGE"', usage_text))


def error_named(field: str, shown: str) -> str:
    return f"the usage's {field} is {shown}; a token count is a whole number from 0 to {MAX_REPLY_TOKENS:,}"


@pytest.mark.parametrize("field, raw, shown", LIES, ids=[f"{f}={r}" for f, r, _ in LIES])
def test_the_client_refuses_a_reply_whose_usage_lies_as_a_bad_response(field, raw, shown):
    with ScriptedPeer(lambda body, n: lying("4", field, raw)) as peer:
        client = ModelClient(settings_for(peer, max_retries=1), backoff_initial_s=0.01, backoff_max_s=0.02)
        with pytest.raises(EndpointError) as failed:
            client.chat([{"role": "user", "content": "2 + 2?"}])
        asked = len(peer.chat_requests())
    assert failed.value.kind == "bad_response" and failed.value.attempts == 2 == asked  # retried as a malformed reply
    assert str(failed.value) == f"bad_response: {error_named(field, shown)} (after 2 attempts)"
    assert error_named(field, shown) in failed.value.plain


def test_a_lying_reply_then_an_honest_one_is_the_honest_ones_tokens():
    replies = [lying("4", "prompt_tokens", "-1000000"),
               completion("4", prompt_tokens=PROMPT, completion_tokens=COMPLETION)]
    with ScriptedPeer(lambda body, n: replies[min(n, 2) - 1]) as peer:
        reply = ModelClient(settings_for(peer), backoff_initial_s=0.01, backoff_max_s=0.02).chat(
            [{"role": "user", "content": "2 + 2?"}])
    assert (reply.prompt_tokens, reply.completion_tokens, reply.attempts) == (PROMPT, COMPLETION, 2)


def run_cli(data: Path, peer, exp_id: str, n: int, *flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EVALUI_BENCHMARKS": "toy=toy_benchmark:BENCHMARK", "EVALUI_DATA_DIR": str(data),
           "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("EVALUI_PRICES", None)
    env.pop("EVALUI_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "evalui", "toy", "run", "--n", str(n), "--seed", "3",
                           "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id, "--concurrency", "1",
                           "--max-retries", "0", "--price-input", str(PRICE_IN), "--price-output", str(PRICE_OUT),
                           *flags], env=env, capture_output=True, text=True, timeout=HANG_S * 3)


def question(payload: dict) -> str:
    return f"What is {payload['a']} + {payload['b']}?"


def test_a_run_against_an_endpoint_whose_usage_lies_records_each_samples_error_and_goes_on(tmp_path):
    n = len(LIES) + 3
    specs = samples(ToyOptions(n=n, seed=3))
    lie_of = {question(payload): lie for (_, _, payload), lie in zip(specs, LIES)}
    assert len(lie_of) == len(LIES)  # each lying sample asks its own question

    def script(body, number):
        asked = body["messages"][-1]["content"]
        if asked in lie_of:
            field, raw, _ = lie_of[asked]
            return lying(ask(asked), field, raw)
        return completion(ask(asked), prompt_tokens=PROMPT, completion_tokens=COMPLETION)

    data = tmp_path / "data"
    with ScriptedPeer(script) as peer:
        done = run_cli(data, peer, "liars", n)
        asked = len(peer.chat_requests())
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Traceback" not in output and "OverflowError" not in output
    assert asked == n  # every sample was asked once (--max-retries 0): none stopped the run
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["total"] == n
    # The cost is the honest samples' only, finite and never below zero.
    assert math.isfinite(summary["cost"]["usd"]) and summary["cost"]["usd"] == pytest.approx(3 * PER_SAMPLE)
    assert (summary["cost"]["input_tokens"], summary["cost"]["output_tokens"]) == (3 * PROMPT, 3 * COMPLETION)
    store = RunStore(data / "evalui.sqlite")
    try:
        stored = {s.sample_id: s for s in store.samples("liars")}
        for (sample_id, _, _payload), (field, _, shown) in zip(specs, LIES):
            sample = stored[sample_id]
            assert sample.stage == "init" and error_named(field, shown) in sample.error, (sample_id, sample.error)
            assert sample.error.startswith("bad_response: ") and "Traceback" not in sample.error
            assert (sample.prompt_tokens, sample.completion_tokens) == (0, 0)
        honest = [stored[sample_id] for sample_id, _, _ in specs[len(LIES):]]
        assert all(s.stage == "judged" and (s.prompt_tokens, s.completion_tokens) == (PROMPT, COMPLETION)
                   for s in honest)
        counts = store.progress("liars")
        assert counts["errors"] == len(LIES) and counts["tokens"] == 3 * (PROMPT + COMPLETION)
    finally:
        store.close()


def test_a_negative_usage_does_not_buy_a_budget_back(tmp_path):
    """A reply claiming −1,000,000 prompt tokens once cost −2 USD here, and the 0.02 USD budget was
    never reached; refused, it costs nothing, and the budget stops the run after four honest samples."""
    def script(body, number):
        asked = body["messages"][-1]["content"]
        if number == 1:
            return lying(ask(asked), "prompt_tokens", "-1000000")
        return completion(ask(asked), prompt_tokens=PROMPT, completion_tokens=COMPLETION)

    with ScriptedPeer(script) as peer:
        done = run_cli(tmp_path / "data", peer, "budget", 20, "--max-cost", "0.02")
        asked = len(peer.chat_requests())
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["status"] == "budget_spent" and asked == 5  # the liar, then four honest samples
    assert summary["cost"]["usd"] == pytest.approx(4 * PER_SAMPLE)


def test_a_stores_token_counts_hold_what_a_run_can_sum_and_no_more(store_url):
    """PostgreSQL's INTEGER has 32 bits: a sample of 3 billion tokens (an agent's many steps) and a
    run's sum past 2**31 must fit. Counts out of range (a task's own sum) are clamped, never refused
    by the database in the middle of a group commit."""
    store = RunStore(url=store_url)
    try:
        _register(store, "e", 3)
        for sample_id, prompt, completion_tokens in (("s0", 3_000_000_000, 7), ("s1", 2**70, -5), ("s2", 2**31, 2**31)):
            store.record_rollout("e", sample_id, request={}, response={"text": "a"}, latency_s=0.1,
                                 prompt_tokens=prompt, completion_tokens=completion_tokens, attempts=1)
        stored = {s.sample_id: (s.prompt_tokens, s.completion_tokens) for s in store.samples("e")}
        assert stored == {"s0": (3_000_000_000, 7), "s1": (MAX_SAMPLE_TOKENS, 0), "s2": (2**31, 2**31)}
        assert store.progress("e")["tokens"] == 3_000_000_007 + MAX_SAMPLE_TOKENS + 2**32
    finally:
        store.close()


def test_a_postgresql_store_from_before_widens_its_counts_and_keeps_counting(pg_url):
    """A store written before the counts were 64-bit: its counts survive the change of type, and the
    trigger that keeps them, made again around it, still counts the next write."""
    from evalui.store.counts import wide_token_counts
    from evalui.store.sql import PostgresConnection, _run_step

    before = MIGRATIONS.index(wide_token_counts)
    old = PostgresConnection(pg_url)
    for step in MIGRATIONS[:before]:
        _run_step(old, step, "postgresql")
    old.execute("CREATE TABLE evalui_schema (version INTEGER NOT NULL)")
    old.execute("INSERT INTO evalui_schema (version) VALUES (?)", (before,))
    old.execute("INSERT INTO experiments (exp_id, benchmark, created_at, updated_at) VALUES ('e', 'echo', 0, 0)")
    old.executemany("INSERT INTO samples (exp_id, sample_id, position, prompt_tokens, completion_tokens, updated_at)"
                    " VALUES ('e', ?, ?, ?, ?, 0)", [("s0", 0, 5, 6), ("s1", 1, 0, 0)])
    old.commit()
    old.close()

    store = RunStore(url=pg_url)
    try:
        assert store.schema_version == len(MIGRATIONS) and store.progress("e")["tokens"] == 11
        looking = PostgresConnection(pg_url)
        types = {row[0]: row[1] for row in looking.execute(
            "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns"
            " WHERE column_name IN ('prompt_tokens', 'completion_tokens', 'n_tokens')").fetchall()}
        looking.close()
        assert types == {"samples.prompt_tokens": "bigint", "samples.completion_tokens": "bigint",
                         "experiments.n_tokens": "bigint"}
        store.record_rollout("e", "s1", request={}, response={"text": "a"}, latency_s=0.1,
                             prompt_tokens=3_000_000_000, completion_tokens=1, attempts=1)
        assert store.progress("e")["tokens"] == 3_000_000_012
    finally:
        store.close()
