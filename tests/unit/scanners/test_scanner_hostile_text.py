"""Every registered validity scanner on hostile model text: megabyte floods of letters, brackets, quotes,
whitespace and dotted names in every field a scanner reads must not make a scan hang (a pattern
that backtracks over the text took minutes), and the call pattern that was made linear still finds
what it found before."""

from __future__ import annotations

import contextlib
import random
import re
import signal
import threading

import pytest

from evalui.scanners.base import MAX_SCANNED_CHARS, ScanContext, text_of
from evalui.scanners.registry import built_in, scanners
from evalui.scanners.replies import _CALL_LIKE
from evalui.store.rows import Sample

pytestmark = pytest.mark.unit

FLOOD_CHARS = 1_000_000
# Only a hang is caught: a scan of these texts takes well under a second, the quadratic pattern hours.
HANG_S = 60
# Repeated to a megabyte: what a call, a JSON call, a template, a refusal or a labelled answer starts
# with, without its end, and runs of what the patterns skip over.
FLOODS = {"letters": "a", "open_brackets": "(", "name_bracket": "a(", "brace_quote": '{"', "json_key": '{ "name" ',
          "spaces": " ", "whitespace": "\n\t ", "backslashes": "\\", "dotted": "a.", "words": "a ", "underscore_digit": "_9",
          "digits": "9", "non_ascii": "é", "dotted_names": "get_weather.x", "name_space_bracket": "a.b (",
          "final": "final ", "final_answer": "final answer: ", "sorry": "i'm sorry ", "answer_is": "the answer is ",
          "nested": "[[", "epochs": "#e1"}


class _Hang(Exception):
    pass


