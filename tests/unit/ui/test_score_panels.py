"""The Score tab builds one panel per benchmark whose spec offers file scoring (Benchmark.score_files),
with ids and an endpoint made from the spec's name; a benchmark added through the registry gets one too."""

from __future__ import annotations

import inspect
import json
import sys
import types

import gradio as gr
import pytest

from evalui.core import registry
from evalui.core.benchmark import Benchmark, FileScoring, Options, ScoreInput


class NoOptions(Options):
    pass


def _score(values, budget_s):
    kind, path = values
    lines = open(path, encoding="utf-8").read().split()
    rows = [{"line": text, "correct": text == kind} for text in lines]
    return rows, {"correct": sum(r["correct"] for r in rows), "total": len(rows)}


TOY = Benchmark(name="scoretoy", title="Score toy", options=NoOptions, samples=lambda o: [], task=lambda *a: None,
                score_files=FileScoring(
                    inputs=(ScoreInput("kind", "score.category", choices=lambda: ["a", "b"], default="a"),
                            ScoreInput("answers", "score.results", file_types=(".txt",))),
                    score=_score, figures=lambda s: [("score.choose_file", {}), ("score.choose_file", {})],
                    columns=("line", "correct"), intro="score.json", button="score.summary",
                    verdicts_name=lambda values: f"{values[0]}_toy.jsonl"))


@pytest.fixture()
def toy(monkeypatch):
    module = types.ModuleType("scoretoy_spec")
    module.TOY = TOY
    monkeypatch.setitem(sys.modules, "scoretoy_spec", module)
    monkeypatch.setattr(registry, "_registered", {"scoretoy": "scoretoy_spec:TOY"})
    monkeypatch.delenv("EVALUI_ALLOWED_USERS", raising=False)


def test_each_scoring_benchmark_gets_its_panel_and_endpoint(toy):
    from evalui.ui.tabs import score

    with gr.Blocks() as demo:
        score.build()
    ids = {block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)}
    built_in = {"score-bfcl-category", "score-bfcl-file", "score-bfcl-button", "score-gaia-submission",
                "score-gaia-metadata", "score-gaia-button"}
    assert built_in | {"score-scoretoy-kind", "score-scoretoy-answers", "score-scoretoy-button"} <= ids
    names = [fn.api_name for fn in demo.fns.values()]
    assert names == ["score_bfcl_file", "score_gaia_file", "score_scoretoy_file"]  # the registry's order
    assert not any(name.startswith("score-aime") for name in ids)  # its specs score no files


def test_the_endpoint_scores_with_the_specs_function(toy, tmp_path):
    from evalui.ui.tabs import score

    answers = tmp_path / "answers.txt"
    answers.write_text("a b a\n", encoding="utf-8")
    handler = score.score_scoretoy_file
    assert list(inspect.signature(handler).parameters) == ["kind", "answers"]
    figures, summary, table, out = handler("a", str(answers))
    assert figures == "Choose a file first.\nChoose a file first."
    assert json.loads(summary) == {"correct": 2, "total": 3}
    assert list(table.columns) == ["line", "correct"] and len(table) == 3
    assert out.endswith("a_toy.jsonl")
    with pytest.raises(AttributeError):
        score.score_nothing_file  # noqa: B018


def test_the_built_in_names_are_the_same_functions():
    import inspect

    from evalui.ui.tabs import score

    assert list(inspect.signature(score.score_bfcl_file).parameters) == ["category", "upload"]
    assert list(inspect.signature(score.score_gaia_file).parameters) == ["submission", "metadata"]
    assert "| correct | 1 of 2 |" in score.bfcl_figures({"category": "simple_python", "correct": 1, "total": 2,
                                                          "accuracy": 0.5, "ci95": [0.1, 0.9], "missing": 0})
