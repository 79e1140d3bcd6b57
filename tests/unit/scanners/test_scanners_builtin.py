"""Each built-in validity scanner on hand-made stored samples: what it flags, at which severity, and
the look-alikes it leaves alone; the registry; the valid-sample score; findings in the record."""

from __future__ import annotations

import pytest

from evalui.core.record import SampleRecord
from evalui.scanners.base import ScanContext, Scanner
from evalui.scanners.registry import built_in, get, register, scan_sample, selected, unregister
from evalui.scanners.validity import validity_figures
from evalui.store.rows import Sample

pytestmark = pytest.mark.unit


def step(text="", calls=(), results=(), finish="stop", note="", messages=()):
    return {"messages": list(messages), "text": text, "tool_calls": list(calls), "tool_results": list(results),
            "prompt_tokens": 10, "completion_tokens": 5, "latency_s": 0.1, "attempts": 1, "note": note,
            "finish_reason": finish}


def sample(*steps, sample_id="s1", stage="judged", correct=False, verdict=None, error=None, payload=None,
           response=None, request=None, epoch=1):
    return Sample(exp_id="e", sample_id=sample_id, position=0, group="g", stage=stage, payload=payload or {},
                  request=request, response=response, correct=correct if stage == "judged" else None,
                  verdict=verdict if verdict is not None else ({"error_type": "wrong_answer"} if stage == "judged" else None),
                  error=error, trajectory=list(steps), epoch=epoch)


def found(item, benchmark="gaia", **context) -> dict[str, str]:
    chosen = list(built_in().values())
    return {f["scanner"]: f["severity"] for f in scan_sample(item, ScanContext(benchmark=benchmark, **context), chosen)}


def test_an_endpoint_error_is_invalid_and_a_cancel_is_nothing():
    assert found(sample(stage="init", error="server_error: HTTP 500: boom (after 4 attempts)")) == {"endpoint_error": "invalid"}
    assert found(sample(stage="init", error="cancelled: the run was cancelled (after 1 attempt)")) == {}
    assert found(sample(stage="init")) == {}  # not run yet


@pytest.mark.parametrize("text", ["I'm sorry, but I can't help with that.", "I cannot assist with this request.",
                                  "As an AI language model, I cannot browse.", "I must decline."])
def test_refusals_of_a_failed_sample_are_warnings(text):
    assert found(sample(step(text))) == {"refusal": "warning"}


@pytest.mark.parametrize("text", ["I'm sorry, but I can't find a source.\nFINAL ANSWER: 12",
                                  "I can't find the file, so I computed it instead: 12", "x " * 500 + "I cannot help with that."])
def test_answers_that_mention_what_they_cannot_do_are_not_refusals(text):
    assert "refusal" not in found(sample(step(text)))


def test_a_refusal_that_was_right_is_nothing_and_a_content_filter_is_invalid():
    assert found(sample(step("I cannot help with that."), correct=True, verdict={})) == {}  # BFCL irrelevance
    assert found(sample(step("", finish="content_filter")))["refusal"] == "invalid"


def test_empty_replies():
    assert found(sample(step(""))) == {"empty_reply": "invalid"}
    assert found(sample(step("  \n"), correct=True, verdict={})) == {"empty_reply": "invalid"}  # a checker that passed nothing
    assert "empty_reply" not in found(sample(step("", calls=[{"name": "f", "arguments": "{}"}])))
    assert found(sample(step("", finish="length"))) == {"truncated": "invalid"}  # cut, not empty


def test_truncation_of_the_answer_is_invalid_and_elsewhere_a_warning():
    assert found(sample(step("The answer is", finish="length"))) == {"truncated": "invalid"}
    assert found(sample(step("FINAL ANSWER: 4", finish="length"), correct=True, verdict={})) == {"truncated": "warning"}
    cut_then_answered = sample(step("thinking", calls=[{"name": "python", "arguments": "{}"}], finish="length"),
                               step("FINAL ANSWER: x"))
    assert found(cut_then_answered) == {"truncated": "warning"}


def test_format_failures_need_an_answer_in_the_wrong_shape():
    undecoded = {"error_type": "decode_failure"}
    assert found(sample(step("[get_weather(city='Paris'"), verdict=undecoded), "bfcl") == {"format_failure": "warning"}
    assert found(sample(step('{"name": "get_weather", "arguments": {}} trailing'), verdict=undecoded), "bfcl") \
        == {"format_failure": "warning"}
    assert found(sample(step("I need more details first."), verdict=undecoded), "bfcl") == {}
    assert found(sample(step("It is Paris.")), "gaia") == {"format_failure": "warning"}
    assert found(sample(step("FINAL ANSWER: Lyon")), "gaia") == {}


