"""BFCL multi-turn safety and bookkeeping: hostile call names and arguments run nothing, every sample
gets fresh backends that do not outlive it, the step limit force-terminates, a resume repeats
no finished entry."""
from __future__ import annotations

import gc
import json
import threading
import uuid
import weakref
from collections import Counter

import pytest
from peers import cancel_when_asked, settings_for
from waiting import HANG_S

from evalui.benchmarks.bfcl.data import entries_by_id
from evalui.benchmarks.bfcl.score_file import score_result_file
from evalui.benchmarks.bfcl.scoring.multi_turn import (
    BACKEND_CLASSES,
    backend_class,
)
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from integration.benchmarks.bfcl.test_bfcl_multi_turn import official_verdict
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.openai_peer import ScriptedPeer, completion

CATEGORY = "multi_turn_base"


def hostile_script(oracle, marker_dir):
    """Gold answers, except that turn 0 starts with calls that would create files if anything ran them."""
    def touch(name):
        return f"__import__('os').system('touch {marker_dir / name}')"

    def reply(body, n):
        turn, step = oracle.position(body)
        if turn == 0 and step == 0:
            if body.get("tools"):
                return completion(None, [
                    (touch("fc_name"), "{}"),
                    ("cd", json.dumps({f"folder={touch('fc_key')},x": 1})),
                    ("ls", json.dumps({"a": {"open": {"file": str(marker_dir / "fc_value"), "mode": "w"}}})),
                ])
            return completion(f"[cd(folder={{'open': {{'file': '{marker_dir / 'prompt_value'}', 'mode': 'w'}}}}), "
                              f"os.system('touch {marker_dir / 'prompt_dotted'}')]")
        if turn == 0 and step == 1 and not body.get("tools"):
            return completion(f"[{touch('prompt_name')}]")
        return oracle.reply(body)
    return reply


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_injected_names_and_arguments_create_nothing_and_the_run_goes_on(store, official_runner, mode, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    oracle = MultiTurnOracle([CATEGORY], limit=3)
    with ScriptedPeer(hostile_script(oracle, markers)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=3, mode=mode), settings,
                                   exp_id=f"hostile-{mode}")
        summary = lifecycle.execute(store, exp_id, settings, concurrency=3)
    assert summary["errors"] == 0 and summary["total"] == 3  # judged, not crashed
    samples = store.samples(exp_id)
    results = [r for s in samples for step in s.trajectory for r in step["tool_results"]]
    assert any(r["error"] == "refused" for r in results)
    assert all(s.verdict["refused_calls"] >= 1 for s in samples)
    # Scoring the exported file again (as `evalui bfcl score` does) runs nothing either.
    verdicts, _ = score_result_file(summary["result_files"][CATEGORY], CATEGORY)
    assert [v["correct"] for v in verdicts] == [s.correct for s in samples]
    assert list(markers.iterdir()) == []
    # Later turns went on: the gold calls of turn 1 ran on the sample's backends.
    assert any(step["tool_results"] and not step["tool_results"][0]["error"] for s in samples
               for step in s.trajectory[2:])


@pytest.fixture()
def backends_made_here(monkeypatch):
    """Backend instances made in this process from now on, held weakly: none should outlive the
    runs (the calls run in workers). Recording them as they are made spares two walks of the
    whole heap, which took seconds late in a test worker."""
    made: list[weakref.ref] = []  # not a WeakSet: some backend classes are unhashable
    for name in BACKEND_CLASSES:
        cls = backend_class(name)

        def recording_init(self, *args, _original=cls.__init__, **kwargs):
            made.append(weakref.ref(self))
            _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", recording_init)
    return made


def alive(made: list[weakref.ref]) -> int:
    gc.collect()
    return sum(1 for instance in made if instance() is not None)


def backends_in_workers(pool=None) -> int:
    """Backend instances alive in the worker processes that run the calls, and any the checker left."""
    from evalui.benchmarks.bfcl.isolated import census

    return sum(worker["instances"] + worker["checker_instances"] for worker in census(pool))


