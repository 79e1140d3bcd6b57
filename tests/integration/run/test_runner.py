"""The generic runner: a task that fails on one sample's data does not stop the run."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from peers import Held, cancel_when_asked, settings_for

from evalui.endpoint.client import ModelClient
from evalui.run.runner import run_experiment
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion


@dataclass
class EchoTask:
    """Asks the model to echo the sample's word; a sample marked 'bad' breaks the task's judge."""

    benchmark: str = "echo"

    def build_request(self, sample):
        return {"messages": [{"role": "user", "content": sample.payload["word"]}]}

    def call(self, client, sample, request):
        return client.chat(request["messages"])

    def judge(self, sample, response):
        if sample.payload.get("bad"):
            raise KeyError("field missing from this sample")
        return response["text"], response["text"] == sample.payload["word"], {}


def test_a_sample_that_breaks_the_task_is_an_error_not_a_crash(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("echo-1", "echo", "m", "h", {})
    store.add_samples("echo-1", [(f"s{i}", "g", {"word": f"w{i}", "bad": i == 2}) for i in range(5)])
    events = []
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        final = run_experiment(store, "echo-1", EchoTask(), ModelClient(settings_for(peer)), concurrency=2,
                               on_progress=events.append)
    assert final.done == 4 and final.correct == 4 and final.errors == 1
    assert store.experiment("echo-1")["status"] == "incomplete"
    broken = next(s for s in store.samples("echo-1") if s.sample_id == "s2")
    assert broken.stage == "init" and "task_error: KeyError" in broken.error
    assert events[-1].message == "incomplete" and events[-1].eta_s is not None
    store.close()


@dataclass
class AsyncEchoTask(EchoTask):
    """The same task with ``acall``: the runner runs its samples on the client's event loop."""

    def call(self, client, sample, request):
        raise AssertionError("a task with acall is not called on a thread")

    async def acall(self, client, sample, request):
        return await client.achat(request["messages"])


def test_a_task_with_acall_runs_on_the_clients_loop(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("echo-2", "echo", "m", "h", {})
    store.add_samples("echo-2", [(f"s{i}", "g", {"word": f"w{i}", "bad": i == 2}) for i in range(20)])
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        final = run_experiment(store, "echo-2", AsyncEchoTask(), ModelClient(settings_for(peer)), concurrency=4)
    assert final.done == 19 and final.correct == 19 and final.errors == 1
    judged = [s for s in store.samples("echo-2") if s.stage == "judged"]
    assert len(judged) == 19 and all(s.steps == 1 and s.trajectory[0]["text"] == s.payload["word"] for s in judged)
    store.close()


def test_cancelling_a_run_on_the_loop_stops_requests_in_flight(tmp_path):
    import threading

    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("slow-2", "echo", "m", "h", {})
    store.add_samples("slow-2", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(6)])
    cancel = threading.Event()
    # The peer holds every answer until the test ends: a run that waited for them would never end.
    with Held() as held, ScriptedPeer(held) as peer:
        client = ModelClient(settings_for(peer, timeout_s=3600))
        thread = threading.Thread(target=lambda: run_experiment(store, "slow-2", AsyncEchoTask(), client,
                                                                concurrency=2, cancel=cancel), daemon=True)
        thread.start()
        cancel_when_asked(peer, cancel, thread)
        asked = len(peer.chat_requests())
    assert asked == 2  # one request for each of the two samples in flight, none after the cancel
    assert store.experiment("slow-2")["status"] == "cancelled"
    assert all(s.stage == "init" and s.error is None for s in store.samples("slow-2"))
    store.close()


def test_chat_on_the_clients_own_loop_raises_instead_of_hanging():

    import pytest

    with ScriptedPeer(lambda body, n: completion("x")) as peer:
        client = ModelClient(settings_for(peer))

        async def blocking_call_on_the_loop():
            return client.chat([{"role": "user", "content": "hi"}])

        with pytest.raises(RuntimeError, match="achat"):
            client.submit(blocking_call_on_the_loop()).result(timeout=5)


@dataclass
class PreparedEchoTask(AsyncEchoTask):
    """Records what the runner hands to ``prepare`` and whether any request came first."""

    prepared: list | None = None
    asked_before_prepare: bool = False
    fail_prepare: bool = False

    def prepare(self, samples):
        if self.fail_prepare:
            raise RuntimeError("warm-up broke")
        self.prepared = sorted(s.sample_id for s in samples)

    def build_request(self, sample):
        if self.prepared is None and not self.fail_prepare:
            self.asked_before_prepare = True
        return super().build_request(sample)


@pytest.mark.parametrize("fail_prepare", [False, True])
def test_prepare_sees_the_pending_samples_before_any_request(tmp_path, fail_prepare):
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("echo-p", "echo", "m", "h", {})
    store.add_samples("echo-p", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(6)])
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        client = ModelClient(settings_for(peer))
        first = PreparedEchoTask(fail_prepare=fail_prepare)
        store.record_judgement("echo-p", "s0", prediction="w0", correct=True, verdict={})
        final = run_experiment(store, "echo-p", first, client, concurrency=3)
    # A warm-up that fails is only a lost head start: every sample still runs and is judged.
    assert final.done == 6 and final.correct == 6
    if not fail_prepare:
        assert first.prepared == [f"s{i}" for i in range(1, 6)] and not first.asked_before_prepare
    store.close()


