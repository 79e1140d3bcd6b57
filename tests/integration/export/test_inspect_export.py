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
from inspect_runs import run_gaia
from peers import settings_for

from evalui.core.registry import get
from evalui.run import epochs, lifecycle
from evalui.stats.epochs import split_epoch
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion, error

ROOT = Path(__file__).resolve().parents[3]


def run(store, name: str, options: dict, settings, *, exp_id: str, runs: int = 1) -> dict:
    """A benchmark through the shared lifecycle, as every command runs it."""
    benchmark = get(name)
    lifecycle.prepare(store, benchmark, benchmark.make_options(options), settings, exp_id=exp_id)
    if runs > 1:
        epochs.add_epochs(store, exp_id, runs)
    return lifecycle.execute(store, exp_id, settings, concurrency=2)


def export_and_read(store, exp_id: str, path: Path):
    from evalui.export.inspect_log import export_inspect

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
    assert log.eval.task == "bfcl" and log.eval.model == "openai-api/local/scripted-model" and log.eval.config.epochs == 2
    assert log.eval.dataset.name == get("bfcl").title and log.eval.dataset.samples == 6
    assert {"BFCL_v4_simple_python.json", "BFCL_v4_multi_turn_base.json"} <= set(log.eval.dataset.location.split(", "))
    # BFCL adds {"store": false} to every request body: that is part of the config as sent (the
    # single-turn requests record it; the multi-turn ones, built as the conversation goes, say nothing).
    assert log.plan.config.extra_body == {"store": False} and log.plan.config.temperature == 0.001
    assert log.status == "error"  # two samples ended in endpoint errors: evalui's run is incomplete
    pairs = assert_same_samples(store, "bfcl-inspect", log, "bfcl")
    assert {epoch for _, epoch in pairs} == {1, 2}
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(summary["correct"] / summary["judged"])
    for (sample_id, _epoch), (stored, got) in pairs.items():
        entry = entries_by_id(stored.group)[sample_id]
        assert got.target == json.dumps(entry.possible_answer, ensure_ascii=False)
        assert got.metadata["evalui_id"] == stored.sample_id
        if stored.error:  # the endpoint failed for good: no score, the error is kept
            assert stored.stage == "init" and "always broken" in got.error.message
            assert got.metadata["error_type"] == "endpoint_error" and events_of(got, "error")
            continue
        assert_transcript(got, stored)
        first_user = next(m for m in stored.trajectory[0]["messages"] if m["role"] == "user")
        assert got.input == first_user["content"]
        assert roles(got)[0] in ("system", "user") and got.messages[-1].role == "assistant"
        assert_tool_messages_answer_calls(got)
        if stored.group == "simple_python":
            assert roles(got) == [m["role"] for m in stored.trajectory[0]["messages"]] + ["assistant"]
            assert all(e.config.extra_body == {"store": False} for e in events_of(got, "model"))
            calls = got.messages[-1].tool_calls
            assert [c.function for c in calls] == [c["name"] for c in stored.trajectory[0]["tool_calls"]]
            assert all(isinstance(c.arguments, dict) for c in calls)
            if not stored.correct:
                assert got.scores["bfcl"].explanation == stored.verdict["error"]
                assert got.scores["bfcl"].metadata["error_type"] == stored.verdict["error_type"]
        else:  # a conversation: each user turn, the calls and their results, then the reply that ends the turn
            assert roles(got).count("user") >= len(entry.question)
            assert roles(got).count("assistant") == len(stored.trajectory) and "tool" in roles(got)
            results = [r["content"] for step in stored.trajectory for r in step["tool_results"]]
            assert [m.text for m in got.messages if m.role == "tool"] == results


def events_of(sample, kind: str) -> list:
    return [e for e in sample.events if e.event == kind]


