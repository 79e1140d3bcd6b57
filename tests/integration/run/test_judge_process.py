"""A run judges in a child process when its task's judge is pure (``judge_job``) and
EVALUI_JUDGE_PROCESS says so: the stored verdicts are the loop's, a judge that raises fails its own
sample, and a child that dies mid-run costs no verdict."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import pytest
from peers import settings_for

from evalui.endpoint.client import ModelClient
from evalui.run.runner import run_experiment
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the judges' child is forked")


def judge_word(word: str, text: str, broken: bool, parent_pid: int, die_on: str) -> tuple[object, bool, dict]:
    """Module-level, so that a job naming it pickles. The verdict says which process judged."""
    if broken:
        raise KeyError("field missing from this sample")
    if word == die_on and os.getpid() != parent_pid:
        os._exit(3)  # the child dies, as a crashing checker would; judged again in the parent
    return text, text == word, {"judged_in": os.getpid()}


@dataclass
class PureJudgeTask:
    """Echo: requests fixed ahead, one call each, and a pure judge the runner may send away."""

    benchmark: str = "echo"
    die_on: str = ""

    def fixed_request(self, sample):
        return True

    def build_request(self, sample):
        return {"messages": [{"role": "user", "content": sample.payload["word"]}]}

    def call(self, client, sample, request):
        raise AssertionError("a task with acall is not called on a thread")

    async def acall(self, client, sample, request):
        return await client.achat(request["messages"])

    def _arguments(self, sample, response):
        return (sample.payload["word"], response["text"], bool(sample.payload.get("bad")), os.getpid(), self.die_on)

    def judge(self, sample, response):
        return judge_word(*self._arguments(sample, response))

    def judge_job(self, sample, response):
        return judge_word, self._arguments(sample, response)


def _answer(body, n):
    word = body["messages"][0]["content"]
    return completion(word if not word.endswith("3") else "something else")  # w3, w13, ... are wrong


def _run(tmp_path, exp_id: str, task: PureJudgeTask, count: int = 40):
    store = RunStore(tmp_path / f"{exp_id}.sqlite")
    store.create_or_get_experiment(exp_id, "echo", "m", "h", {})
    store.add_samples(exp_id, [(f"s{i:02d}", "g", {"word": f"w{i}", "bad": i == 7}) for i in range(count)])
    with ScriptedPeer(_answer) as peer:
        final = run_experiment(store, exp_id, task, ModelClient(settings_for(peer)), concurrency=6)
    samples = {s.sample_id: s for s in store.samples(exp_id)}
    store.close()
    return final, samples


def _where(samples) -> set:
    return {s.verdict["judged_in"] for s in samples.values() if s.stage == "judged"}


def test_a_pure_judge_runs_in_the_child_and_stores_the_loops_verdicts(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_JUDGE_PROCESS", "on")
    final, away = _run(tmp_path, "away", PureJudgeTask())
    monkeypatch.setenv("EVALUI_JUDGE_PROCESS", "off")
    _, here = _run(tmp_path, "here", PureJudgeTask())
    assert (final.done, final.correct, final.errors) == (39, 35, 1)  # w3 w13 w23 w33 wrong; s07 broken
    assert _where(here) == {os.getpid()}
    assert len(_where(away)) == 1 and os.getpid() not in _where(away)
    # The same predictions, verdicts and stages, sample by sample; the broken sample fails alike.
    for sample_id, sample in here.items():
        other = away[sample_id]
        assert (other.stage, other.prediction, other.correct) == (sample.stage, sample.prediction, sample.correct)
    assert away["s07"].stage == "init" and "task_error: KeyError: 'field missing from this sample'" in away["s07"].error
    assert away["s07"].error == here["s07"].error


def test_auto_leaves_a_small_run_on_the_loop(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALUI_JUDGE_PROCESS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    final, samples = _run(tmp_path, "small", PureJudgeTask(), count=12)
    assert final.done == 11 and _where(samples) == {os.getpid()}


@pytest.mark.parametrize("cpus", [2, 4])
def test_auto_forks_for_a_large_run_with_four_cpus(tmp_path, monkeypatch, cpus):
    # On two CPUs the child's work comes out of the core the endpoint and the store's writer need.
    monkeypatch.delenv("EVALUI_JUDGE_PROCESS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)))
    final, samples = _run(tmp_path, f"large-{cpus}", PureJudgeTask(), count=300)
    assert final.done == 299
    assert (_where(samples) == {os.getpid()}) == (cpus == 2)


def test_a_child_that_dies_mid_run_costs_no_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_JUDGE_PROCESS", "on")
    final, samples = _run(tmp_path, "dies", PureJudgeTask(die_on="w20"))
    assert (final.done, final.correct, final.errors) == (39, 35, 1)
    assert all(s.stage == "judged" for i, s in samples.items() if i != "s07")
    # w20, and the rest of its batch, were judged again in this process.
    assert os.getpid() in _where(samples) and samples["s20"].verdict["judged_in"] == os.getpid()