def test_tool_errors_of_the_environment_are_invalid_and_the_models_own_are_not_reported():
    def agent(error, tool="python", correct=False, payload=None):
        return sample(step("", calls=[{"name": tool, "arguments": "{}"}], results=[{"name": tool, "content": "x", "error": error}]),
                      step("FINAL ANSWER: x"), correct=correct, verdict={} if correct else None, payload=payload)

    assert found(agent("call_timeout")) == {"tool_error": "invalid"}
    assert found(agent("execution_failed", correct=True)) == {"tool_error": "warning"}
    assert found(agent("timeout", tool="web_fetch")) == {"tool_error": "invalid"}
    assert found(agent("timeout")) == {"tool_error": "warning"}  # the model's program ran too long
    assert found(agent("no_file", tool="files", payload={"file_name": "a.csv"})) == {"tool_error": "invalid"}
    assert found(agent("no_file", tool="files")) == {}  # the task has no attachment: the model asked for nothing
    for own in ("bad_arguments", "unknown_tool", "refused", "exit_code", "KeyError"):
        assert found(agent(own)) == {}


def test_a_loop_is_the_same_failing_call_three_times():
    def calls(arguments: list[str], error="exit_code"):
        return sample(*[step("", calls=[{"name": "python", "arguments": a}],
                             results=[{"name": "python", "content": "Traceback", "error": error}]) for a in arguments],
                      step("FINAL ANSWER: x"))

    assert found(calls(['{"code": "1/0"}', '{ "code":"1/0" }', '{"code": "1/0"}'])) == {"loop": "warning"}
    assert found(calls(['{"code": "1/0"}', '{"code": "2/0"}', '{"code": "3/0"}'])) == {}
    assert found(calls(['{"code": "1"}'] * 3, error=None)) == {}  # the same call succeeding is no loop
    prompt_mode = sample(*[step("[cd(folder='x')]", results=[{"name": "cd(folder='x')", "content": "Error: no such folder",
                                                              "error": ""}]) for _ in range(3)], step("done"),
                         verdict={"error_type": "state_mismatch"})
    assert found(prompt_mode, "bfcl") == {"loop": "warning"}


def test_the_step_limit():
    terminated = sample(step("", calls=[{"name": "ls", "arguments": "{}"}], note="force-terminated after 20 steps in one turn"),
                        verdict={"error_type": "force_terminated"}, response={"force_terminated": True})
    assert found(terminated, "bfcl") == {"step_limit": "warning"}
    flooded = sample(step("[evalui: too_many_calls]"), verdict={"error_type": "too_many_calls"})
    assert found(flooded, "gaia")["step_limit"] == "warning"
    gaia_limit = sample(step("", calls=[{"name": "python", "arguments": "{}"}],
                             note="the step limit was reached while the model still called tools"))
    assert found(gaia_limit) == {"step_limit": "warning"}


def test_the_answer_in_context():
    prompt = {"messages": [{"role": "system", "content": "You are an assistant."},
                           {"role": "user", "content": "Which city hosts the Louvre? (It is Paris.)"}]}
    leaked = sample(step("FINAL ANSWER: Paris"), correct=True, verdict={}, payload={"final_answer": "Paris"}, request=prompt)
    assert found(leaked) == {"answer_in_context": "invalid"}
    fetched = sample(step("", calls=[{"name": "web_fetch", "arguments": "{}"}],
                          results=[{"name": "web_fetch", "content": "The Louvre, Paris", "error": None}]),
                     step("FINAL ANSWER: Paris"), correct=True, verdict={}, payload={"final_answer": "Paris"},
                     request={"messages": [{"role": "user", "content": "Which city hosts the Louvre?"}]})
    assert found(fetched) == {"answer_in_context": "warning"}
    short = sample(step("FINAL ANSWER: 3"), correct=True, verdict={}, payload={"final_answer": "3"},
                   request={"messages": [{"role": "user", "content": "3 cats and 5 dogs: how many cats?"}]})
    assert found(short) == {}
    labelled = sample(step("FINAL ANSWER: 3"), correct=True, verdict={}, payload={"final_answer": "3"},
                      request={"messages": [{"role": "user", "content": "How many cats? The answer is 3."}]})
    assert found(labelled) == {"answer_in_context": "invalid"}
    inside_a_word = sample(step("FINAL ANSWER: Paris"), correct=True, verdict={}, payload={"final_answer": "Paris"},
                           request={"messages": [{"role": "user", "content": "Where is Parisienne Street?"}]})
    assert found(inside_a_word) == {}
    unknown = sample(step("FINAL ANSWER: x"), verdict={"scored": False}, payload={"final_answer": "?"})
    assert found(unknown) == {}


def test_unsolvable_needs_three_other_models_that_all_failed():
    failed = sample(step("FINAL ANSWER: x"), sample_id="q7#e2", epoch=2)  # the second epoch, as the store keeps it
    assert found(failed, others={"q7": {"a": False, "b": False, "c": False}}) == {"unsolvable": "warning"}
    assert found(failed, others={"q7": {"a": False, "b": False}}) == {}
    assert found(failed, others={"q7": {"a": False, "b": False, "c": True}}) == {}
    assert found(failed, model="c", others={"q7": {"a": False, "b": False, "c": False}}) == {}  # itself is no other
    solved = sample(step("FINAL ANSWER: y"), correct=True, verdict={})
    assert found(solved, others={"s1": {"a": False, "b": False, "c": False}}) == {}


