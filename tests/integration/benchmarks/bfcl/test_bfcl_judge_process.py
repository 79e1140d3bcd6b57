"""Single-turn BFCL answers packed and judged in the run's child process (EVALUI_JUDGE_PROCESS=on),
judged together on the loop (off: evalui.run.answer_batch), or each in a task of its own (a task
without a pure judge) are stored alike, sample by sample and byte for byte: the official checker's
verdicts on gold, wrong and unparsable answers, the kept answers and their search documents, in
both modes, the format-sensitivity category included; and with epochs, each epoch's answer is
judged as its sample's."""

from __future__ import annotations

import re
import sys
import threading
import zlib

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.run.epochs import add_epochs
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion

CATEGORIES = ["simple_python", "multiple", "parallel", "irrelevance", "live_simple", "simple_javascript"]
PROMPT_ONLY = ["format_sensitivity"]  # prompt formats: there are none in FC mode
# The columns an answer and its verdict write, as stored (part references included); not the
# latency and times, which differ between any two runs.
COLUMNS = "request, response, trajectory, prompt_tokens, completion_tokens, attempts, prediction, correct, verdict, " \
          "error_type, unscored, findings"
LATENCY = re.compile(r'"latency_s":[0-9.e-]+')  # each step's, inside the trajectory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the judges' child is forked")


@pytest.fixture(scope="module")
def oracle():
    return BfclOracle(CATEGORIES + PROMPT_ONLY)


def _script(oracle):
    def answer(body, n):
        entry = oracle.entry_for(body)
        index = zlib.crc32(entry.id.encode()) if entry is not None else 0  # ids are not all numbered alike
        if index % 3 == 1:
            return oracle.wrong_reply(body)
        if index % 3 == 2:
            return completion("I would call a function here, [but( this is not code")
        return oracle.gold_reply(body)
    return answer


class _NoPureJudge:
    """The BFCL task without its pure judge (``judge_job``): each answer is kept and judged in a task
    of the loop of its own, through ``ajudge``."""

    def __init__(self, task):
        self._task = task

    def __getattr__(self, name: str):
        if name == "judge_job":
            raise AttributeError(name)
        return getattr(self._task, name)


def _verdicts(store, oracle, mode: str, judge_process: str, monkeypatch, epochs: int = 1) -> dict:
    """``judge_process``: EVALUI_JUDGE_PROCESS, or "each" (off, and a task without a pure judge)."""
    monkeypatch.setenv("EVALUI_JUDGE_PROCESS", "off" if judge_process == "each" else judge_process)
    with ScriptedPeer(_script(oracle)) as peer:
        options = BfclOptions(categories=CATEGORIES + (PROMPT_ONLY if mode == "prompt" else []), limit=3, mode=mode)
        exp_id = lifecycle.prepare(store, BFCL, options, settings_for(peer), exp_id=f"{mode}-{judge_process}-{epochs}")
        add_epochs(store, exp_id, epochs)
        task = None
        if judge_process == "each":
            task = _NoPureJudge(lifecycle.make_task(BFCL, options, store, exp_id, threading.Event()))
        try:
            summary = lifecycle.execute(store, exp_id, settings_for(peer), concurrency=4, task=task)
        finally:
            if task is not None:
                task.close()
    assert summary["errors"] == 0 and summary["judged"] == summary["total"], [s.error for s in store.samples(exp_id) if s.error]
    rows = store._read(f"SELECT sample_id, stage, {COLUMNS} FROM samples WHERE exp_id = ?", (exp_id,))
    docs = store._read("SELECT sample_id, part, body FROM search_docs WHERE exp_id = ?", (exp_id,))
    return {"rows": {row["sample_id"]: tuple(LATENCY.sub("", value) if isinstance(value, str) else value for value in row)
                     for row in rows},
            "search": sorted((doc["sample_id"], doc["part"], doc["body"]) for doc in docs)}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_verdicts_from_the_child_equal_the_loops(store, oracle, mode, monkeypatch):
    away = _verdicts(store, oracle, mode, "on", monkeypatch)
    here = _verdicts(store, oracle, mode, "off", monkeypatch)
    each = _verdicts(store, oracle, mode, "each", monkeypatch)
    assert away["rows"] == here["rows"] == each["rows"]
    assert away["search"] == here["search"] == each["search"] and len(here["search"]) >= 2 * len(here["rows"])
    assert {row[1] for row in here["rows"].values()} == {"judged"}
    outcomes = {row[9] for row in here["rows"].values()}
    assert outcomes == {0, 1}  # right and wrong answers both judged
    assert any(key.startswith("format_sensitivity") for key in here["rows"]) == (mode == "prompt")


@pytest.mark.parametrize("judge_process", ["on", "off"])
def test_each_epoch_is_judged_as_its_sample(store, oracle, judge_process, monkeypatch):
    """A sample's second epoch (``x#e2``) is judged against ``x``'s entry, in the child and on the loop."""
    twice = _verdicts(store, oracle, "fc", judge_process, monkeypatch, epochs=2)
    once = _verdicts(store, oracle, "fc", "each", monkeypatch)
    assert len(twice["rows"]) == 2 * len(once["rows"])
    for sample_id, row in twice["rows"].items():
        assert row[1:] == once["rows"][sample_id.split("#")[0]][1:], sample_id
