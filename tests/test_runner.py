"""The generic runner: a task that fails on one sample's data does not stop the run."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from peers import settings_for

from evalui.engine.client import ModelClient
from evalui.engine.runner import run_experiment
from evalui.engine.store import RunStore
from evalui.testing.openai_peer import ScriptedPeer, completion

pytestmark = pytest.mark.unit


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