def test_every_sample_gets_fresh_backends_and_none_survives_the_run(store, backends_made_here):
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    from evalui.benchmarks.bfcl.isolated import census

    oracle = MultiTurnOracle([CATEGORY], limit=6)
    seen_during = []
    held = threading.Event()
    running = {}

    def script(body, n):
        # A request that carries a call's result comes from a sample whose backends ran that call, and
        # that sample waits here for this answer: its instances are alive while they are counted.
        if len(seen_during) < 2 and any(m.get("role") == "tool" for m in body.get("messages", [])):
            seen_during.append(backends_in_workers(running["pool"]))
            held.set()
        return oracle.reply(body)

    def run(exp_id: str) -> tuple[dict, object]:
        # The run's task is made here, so that its workers outlive the run and can be asked what they hold.
        options = BfclOptions(categories=[CATEGORY], limit=6, mode="fc")
        lifecycle.prepare(store, BFCL, options, settings, exp_id=exp_id)
        task = lifecycle.make_task(BFCL, options, store, exp_id, threading.Event())
        running["pool"] = task.workers.pool
        return lifecycle.execute(store, exp_id, settings, concurrency=3, task=task), task

    with ScriptedPeer(script) as peer:
        # A count holds its request: the client waits for it (the bound only catches a hang).
        settings = settings_for(peer, timeout_s=HANG_S)
        _, first = run("fresh-1")
        # The same entries again, in a second run in the same process: each starts from its initial state.
        summary, second = run("fresh-2")
    try:
        assert held.is_set()
        assert summary["correct"] == 6, (summary["errors"], summary["error_types"])
        assert max(seen_during) > 0  # the instances existed while conversations ran ...
        for task in (first, second):  # ... and none outlived its sample in the run's workers
            assert backends_in_workers(task.workers.pool) == 0
            assert all(worker["sessions"] == 0 for worker in census(task.workers.pool))
        assert alive(backends_made_here) == 0
        assert not [n for n in vars(multi_turn_utils) if n.endswith("_instance")]
    finally:
        first.close()
        second.close()


def test_a_model_that_never_stops_calling_is_force_terminated(store, official_runner):
    oracle = MultiTurnOracle([CATEGORY], limit=2)
    with ScriptedPeer(lambda body, n: completion(None, [("pwd", "{}")]) if body.get("tools") else oracle.reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=2, mode="fc"), settings,
                                   exp_id="endless")
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
        asked = len(peer.chat_requests())
    assert asked == 2 * 21  # 20 steps allowed per turn; the 21st ends the conversation, as upstream
    assert summary["error_types"] == {"force_terminated": 2}
    entries = entries_by_id(CATEGORY)
    for sample in store.samples(exp_id):
        assert len(sample.prediction) == 1 and len(sample.prediction[0]) == 21
        official = official_verdict(official_runner, entries[sample.sample_id], sample.prediction, "fc")
        assert official["error"]["error_type"] == "multi_turn:force_terminated" and not sample.correct


def test_a_resume_repeats_no_finished_entry(store):
    oracle = MultiTurnOracle([CATEGORY], limit=12)
    cancel = threading.Event()

    def paced(body, n):  # about 90 requests in all: the cancel lands mid-run even on a busy machine
        reply = oracle.reply(body)
        reply.delay_s = 0.03
        return reply

    with ScriptedPeer(paced) as peer:
        settings = settings_for(peer, timeout_s=5.0)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[CATEGORY], limit=12, mode="fc"), settings,
                                   exp_id=f"resume-{uuid.uuid4().hex[:6]}")
        thread = threading.Thread(target=lifecycle.execute, args=(store, exp_id, settings),
                                  kwargs={"concurrency": 2, "cancel": cancel})
        thread.start()
        cancel_when_asked(peer, cancel, thread, requests=30)
        finished = {s.sample_id for s in store.samples(exp_id) if s.stage == "judged"}
        first_pass = len(peer.chat_requests())
        summary = lifecycle.execute(store, exp_id, settings, concurrency=2)
        resumed = Counter(oracle.entry_for(r.body).id for r in peer.chat_requests()[first_pass:])
    assert 0 < len(finished) < 12
    assert not finished & set(resumed)
    assert summary["correct"] == summary["total"] == 12
