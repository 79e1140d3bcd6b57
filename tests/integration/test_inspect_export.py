"""`evalui export inspect`: finished BFCL (single- and multi-turn, with epochs), GAIA agent and AIME
judge runs against scripted endpoints, exported and read back with inspect_ai's own log reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import inspect_ai.log as inspect_log  # in the test extra: a missing install fails here, it is not skipped
import pytest
from peers import settings_for

from evalui.engine.registry import get
from evalui.engine import epochs, lifecycle
from evalui.stats.epochs import split_epoch
from evalui.testing.bfcl_multi_turn_oracle import MultiTurnOracle
from evalui.testing.bfcl_oracle import BfclOracle
from evalui.testing.openai_peer import (
    ScriptedPeer,
    completion,
    error,
    first_user_text,
    tool_outputs,
)

ROOT = Path(__file__).resolve().parents[2]


def run(store, name: str, options: dict, settings, *, exp_id: str, runs: int = 1) -> dict:
    """A benchmark through the shared lifecycle, as every command runs it."""
    benchmark = get(name)
    lifecycle.prepare(store, benchmark, benchmark.make_options(options), settings, exp_id=exp_id)
    if runs > 1:
        epochs.add_epochs(store, exp_id, runs)
    return lifecycle.execute(store, exp_id, settings, concurrency=2)


def export_and_read(store, exp_id: str, path: Path):
    from evalui.runs.inspect_export import export_inspect

    done = export_inspect(store, exp_id, path)
    assert Path(done["out"]) == path and path.is_file()
    return inspect_log.read_eval_log(str(path))


def assert_same_samples(store, exp_id: str, log, scorer: str) -> dict:
    """Same samples (id and epoch), the verdicts as scores, tokens as usage; returns them by (id, epoch)."""
    stored = {split_epoch(s.sample_id): s for s in store.samples(exp_id)}
    exported = {(s.id, s.epoch): s for s in log.samples}
    assert len(log.samples) == len(stored) and set(exported) == set(stored)
    for key, sample in stored.items():
        got = exported[key]
        if sample.stage == "judged" and (sample.verdict or {}).get("scored") is not False:
            score = got.scores[scorer]
            assert score.value == ("C" if sample.correct else "I"), key
            assert score.metadata["verdict"] == sample.verdict
        else:
            assert not got.scores
        if sample.prompt_tokens:
            usage = got.model_usage[log.eval.model]
            assert (usage.input_tokens, usage.output_tokens) == (sample.prompt_tokens, sample.completion_tokens)
    return {key: (stored[key], exported[key]) for key in stored}


def roles(sample) -> list[str]:
    return [m.role for m in sample.messages]


def assert_tool_messages_answer_calls(sample) -> None:
    """Every tool message answers a call the assistant made just before it."""
    called = set()
    for m in sample.messages:
        if m.role == "assistant":
            called |= {c.id for c in m.tool_calls or []}
        if m.role == "tool":
            assert m.tool_call_id in called, (sample.id, m.tool_call_id, called)


def test_a_bfcl_run_single_and_multi_turn_with_epochs(store, tmp_path):
    from evalui.benchmarks.bfcl.data import entries_by_id

    single, multi = BfclOracle(["simple_python"]), MultiTurnOracle(["multi_turn_base"], limit=3)

    def script(body, n):
        if multi.entry_for(body) is not None:
            return multi.reply(body)
        index = int(single.entry_for(body).id.rsplit("_", 1)[-1])
        return {1: single.wrong_reply(body), 2: error(500, "always broken")}.get(index) or single.gold_reply(body)

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        summary = run(store, "bfcl", {"categories": ["simple_python", "multi_turn_base"], "limit": 3, "mode": "fc"},
                      settings, exp_id="bfcl-inspect", runs=2)
    assert summary["total"] == 12 and summary["errors"] == 2 and summary["correct"] == 8, summary["error_types"]

    log = export_and_read(store, "bfcl-inspect", tmp_path / "bfcl.json")
    assert log.eval.task == "bfcl" and log.eval.model == "scripted-model" and log.eval.config.epochs == 2
    assert log.eval.dataset.name == "BFCL v4: simple_python, multi_turn_base" and log.eval.dataset.samples == 6
    assert log.status == "error"  # two samples ended in endpoint errors: evalui's run is incomplete
    pairs = assert_same_samples(store, "bfcl-inspect", log, "bfcl")
    assert {epoch for _, epoch in pairs} == {1, 2}
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(summary["correct"] / summary["judged"])
    for (sample_id, epoch), (stored, got) in pairs.items():
        entry = entries_by_id(stored.group)[sample_id]
        assert got.target == json.dumps(entry.possible_answer, ensure_ascii=False)
        assert got.metadata["evalui_id"] == stored.sample_id
        if stored.error:  # the endpoint failed for good: no score, the error is kept
            assert stored.stage == "init" and "always broken" in got.error.message
            continue
        assert roles(got)[0] in ("system", "user") and got.messages[-1].role == "assistant"
        assert_tool_messages_answer_calls(got)
        if stored.group == "simple_python":
            assert roles(got) == [m["role"] for m in stored.trajectory[0]["messages"]] + ["assistant"]
            calls = got.messages[-1].tool_calls
            assert [c.function for c in calls] == [c["name"] for c in stored.trajectory[0]["tool_calls"]]
            assert all(isinstance(c.arguments, dict) for c in calls)
            assert got.input[-1].text == stored.trajectory[0]["messages"][-1]["content"]
            if not stored.correct:
                assert got.scores["bfcl"].explanation == stored.verdict["error"]
                assert got.scores["bfcl"].metadata["error_type"] == stored.verdict["error_type"]
        else:  # a conversation: each user turn, the calls and their results, then the reply that ends the turn
            assert roles(got).count("user") >= len(entry.question)
            assert roles(got).count("assistant") == len(stored.trajectory) and "tool" in roles(got)
            results = [r["content"] for step in stored.trajectory for r in step["tool_results"]]
            assert [m.text for m in got.messages if m.role == "tool"] == results


def gaia_script(body, n):
    question, outputs = first_user_text(body), tool_outputs(body)
    if "six times seven" in question:
        if not outputs:
            return completion("", tool_calls=[("python", json.dumps({"code": "print(6 * 7)"}))], prompt_tokens=90,
                              completion_tokens=12)
        printed = outputs[-1].split("stdout:\n", 1)[1].split("\n", 1)[0].strip()
        return completion(f"The program printed it.\nFINAL ANSWER: {printed}")
    return completion("FINAL ANSWER: blue")


def test_a_gaia_agent_run(store, tmp_path):
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([
        {"task_id": "mult", "Question": "What is six times seven? Use python.", "Final answer": "42", "Level": 1},
        {"task_id": "colour", "Question": "What colour is the sky at noon on Mars?", "Final answer": "butterscotch",
         "Level": 2},
        {"task_id": "hidden", "Question": "What colour is this test's answer?", "Final answer": "?", "Level": 3},
    ]))
    with ScriptedPeer(gaia_script) as peer:
        summary = run(store, "gaia", {"source": f"questions:{questions}", "tools": ["python"], "tool_timeout": 30},
                      settings_for(peer), exp_id="gaia-inspect")
    assert summary["judged"] == 3 and summary["correct"] == 1
    # Through the command line, as a user runs it: the JSON line names the file.
    path = tmp_path / "gaia.eval"
    done = subprocess.run([sys.executable, "-m", "evalui", "export", "inspect", "gaia-inspect", "--out", str(path)],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    line = json.loads(done.stdout.splitlines()[-1])
    assert line == {"exp_id": "gaia-inspect", "benchmark": "gaia", "out": str(path), "format": "eval", "samples": 3,
                    "scored": 2, "status": "success"}
    log = inspect_log.read_eval_log(str(path))
    assert log.eval.task == "gaia" and log.eval.dataset.name == "GAIA questions: questions.json"
    assert log.status == "success"
    pairs = assert_same_samples(store, "gaia-inspect", log, "gaia")
    stored, got = pairs["mult", 1]
    assert got.target == "42" and got.scores["gaia"].value == "C" and got.scores["gaia"].answer == "42"
    assert roles(got) == ["system", "user", "assistant", "tool", "assistant"]
    call = got.messages[2].tool_calls[0]
    assert call.function == "python" and call.arguments == {"code": "print(6 * 7)"}
    assert got.messages[3].tool_call_id == call.id and "42" in got.messages[3].text
    assert got.output.completion.endswith("FINAL ANSWER: 42")
    assert got.messages[2].metadata["prompt_tokens"] == 90
    _, wrong = pairs["colour", 1]
    assert wrong.scores["gaia"].value == "I" and wrong.target == "butterscotch"
    _, hidden = pairs["hidden", 1]
    assert hidden.target == "" and not hidden.scores and hidden.metadata["unscored"] is True
    # Without --out, the log goes into the run's folder, as a .eval file.
    from evalui.runs.inspect_export import export_inspect

    default = export_inspect(store, "gaia-inspect")
    assert Path(default["out"]) == Path(summary["out_dir"]) / "gaia-inspect.eval" and default["format"] == "eval"
    assert len(inspect_log.read_eval_log(default["out"]).samples) == 3


def judge_script(body, n):
    low = "Marbles" in body["messages"][-1]["content"]
    scores = {d: {"score": 2 if low else 5, "comment": f"{d} checked"} for d in
              ("correctness", "clarity", "difficulty_match", "completeness")}
    if "spider" in body["messages"][-1]["content"]:
        return completion("a four, I would say")  # never parsed: the sample fails, it gets no default score
    return completion(json.dumps(scores))


def test_an_aime_judge_run(store, tmp_path):
    problems = [{"problem_id": f"p{i}", "problem": f"{what} Find the number of ways, modulo 1000.",
                 "answer": 100 + i, "solution": "Count them.", "topic": "combinatorics"}
                for i, what in enumerate(["Apples are planted in rows.", "Marbles are drawn from an urn.",
                                          "A spider crawls on a cube."])]
    generated = tmp_path / "aime_generated_test.json"
    generated.write_text(json.dumps(problems))
    with ScriptedPeer(judge_script) as peer:
        summary = run(store, "aime-judge", {"input": str(generated)}, settings_for(peer, max_retries=0),
                      exp_id="judge-inspect")
    assert summary["judged"] == 2 and summary["errors"] == 1
    log = export_and_read(store, "judge-inspect", tmp_path / "judge.json")
    assert log.eval.task == "aime-judge" and log.eval.dataset.name == "aime_generated_test.json"
    pairs = assert_same_samples(store, "judge-inspect", log, "aime-judge")
    assert [pairs[f"p{i}", 1][1].target for i in range(3)] == ["100", "101", "102"]
    assert pairs["p0", 1][1].scores["aime-judge"].value == "C" and pairs["p1", 1][1].scores["aime-judge"].value == "I"
    # More than the bool: the judge's mean and its four dimension scores travel in the score's metadata.
    assert pairs["p1", 1][1].scores["aime-judge"].metadata["mean"] == 2.0
    assert pairs["p0", 1][1].scores["aime-judge"].metadata["dimensions"] == {
        d: 5.0 for d in ("correctness", "clarity", "difficulty_match", "completeness")}
    failed = pairs["p2", 1][1]
    assert not failed.scores and failed.error and roles(failed).count("assistant") == 3  # every attempt is kept
    for _, got in pairs.values():
        assert roles(got)[:2] == ["system", "user"] and "Find the number of ways" in got.messages[1].text


def test_without_inspect_ai_the_command_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['inspect_ai'] = None; sys.modules['inspect_ai.log'] = None\n"
            "from evalui.cli import main; sys.exit(main(['export', 'inspect', 'any-run']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path)})
    assert done.returncode == 1 and "pip install inspect_ai" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_run_or_format_is_one_line(store, tmp_path):
    from evalui.runs.inspect_export import export_inspect

    code = ("import sys; from evalui.cli import main; rc = main(sys.argv[1:]); "
            "print('gradio' in sys.modules); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code, "export", "inspect", "no-such-run"], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 2 and "no stored run 'no-such-run'" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.strip() == "False"  # the export never imports gradio
    store.create_or_get_experiment("empty", "bfcl", "m", "h", {"options": {}})
    with pytest.raises(ValueError, match="ends in .eval or .json"):
        export_inspect(store, "empty", tmp_path / "x.txt")
