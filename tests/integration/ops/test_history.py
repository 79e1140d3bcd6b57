"""Run history: list, compare, resume with the stored endpoint, delete."""
from __future__ import annotations

from pathlib import Path

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.ops import history
from evalui.reports.charts import CHART_WORDS
from evalui.run import lifecycle
from evalui.store.run_store import RunStore
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, error


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
        first = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python", "multiple"], limit=4,
                                                           mode="fc"), settings, exp_id="run-a")
        lifecycle.execute(store, first, settings, concurrency=2)
        second = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=4, mode="prompt"),
                                   settings_for(peer, model="other-model"), exp_id="run-b")
        lifecycle.execute(store, second, settings_for(peer, model="other-model"), concurrency=2)

        frame = history.runs_frame(store)
        assert set(frame["exp_id"]) == {"run-a", "run-b"}
        row = frame.set_index("exp_id").loc["run-a"]
        assert row["status"] == "incomplete" and row["done"] == "6/8" and row["endpoint"] == settings.host
        assert row["metric"] == "accuracy" and 0 <= row["value"] <= 1 and row["tokens"] > 0

        bars, scatter = history.comparison_figures(store, ["run-a", "run-b"])
        assert [trace.name.split(" ")[0] for trace in bars.data] == ["run-a", "run-b"]
        assert list(bars.data[0].x) == ["simple_python", "multiple"]
        assert len(scatter.data) == 2
        # The charts' own words are the ones given (the dashboard gives its visitor's language).
        marked = {key: f"«{key}»" for key in CHART_WORDS}
        bars, scatter = history.comparison_figures(store, ["run-a", "run-b"], marked)
        assert bars.layout.title.text == "«groups_compared»" and scatter.layout.title.text == "«headline_by_tokens»"
        assert (scatter.layout.xaxis.title.text, scatter.layout.yaxis.title.text) == ("«tokens»", "«accuracy_or_rate»")

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


def test_unscored_runs_task_words_and_mixed_comparisons(store, tmp_path):
    from evalui.benchmarks.gaia.data import load_questions_file
    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
    from evalui.benchmarks.gaia.spec import GaiaOptions
    from evalui.benchmarks.gaia.task import sample_specs
    from evalui.ui.run_view import status_line
    from integration.benchmarks.gaia.test_gaia import answering_script

    hidden = tmp_path / "test_split.json"
    hidden.write_text('[{"Question": "What is the chemical symbol of gold?", "Final answer": "?"}]')
    oracle = BfclOracle(["simple_python", "parallel"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as bfcl_peer, ScriptedPeer(answering_script) as peer:
        settings = settings_for(peer)
        gaia = lifecycle.prepare(store, GAIA, GaiaOptions(source="test"), settings, exp_id="hidden",
                                 specs=sample_specs(load_questions_file(hidden)))
        lifecycle.execute(store, gaia, settings)
        bfcl = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python", "parallel"], limit=1,
                                                          mode="fc"), settings_for(bfcl_peer), exp_id="calls")
        lifecycle.execute(store, bfcl, settings_for(bfcl_peer))

    row = history.runs_frame(store).set_index("exp_id").loc["hidden"]
    assert row["metric"] == "unscored" and row["value"] != row["value"]  # NaN: no figure, not 0
    line = status_line(store, "hidden")
    assert "finished · 1/1 done · unscored" in line and "%" not in line
    assert list(history.samples_frame(store, "hidden")["verdict"]) == ["unscored"]

    table = history.samples_frame(store, "calls").set_index("sample")
    assert table.loc["simple_python_0", "prediction"] == 'calculate_triangle_area(base=10, height=5, unit="units")'
    assert table.loc["parallel_0", "prediction"] == ('spotify_play(artist="Taylor Swift", duration=20)\n'
                                                     'spotify_play(artist="Maroon 5", duration=15)')
    assert set(table["verdict"]) == {"correct"}
    from evalui.benchmarks.bfcl.calls import pretty_truth

    assert pretty_truth([{"f": {"a": [1], "unit": ["units", ""]}}]) == 'f(a=1, unit=("units" | omitted))'

    with pytest.raises(ValueError, match="one benchmark at a time"):
        history.comparison_figures(store, ["hidden", "calls"])