@dataclass
class FixedEchoTask(AsyncEchoTask):
    """Says its requests are fixed; records when each was built, against the requests the peer had then."""

    peer: ScriptedPeer | None = None
    built: list | None = None  # (sample id, requests the peer had received when it was built)
    broken: str = ""  # a sample whose build fails

    def fixed_request(self, sample):
        return True

    def build_request(self, sample):
        if self.built is not None:
            self.built.append((sample.sample_id, len(self.peer.chat_requests())))
        if sample.sample_id == self.broken:
            raise ValueError("this sample's data is broken")
        request = super().build_request(sample)
        # Long enough that the store keeps its messages as a part (evalui.store.parts).
        request["tools"] = [{"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 300}}
                            for i in range(2)]
        return request


def _stored_requests(store, exp_id):
    rows = store._read("SELECT sample_id, request FROM samples WHERE exp_id = ? ORDER BY sample_id", (exp_id,))
    return {row["sample_id"]: row["request"] for row in rows}


def test_fixed_requests_are_built_and_packed_before_the_first_request_and_stored_the_same(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    for exp_id in ("ahead", "on-turn"):
        store.create_or_get_experiment(exp_id, "echo", "m", "h", {})
        store.add_samples(exp_id, [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(8)])
    store.record_rollout("ahead", "s0", request={"messages": []}, response={"text": "w0"}, latency_s=0.1,
                         prompt_tokens=1, completion_tokens=1, attempts=1)  # answered before: judged, not built
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        ahead = FixedEchoTask(peer=peer, built=[])
        final = run_experiment(store, "ahead", ahead, ModelClient(settings_for(peer)), concurrency=3)
        on_turn = FixedEchoTask(peer=peer)
        on_turn.fixed_request = None  # the same task, built on each sample's turn
        run_experiment(store, "on-turn", on_turn, ModelClient(settings_for(peer)), concurrency=3)
    assert final.done == 8 and final.correct == 8
    # Every pending sample was built once, before the peer had any request of the run.
    assert sorted(sample for sample, _ in ahead.built) == [f"s{i}" for i in range(1, 8)]
    assert all(asked == 0 for _, asked in ahead.built)
    # What the store keeps is what the on-turn path keeps, part references included.
    stored, expected = _stored_requests(store, "ahead"), _stored_requests(store, "on-turn")
    assert all(stored[f"s{i}"] == expected[f"s{i}"] and stored[f"s{i}"].startswith("@") for i in range(1, 8))
    assert [s.request["tools"][0]["function"]["name"] for s in store.samples("ahead")[1:]] == ["tool_0"] * 7
    store.close()


def test_a_fixed_request_that_cannot_be_built_fails_its_own_sample_in_its_turn(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("ahead-bad", "echo", "m", "h", {})
    store.add_samples("ahead-bad", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(4)])
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        final = run_experiment(store, "ahead-bad", FixedEchoTask(peer=peer, broken="s2"),
                               ModelClient(settings_for(peer)), concurrency=2)
        asked = len(peer.chat_requests())
    assert final.done == 3 and final.errors == 1 and asked == 3
    broken = next(s for s in store.samples("ahead-bad") if s.sample_id == "s2")
    assert broken.stage == "init" and "this sample's data is broken" in broken.error
    store.close()


@dataclass
class OrderedEchoTask(FixedEchoTask):
    """Writes down, in order, each call as it starts and each judgement."""

    events: list | None = None

    async def acall(self, client, sample, request):
        self.events.append(("call", sample.sample_id))
        return await super().acall(client, sample, request)

    def judge(self, sample, response):
        self.events.append(("judge", sample.sample_id))
        return super().judge(sample, response)


@pytest.mark.parametrize("fixed", [True, False])
def test_a_fixed_requests_next_call_goes_out_before_its_answer_is_judged(tmp_path, fixed):
    """One worker: with requests built ahead, sample k+1 is asked before sample k's answer is kept and
    judged (a wave of answers no longer waits for each other's judging); built on its turn, each
    answer is judged before the next call. Every answer is judged either way."""
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("order", "echo", "m", "h", {})
    store.add_samples("order", [(f"s{i}", "g", {"word": f"w{i}"}) for i in range(5)])
    with ScriptedPeer(lambda body, n: completion(body["messages"][0]["content"])) as peer:
        task = OrderedEchoTask(peer=peer, events=[])
        if not fixed:
            task.fixed_request = None
        final = run_experiment(store, "order", task, ModelClient(settings_for(peer)), concurrency=1)
    assert final.done == 5 and final.correct == 5
    assert all(s.stage == "judged" for s in store.samples("order"))
    calls = [sample for kind, sample in task.events if kind == "call"]
    ahead = [task.events.index(("call", calls[index + 1])) < task.events.index(("judge", sample))
             for index, sample in enumerate(calls[:-1])]
    if fixed:
        # The first claim holds four samples: the second is asked before the first is judged. (A
        # worker that must wait for its next claim lets the judging run meanwhile.)
        assert task.events[:3] == [("call", "s0"), ("call", "s1"), ("judge", "s0")], task.events
    else:
        assert not any(ahead), task.events
    store.close()
