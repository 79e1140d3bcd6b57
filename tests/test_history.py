"""Run history: list, compare, resume with the stored endpoint, delete."""

from __future__ import annotations

from pathlib import Path

import pytest
from peers import settings_for

from evalui import history
from evalui.benchmarks.bfcl.run import execute_bfcl_run, prepare_bfcl_run
from evalui.engine.store import RunStore
from evalui.testing.bfcl_oracle import BfclOracle
from evalui.testing.openai_peer import ScriptedPeer, error


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    store = RunStore()
    yield store
    store.close()


def test_list_compare_resume_delete(store):
    oracle = BfclOracle(["simple_python", "multiple"])
    broken = {"on": True}

    def script(body, n):
        entry = oracle.entry_for(body)
        if broken["on"] and entry.category == "multiple" and entry.id.endswith(("_1", "_2")):
            return error(500)
        return oracle.gold_reply(body) if n % 4 else oracle.wrong_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        first = prepare_bfcl_run(store, settings, ["simple_python", "multiple"], limit=4, mode="fc", exp_id="run-a")
        execute_bfcl_run(store, settings, first, concurrency=2)
        second = prepare_bfcl_run(store, settings_for(peer, model="other-model"), ["simple_python"], limit=4,
                                  mode="prompt", exp_id="run-b")
        execute_bfcl_run(store, settings_for(peer, model="other-model"), second, concurrency=2)

        frame = history.runs_frame(store)
        assert set(frame["exp_id"]) == {"run-a", "run-b"}
        row = frame.set_index("exp_id").loc["run-a"]
        assert row["status"] == "incomplete" and row["done"] == "6/8" and row["endpoint"] == settings.host
        assert row["metric"] == "accuracy" and 0 <= row["value"] <= 1 and row["tokens"] > 0

        bars, scatter = history.comparison_figures(store, ["run-a", "run-b"])
        assert [trace.name.split(" ")[0] for trace in bars.data] == ["run-a", "run-b"]
        assert list(bars.data[0].x) == ["simple_python", "multiple"]
        assert len(scatter.data) == 2

        broken["on"] = False
        asked = len(peer.chat_requests())
        experiment = store.experiment("run-a")
        summary = history.resume_run(store, "run-a", history.stored_endpoint(experiment, "sk-now"))
        assert summary["status"] == "finished" and summary["judged"] == 8
        assert len(peer.chat_requests()) == asked + 2
        assert peer.chat_requests()[-1].authorization == "Bearer sk-now"

    folder = Path(store.experiment("run-b")["out_dir"])
    assert folder.is_dir() and history.artefacts(store.experiment("run-b"))
    history.delete_run(store, "run-b")
    assert store.experiment("run-b") is None and not folder.exists() and store.samples("run-b") == []
    with pytest.raises(ValueError):
        history.delete_run(store, "run-b")