def test_the_registry_selects_reports_and_survives_a_failing_scanner():
    assert list(built_in()) == ["endpoint_error", "refusal", "empty_reply", "truncated", "format_failure", "tool_error",
                                "loop", "step_limit", "answer_in_context", "unsolvable"]
    with pytest.raises(KeyError, match="unknown scanner 'nope'"):
        get("nope")
    with pytest.raises(ValueError, match="built-in"):
        register(Scanner("refusal", "2", "mine", lambda s, c: []))

    def broken(item, context):
        raise RuntimeError("boom")

    only_toy = Scanner("only_toy", "1", "a toy's", broken, applies_to=("toy",))
    register(only_toy)
    try:
        assert only_toy not in selected(None, "gaia") and only_toy in selected(None, "toy")
        assert scan_sample(sample(step("x")), ScanContext(benchmark="toy"), [only_toy]) == [
            {"scanner": "only_toy", "severity": "info", "message": "the scanner failed: RuntimeError", "step": None}]
    finally:
        unregister("only_toy")
    assert get("refusal") is built_in()["refusal"]


def test_the_valid_sample_score_by_hand():
    samples = [sample(sample_id="ok", correct=True, verdict={}), sample(sample_id="bad", correct=False),
               sample(sample_id="cut", correct=False), sample(sample_id="leak", correct=True, verdict={}),
               sample(sample_id="down", stage="init", error="server_error"),
               sample(sample_id="hidden", correct=False, verdict={"scored": False})]
    findings = {"ok": [], "bad": [{"scanner": "refusal", "severity": "warning"}],
                "cut": [{"scanner": "truncated", "severity": "invalid"}],
                "leak": [{"scanner": "answer_in_context", "severity": "invalid"},
                         {"scanner": "answer_in_context", "severity": "warning"}],
                "down": [{"scanner": "endpoint_error", "severity": "invalid"}], "hidden": []}
    figures = validity_figures(samples, findings, {"refusal": "1", "truncated": "1", "answer_in_context": "1",
                                                   "endpoint_error": "1", "loop": "1"})
    assert figures["valid"] == 2 and figures["valid_correct"] == 1 and figures["valid_accuracy"] == 0.5
    assert figures["invalid"] == 3 and figures["invalid_judged"] == 2
    assert figures["by_scanner"] == {"refusal": {"warning": 1}, "truncated": {"invalid": 1},
                                     "answer_in_context": {"invalid": 1}, "endpoint_error": {"invalid": 1}, "loop": {}}
    low, high = figures["valid_ci95"]
    assert 0 < low < 0.5 < high < 1
    assert validity_figures([samples[2]], {"cut": findings["cut"]}, {})["valid_accuracy"] is None


def test_the_record_has_findings_on_their_own_not_in_the_verdict():
    stored = sample(step("x"), verdict={"error_type": "wrong_answer", "findings": [
        {"scanner": "refusal", "severity": "warning", "message": "m", "step": 0}]})
    record = SampleRecord.of(stored).dump()
    assert record["findings"] == [{"scanner": "refusal", "severity": "warning", "message": "m", "step": 0}]
    assert "findings" not in record["verdict"]
    stored.findings = []  # scanned again just now: nothing
    assert SampleRecord.of(stored).dump()["findings"] == []
    assert "findings" not in SampleRecord.of(sample(step("x"))).dump()  # never scanned: no key


def test_one_finding_type_from_the_scanners_to_the_record():
    """scan_sample makes evalui.core.record.Finding (a TypedDict: plain dicts, stored as they are); the
    record validates the same type and keeps exactly the keys, in the order, a finding was stored with."""
    import json

    import pydantic

    from evalui.core.record import Finding
    from evalui.scanners import base

    assert base.Finding is Finding
    scanner = Scanner("odd", "1", "", lambda s, c: [{"severity": "fatal", "message": 7, "step": True}])
    found = scan_sample(sample(step("x")), ScanContext(), [scanner])
    assert found == [{"scanner": "odd", "severity": "info", "message": "7", "step": None}]
    assert pydantic.TypeAdapter(list[Finding]).validate_python(found) == found
    kept = [{"step": 2, "scanner": "refusal", "severity": "warning", "message": "m"},
            {"scanner": "loop", "severity": "invalid", "extra": [1]}]  # an older or an added scanner's finding
    dumped = SampleRecord.of(sample(step("x"), verdict={"findings": kept})).dump()["findings"]
    assert json.dumps(dumped) == json.dumps([{"scanner": "refusal", "severity": "warning", "message": "m", "step": 2},
                                             {"scanner": "loop", "severity": "invalid", "extra": [1]}])
    with pytest.raises(pydantic.ValidationError, match="severity"):
        SampleRecord.of(sample(step("x"), verdict={"findings": [{"scanner": "x", "severity": "fatal"}]}))
