"""BFCL multi-turn runs against a scripted endpoint: verdicts equal bfcl-eval's own evaluation on
every exported line (gold and perturbed conversations, both modes), and `bfcl evaluate` reads the
exports. Safety and resume are in test_bfcl_multi_turn_safety.py."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from bfcl_official_cli import run_bfcl
from peers import settings_for
from unit.benchmarks.bfcl.test_bfcl_agreement import official_handler

from evalui.benchmarks.bfcl.data import entries_by_id
from evalui.benchmarks.bfcl.score_file import score_result_file
from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import gold_turns
from support.openai_peer import ScriptedPeer

ENTRIES_PER_CATEGORY = 12  # of 200: the whole 800 run in bench/bfcl_multi_turn.py
MODELS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gpt-4o-2024-11-20"}  # registered handlers, OpenAI-style


def official_verdict(runner, entry, result, mode: str) -> dict:
    """bfcl-eval's own per-entry multi-turn evaluation. Its instances are cached in module globals
    under the model name and entry id, so each call gets a model name of its own, removed after."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    handler = official_handler(runner, MODELS[mode])
    owner = f"official_{uuid.uuid4().hex}"
    prompt_entry = {"id": entry.id, "function": copy.deepcopy(entry.functions),
                    "initial_config": copy.deepcopy(entry.initial_config),
                    "involved_classes": list(entry.involved_classes)}
    try:
        return runner._evaluate_single_multi_turn_entry(handler, entry.id, copy.deepcopy(result),
                                                        copy.deepcopy(entry.possible_answer), prompt_entry,
                                                        owner, entry.category)
    finally:
        for name in [n for n in vars(multi_turn_utils) if n.startswith(owner)]:
            vars(multi_turn_utils).pop(name)


def run_category(store, category, mode, perturb=None, limit=ENTRIES_PER_CATEGORY):
    oracle = MultiTurnOracle([category], limit=limit, perturb=perturb)
    with ScriptedPeer(lambda body, n: oracle.reply(body)) as peer:
        settings = settings_for(peer)
        exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=[category], limit=limit, mode=mode), settings,
                                   exp_id=f"{category}-{mode}-{uuid.uuid4().hex[:6]}")
        summary = lifecycle.execute(store, exp_id, settings, concurrency=4)
    assert not oracle.ambiguous, oracle.ambiguous  # the script answered every request for its own entry
    return exp_id, summary


def exported_lines(summary, category):
    path = Path(summary["result_files"][category])
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def assert_agreement(runner, store, exp_id, summary, category, mode):
    """Every exported line: the stored verdict, `evalui bfcl score` and bfcl-eval agree."""
    path, lines = exported_lines(summary, category)
    assert len(lines) == summary["total"]
    stored = {s.sample_id: s.correct for s in store.samples(exp_id)}
    rescored = {v["id"]: v["correct"] for v in score_result_file(path, category)[0]}
    entries = entries_by_id(category)
    for line in lines:
        official = official_verdict(runner, entries[line["id"]], line["result"], mode)
        assert stored[line["id"]] == rescored[line["id"]] == official["valid"], (line["id"], official)
    return lines


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_gold_conversations_pass_and_agree_with_the_official_checker(store, official_runner, mode):
    for category in MULTI_TURN_CATEGORIES:
        exp_id, summary = run_category(store, category, mode)
        assert summary["errors"] == 0
        assert summary["correct"] == summary["total"] == ENTRIES_PER_CATEGORY, summary["error_types"]
        lines = assert_agreement(official_runner, store, exp_id, summary, category, mode)
        # Official shape: one list per turn, each step's raw output (FC tool calls, or text).
        entry = entries_by_id(category)[lines[0]["id"]]
        assert len(lines[0]["result"]) == len(entry.question)
        first_step = lines[0]["result"][0][0]
        assert isinstance(first_step, list if mode == "fc" else str)
        assert summary["leaderboard"]["multi_turn"]["categories"] == [category]