@contextlib.contextmanager
def hang_deadline(what: str):
    """Fails the test when the block is still running after HANG_S. A timer signal, not a thread: the
    regular expression engine holds the interpreter lock for a whole search, so a watching thread
    would only wake once the search was over."""
    assert threading.current_thread() is threading.main_thread(), "a timer signal reaches the main thread only"

    def on_alarm(signum, frame):
        raise _Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        yield
    except _Hang:
        pytest.fail(f"{what} was still running after {HANG_S} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def step(text="", calls=(), results=(), note="", messages=(), finish="stop"):
    return {"messages": list(messages), "text": text, "tool_calls": list(calls), "tool_results": list(results),
            "prompt_tokens": 10, "completion_tokens": 5, "latency_s": 0.1, "attempts": 1, "note": note,
            "finish_reason": finish}


def hostile_samples(flood: str) -> dict[str, Sample]:
    """Samples that carry ``flood`` wherever a scanner reads text: the prompt, each reply, the calls'
    names and arguments, the tools' results and errors, the notes, the stored output, the error."""
    messages = [{"role": "system", "content": flood}, {"role": "user", "content": [{"type": "text", "text": flood}]}]
    calls = [{"name": flood, "arguments": flood}]
    results = [{"name": flood, "content": flood, "error": flood}]
    agent = [step(flood, calls, results, note=flood, messages=messages) for _ in range(3)] + [step(flood)]

    def judged(verdict, payload, trajectory=agent, response=None):
        return Sample(exp_id="e", sample_id="q1#e1", position=0, group="g", stage="judged", payload=payload,
                      request={"messages": messages}, response=response, correct=False, verdict=verdict,
                      trajectory=trajectory)

    return {
        "undecoded": judged({"error_type": "decode_failure"}, {"target": "get_weather(city='Paris')"}),
        "wrong_answer": judged({"error_type": "wrong_answer", "model_answer": flood}, {"final_answer": "Paris"}),
        "short_answer": judged({"error_type": "wrong_answer", "force_terminated": True}, {"final_answer": "3"}),
        "stored_output": judged({"error_type": "wrong_format"}, {"answer": "42"}, trajectory=[],
                                response={"text": flood, "limit_exceeded": flood}),
        "errored": Sample(exp_id="e", sample_id="q1", position=0, group="g", stage="init", payload={}, error=flood),
    }


@pytest.mark.parametrize("unit", FLOODS.values(), ids=FLOODS.keys())
def test_every_scanner_finishes_on_a_megabyte_of_hostile_text(unit):
    flood = unit * (FLOOD_CHARS // len(unit))
    others = {"q1": {"a": False, "b": False, "c": False}}
    for name, scanner in scanners().items():
        for shape, item in hostile_samples(flood).items():
            for benchmark in ("bfcl", "gaia"):
                with hang_deadline(f"the scanner {name} on the {shape} sample ({benchmark}, {unit!r} repeated)"):
                    scanner.scan(item, ScanContext(benchmark=benchmark, model="m", others=others))


# The call pattern before it was made linear: the reference for what it must still find.
_QUADRATIC_CALL_LIKE = re.compile(r"[A-Za-z_][\w.]*\s*\(|\{\s*\"(?:name|function|tool)\"\s*:")


@pytest.mark.parametrize("text", ["[get_weather(city='Paris')]", "get_weather (city='Paris')", "math.sqrt(2)",
                                  "call obj.method\n(", "_private()", "x1(", "1abc(", "éf(", "..a(",
                                  '{"name": "get_weather"}', '{ "function" :', '{\n"tool":{}}'])
def test_the_call_pattern_still_finds_calls(text):
    assert _QUADRATIC_CALL_LIKE.search(text) and _CALL_LIKE.search(text)


@pytest.mark.parametrize("text", ["I need more details first.", "(1, 2)", "123(", "a.b", '"name": "f"',
                                  '{"city": "Paris"}', "f\n-(", "é("])
def test_the_call_pattern_leaves_non_calls_alone(text):
    assert not _QUADRATIC_CALL_LIKE.search(text) and not _CALL_LIKE.search(text)


def test_the_call_pattern_agrees_with_the_quadratic_one_on_short_texts():
    pieces = list("aZ_9.( \n\t{}\":é-,[]'=") + ["name", "tool", "function", "get_weather", "x.y", " (", '{"']
    draw = random.Random(35)
    for _ in range(20_000):
        text = "".join(draw.choice(pieces) for _ in range(draw.randint(0, 24)))
        assert bool(_CALL_LIKE.search(text)) == bool(_QUADRATIC_CALL_LIKE.search(text)), text


def test_the_hang_deadline_stops_a_quadratic_search():
    with pytest.raises(pytest.fail.Exception, match="still running"):
        with hang_deadline("the quadratic call pattern"):
            signal.setitimer(signal.ITIMER_REAL, 0.2)  # this test's own short wait; the search would take minutes
            _QUADRATIC_CALL_LIKE.search("a" * 100_000)


def test_a_long_text_is_read_by_its_head_and_tail_and_a_normal_one_whole():
    normal = "x" * (MAX_SCANNED_CHARS - 1) + "("
    assert text_of(normal) == normal and text_of([{"text": "a"}, {"text": "b"}]) == "a\nb"
    long = "get_weather" + "(" * (2 * MAX_SCANNED_CHARS) + "the end"
    read = text_of(long)
    assert len(read) == MAX_SCANNED_CHARS and read.startswith("get_weather(") and read.endswith("(the end")
    no_call = "f" * MAX_SCANNED_CHARS + "!" + "(" * MAX_SCANNED_CHARS
    assert not _CALL_LIKE.search(no_call) and not _CALL_LIKE.search(text_of(no_call))  # none made across the gap


def test_a_final_answer_after_a_flood_is_still_read():
    flood = "word " * MAX_SCANNED_CHARS
    gaia = Sample(exp_id="e", sample_id="q1", position=0, group="g", stage="judged", payload={}, correct=False,
                  verdict={"error_type": "wrong_answer", "model_answer": "x"}, trajectory=[step(flood + "FINAL ANSWER: x")])
    assert built_in()["format_failure"].scan(gaia, ScanContext(benchmark="gaia")) == []
    bfcl = Sample(exp_id="e", sample_id="q1", position=0, group="g", stage="judged", payload={}, correct=False,
                  verdict={"error_type": "decode_failure"}, trajectory=[step(flood + "get_weather(city='Paris')")])
    assert [f["severity"] for f in built_in()["format_failure"].scan(bfcl, ScanContext(benchmark="bfcl"))] == ["warning"]