def assert_transcript(sample, stored) -> None:
    """The sample's events as Inspect's runner writes them: one model event per stored step with the
    conversation it was sent and its reply, a tool event per call that ran, the score; all in spans."""
    steps = stored.trajectory or []
    calls = events_of(sample, "model")
    assert len(calls) == len(steps)
    for call, step in zip(calls, steps):
        assert call.model == sample.output.model and call.output.message.text == (step["text"] or "")
        assert [c.function for c in call.output.message.tool_calls or []] == [c["name"] for c in step["tool_calls"]]
        assert call.input[-1].text == (step["messages"][-1]["content"] if step["messages"] else call.input[-1].text)
        assert call.output.usage.input_tokens == step["prompt_tokens"]
    assert [e.result for e in events_of(sample, "tool")] == [r["content"] for step in steps for r in step["tool_results"]]
    assert [(e.score.value, e.scorer) for e in events_of(sample, "score")] == [
        (score.value, name) for name, score in (sample.scores or {}).items()]
    begun = [e.id for e in events_of(sample, "span_begin")]
    assert sorted(begun) == sorted(e.id for e in events_of(sample, "span_end"))
    assert all(e.span_id in begun for e in sample.events if e.event != "error")


def test_a_gaia_agent_run(store, tmp_path):
    from evalui.run.findings import stored_findings

    summary = run_gaia(store, tmp_path, "gaia-inspect")
    assert summary["judged"] == 5 and summary["correct"] == 2
    # Through the command line, as a user runs it: the JSON line names the file.
    path = tmp_path / "gaia.eval"
    done = subprocess.run([sys.executable, "-m", "evalui", "export", "inspect", "gaia-inspect", "--out", str(path)],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    line = json.loads(done.stdout.splitlines()[-1])
    assert line == {"exp_id": "gaia-inspect", "benchmark": "gaia", "out": str(path), "format": "eval", "samples": 5,
                    "scored": 4, "status": "success"}
    log = inspect_log.read_eval_log(str(path))
    assert log.eval.task == "gaia" and log.status == "success"
    assert (log.eval.dataset.name, log.eval.dataset.location) == ("GAIA general assistant", "questions.json")
    # Inspect's own name for an OpenAI-compatible service on this machine, with where to reach it.
    assert log.eval.model == "openai-api/local/scripted-model"
    assert log.eval.model_base_url == store.experiment("gaia-inspect")["config"]["endpoint"]["base_url"]
    assert log.plan.config.temperature == 0.001 and log.eval.model_generate_config.temperature == 0.001
    assert log.plan.config.max_tokens is None  # none was sent: evalui sends max_tokens only when one is set
    pairs = assert_same_samples(store, "gaia-inspect", log, "gaia")
    for (_sample_id, _), (stored, got) in pairs.items():
        # The question is the input, never GAIA's system prompt, which every sample shares.
        assert got.input == stored.payload["question"]
        assert got.metadata["findings"] == stored_findings(stored)
        assert_transcript(got, stored)
        assert all(e.config.temperature == 0.001 for e in events_of(got, "model"))
    stored, got = pairs["mult", 1]
    assert got.target == "42" and got.scores["gaia"].value == "C" and got.scores["gaia"].answer == "42"
    assert roles(got) == ["system", "user", "assistant", "tool", "assistant"]
    call = got.messages[2].tool_calls[0]
    assert call.function == "python" and call.arguments == {"code": "print(6 * 7)"}
    assert got.messages[3].tool_call_id == call.id and "42" in got.messages[3].text
    # The answer the checker read is the completion, as an Inspect agent's submitted answer; the reply stays whole.
    assert got.output.completion == "42" and got.output.message.text.endswith("FINAL ANSWER: 42")
    assert got.messages[2].metadata["prompt_tokens"] == 90
    tool = events_of(got, "tool")[0]
    assert tool.function == "python" and tool.arguments == {"code": "print(6 * 7)"} and tool.id == call.id
    second = events_of(got, "model")[1]
    assert [m.role for m in second.input] == ["system", "user", "assistant", "tool"]
    _, wrong = pairs["colour", 1]
    assert wrong.scores["gaia"].value == "I" and wrong.target == "butterscotch"
    assert wrong.metadata["error_type"] == "wrong_answer" and got.metadata["error_type"] == ""
    stored, refused = pairs["refused", 1]
    assert refused.metadata["findings"] and "refusal" in {f["scanner"] for f in refused.metadata["findings"]}
    _, hidden = pairs["hidden", 1]
    assert hidden.target == "" and not hidden.scores and hidden.metadata["unscored"] is True
    assert not events_of(hidden, "score") and events_of(hidden, "model")
    # Without --out, the log goes into the run's folder, as a .eval file.
    from evalui.export.inspect_log import export_inspect

    default = export_inspect(store, "gaia-inspect")
    assert Path(default["out"]) == Path(summary["out_dir"]) / "gaia-inspect.eval" and default["format"] == "eval"
    assert len(inspect_log.read_eval_log(default["out"]).samples) == 5


def test_inspect_score_rescores_a_gaia_export_with_inspect_evals_gaia_scorer(store, tmp_path):
    """`inspect score` rebuilds the log's model and scores each sample's completion against its target
    with inspect_evals' own GAIA scorer: its verdicts are evalui's on every scored sample."""
    import inspect_evals.gaia  # noqa: F401  (in the test extra: a missing install fails here, it is not skipped)

    run_gaia(store, tmp_path, "gaia-score")
    path, scored = tmp_path / "gaia.eval", tmp_path / "gaia-scored.eval"
    from evalui.export.inspect_log import export_inspect

    export_inspect(store, "gaia-score", path)
    # Inspect builds the model the log names before it scores: an OpenAI-compatible service wants its
    # key, which a user has and this scorer never uses. No network is reached.
    env = {**os.environ, "LOCAL_API_KEY": "unused-by-the-scorer"}
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "score", str(path), "--scorer",
                           "inspect_evals/gaia_scorer", "--action", "append", "--output-file", str(scored),
                           "--display", "plain"], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    log = inspect_log.read_eval_log(str(scored))
    stored = {s.sample_id: s for s in store.samples("gaia-score")}
    verdicts = {}
    for sample in log.samples:
        theirs = sample.scores["gaia_scorer"]
        if sample.scores.get("gaia") is not None:  # evalui scored it: the hidden answer it did not
            verdicts[sample.id] = (sample.scores["gaia"].value, theirs.value)
            assert theirs.answer == stored[sample.id].prediction
    assert verdicts == {"mult": ("C", "C"), "metres": ("C", "C"), "colour": ("I", "I"), "refused": ("I", "I")}
    assert [e.scorer for e in log.samples[0].events if e.event == "score"] == ["gaia", "gaia_scorer"]


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
    assert log.eval.task == "aime-judge" and log.eval.dataset.location == "aime_generated_test.json"
    pairs = assert_same_samples(store, "judge-inspect", log, "aime-judge")
    assert [pairs[f"p{i}", 1][1].target for i in range(3)] == ["100", "101", "102"]
    assert pairs["p0", 1][1].scores["aime-judge"].value == "C" and pairs["p1", 1][1].scores["aime-judge"].value == "I"
    # More than the bool: the judge's mean and its four dimension scores travel in the score's metadata.
    assert pairs["p1", 1][1].scores["aime-judge"].metadata["mean"] == 2.0
    assert pairs["p0", 1][1].scores["aime-judge"].metadata["dimensions"] == {
        d: 5.0 for d in ("correctness", "clarity", "difficulty_match", "completeness")}
    failed = pairs["p2", 1][1]
    assert not failed.scores and failed.error and roles(failed).count("assistant") == 3  # every attempt is kept
    for (_sample_id, _), (stored, got) in pairs.items():
        assert roles(got)[:2] == ["system", "user"] and "Find the number of ways" in got.messages[1].text
        assert "Find the number of ways" in got.input and got.input == got.messages[1].text
        # A retry asks anew: each attempt's model event was sent its own conversation, not the last one's.
        assert [[m.role for m in e.input] for e in events_of(got, "model")] == [["system", "user"]] * len(
            stored.trajectory or [])


def test_without_inspect_ai_the_command_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['inspect_ai'] = None; sys.modules['inspect_ai.log'] = None\n"
            "from evalui.cli import main; sys.exit(main(['export', 'inspect', 'any-run']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path)})
    assert done.returncode == 1 and "pip install inspect_ai" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_run_or_format_is_one_line(store, tmp_path):
    from evalui.export.inspect_log import export_inspect

    code = ("import sys; from evalui.cli import main; rc = main(sys.argv[1:]); "
            "print('gradio' in sys.modules); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code, "export", "inspect", "no-such-run"], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 2 and "no stored run 'no-such-run'" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.strip() == "False"  # the export never imports gradio
    store.create_or_get_experiment("empty", "bfcl", "m", "h", {"options": {}})
    with pytest.raises(ValueError, match="ends in .eval or .json"):
        export_inspect(store, "empty", tmp_path / "x.txt")