def drop_last_call(entry, turn, calls):
    return calls[:-1] if turn == 1 else calls


def wrong_argument(entry, turn, calls):
    if turn == 0 and calls:
        name, args = calls[0]
        key = next((k for k, v in args.items() if isinstance(v, str)), None)
        if key:
            calls[0] = (name, {**args, key: args[key] + "_wrong"})
    return calls


def extra_calls(entry, turn, calls):
    # The next turn's calls made early: extra calls in turn 0 that change the backends' state.
    return calls + gold_turns(entry)[1] if turn == 0 else calls


@pytest.mark.parametrize("mode", ["fc", "prompt"])
@pytest.mark.parametrize("perturb", [drop_last_call, wrong_argument, extra_calls])
def test_perturbed_conversations_agree_with_the_official_checker(store, official_runner, mode, perturb):
    failures = 0
    for category in ("multi_turn_base", "multi_turn_miss_param"):
        exp_id, summary = run_category(store, category, mode, perturb=perturb, limit=8)
        assert_agreement(official_runner, store, exp_id, summary, category, mode)
        failures += summary["total"] - summary["correct"]
    assert failures > 0  # the perturbation is seen: not every conversation still passes


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_edited_result_files_agree_with_the_official_checker(store, official_runner, mode, tmp_path):
    """Result files edited after the run: an extra turn, a dropped step, a dropped turn's calls."""
    category = "multi_turn_base"
    exp_id, summary = run_category(store, category, mode, limit=8)
    _, lines = exported_lines(summary, category)
    entries = entries_by_id(category)
    edits = {
        "extra_turn": lambda result: result + [result[-1]],
        "dropped_step": lambda result: [result[0][1:]] + result[1:],
        "emptied_turn": lambda result: result[:1] + [["Nothing to do."]] + result[2:],
    }
    for name, edit in edits.items():
        edited = [{"id": line["id"], "result": edit(copy.deepcopy(line["result"]))} for line in lines]
        path = tmp_path / f"{name}_BFCL_v4_{category}_result.json"
        path.write_text("".join(json.dumps(line) + "\n" for line in edited))
        ours = {v["id"]: v for v in score_result_file(path, category)[0]}
        for line in edited:
            official = official_verdict(official_runner, entries[line["id"]], line["result"], mode)
            assert ours[line["id"]]["correct"] == official["valid"], (name, line["id"], official)
            if not official["valid"]:
                assert ours[line["id"]]["official_error_type"] == official["error"]["error_type"]
        assert not all(v["correct"] for v in ours.values()), name


def test_bfcl_evaluate_reads_the_exports(store, tmp_path):
    """The official CLI scores evalui's multi-turn result files as evalui does."""
    category = "multi_turn_base"
    def half_wrong(entry, turn, calls):
        return drop_last_call(entry, turn, calls) if int(entry.id.rsplit("_", 1)[1]) % 2 else calls

    exp_id, summary = run_category(store, category, "fc", perturb=half_wrong, limit=8)
    result_file = Path(summary["result_files"][category])
    ours = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "score", "--category", category,
                           "--results", str(result_file)], capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout.splitlines()[-1])["correct"] == summary["correct"]

    root = tmp_path / "bfcl_root"
    model = MODELS["fc"]
    target = root / "result" / model / "multi_turn"
    target.mkdir(parents=True)
    (target / result_file.name).write_text(result_file.read_text())
    env = dict(os.environ, BFCL_PROJECT_ROOT=str(root), OPENAI_API_KEY="sk-unused")
    official = run_bfcl(["evaluate", "--model", model, "--test-category", category, "--partial-eval"], env=env, cwd=root)
    assert official.returncode == 0, official.stdout[-2000:] + official.stderr[-2000:]
    score_file = next((root / "score").rglob(f"BFCL_v4_{category}_score.json"))
    header = json.loads(score_file.read_text().splitlines()[0])
    assert header["total_count"] == 8 and header["correct_count"] == summary["correct"]
    assert 0 < summary["correct"] < 8
