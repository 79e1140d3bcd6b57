"""Run history: list, compare, resume with the stored endpoint, delete."""
from __future__ import annotations

import re

import pytest

from evalui.ops import history


def test_task_words_for_generated_judged_and_paired_problems():
    from evalui.store.run_store import Sample

    def judged(correct, **verdict):
        return Sample("e", "s", 0, "", "judged", {}, correct=correct, verdict=verdict)

    assert history.verdict_word("aime-generate", judged(True)) == "valid"
    assert history.verdict_word("aime-judge", judged(False)) == "fail"
    assert history.verdict_word("aime-winrate", judged(False, outcome="tie")) == "tie"
    assert history.verdict_word("bfcl", Sample("e", "s", 0, "", "init", {}, error="timeout")) == "error"


def test_a_run_whose_url_carried_credentials_cannot_be_resumed_with_the_redacted_url():
    from evalui.endpoint.settings import EndpointSettings
    from evalui.ops.history import stored_endpoint

    saved = EndpointSettings("http://bob:pw1234@api.example.com/v1?key=abcd1234", "m").public()
    experiment = {"model": "m", "config": {"endpoint": saved}}
    with pytest.raises(ValueError, match="credentials"):
        stored_endpoint(experiment, "")
    plain = {"model": "m", "config": {"endpoint": EndpointSettings("https://api.example.com/v1", "m").public()}}
    assert stored_endpoint(plain, "k").base_url == "https://api.example.com/v1"


def test_multi_turn_gold_is_shown_turn_by_turn():
    from evalui.benchmarks.bfcl.data import load_category
    from evalui.benchmarks.bfcl.spec import BENCHMARK
    from evalui.store.run_store import Sample

    entry = next(e for e in load_category("multi_turn_base") if len(e.possible_answer) > 1)
    stored = Sample(exp_id="r", sample_id=f"{entry.id}#e2", position=0, group="multi_turn_base", stage="judged",
                    payload={}, epoch=2)
    from evalui.benchmarks.bfcl.calls import NO_CALL, gold_call_text

    shown = BENCHMARK.target(stored).shown  # the viewer's gold answer, for a second epoch too
    turns = re.split(r"^Turn (\d+)\n", shown, flags=re.MULTILINE)[1:]  # numbered from 1, each turn's calls below it
    assert [int(n) for n in turns[0::2]] == list(range(1, len(entry.possible_answer) + 1))
    for lines, calls in zip(turns[1::2], entry.possible_answer, strict=True):
        assert [line.strip() for line in lines.splitlines()] == ([gold_call_text(c) for c in calls] or [NO_CALL])
