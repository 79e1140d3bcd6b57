"""Content-addressed parts (evalui.store.parts): what is packed reads back exactly, byte for
byte in its JSON, including hostile text that looks like a reference; repeated parts are stored once."""

from __future__ import annotations

import pytest

from evalui.run.trajectory import Step
from evalui.store.parts import MARKER, PREFIX, pack
from evalui.store.rows import _dumps, _loads
from evalui.store.run_store import RunStore

DOCS = [{"type": "function", "function": {"name": f"tool_{k}", "description": "d" * 300,
                                          "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}}
        for k in range(3)]
SYSTEM = {"role": "system", "content": "You are an expert in composing functions. " * 20}


def _request(question: str) -> dict:
    return {"messages": [SYSTEM, {"role": "user", "content": question}], "tools": DOCS, "n": 1}


VALUES = [
    _request("What is 2 + 2?"),
    [{"messages": [SYSTEM, {"role": "user", "content": "q"}], "text": "ü✓ " * 300, "tool_calls": []}],
    {"text": "plain and short"},
    {"text": MARKER + "0" * 64, "messages": [SYSTEM]},  # hostile: a model wrote the marker
    {"messages": [SYSTEM], "big": 2 ** 70},  # orjson cannot write it: json does, and it stays plain
    {"messages": [SYSTEM], "nan": float("inf"), "nested": {"tools": DOCS, "k": [1.5, None, True]}},
    "x" * 5000,
    None,
    # A trajectory as the run stores it: Step dataclasses, walked as their JSON.
    [Step(messages=[SYSTEM, {"role": "user", "content": "q ✓"}], text="a" * 600,
          tool_calls=[{"name": "f", "arguments": "{\"x\": 1}"}], latency_s=0.25)],
    {"messages": [SYSTEM, {"role": "user", "content": "\u0000part: written out by hand"}]},
    {"tools": DOCS, "unicode": "数学 🧮 \u2028", "floats": [0.1, 1e300, -0.0, 1 / 3]},
]


@pytest.mark.unit
@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_packed_text_joins_back_to_the_same_json(value):
    text, parts = pack(value)
    if text is not None and text.startswith(PREFIX):
        assert parts and all(len(body) >= 256 for body in parts.values())
    plain = _dumps(value)
    if not parts:
        assert text == plain
    from evalui.store.parts import _joined

    if parts:
        assert _joined(text, parts.__getitem__) == plain


@pytest.mark.unit
def test_the_store_reads_back_what_it_was_given_and_keeps_each_part_once(tmp_path):
    store = RunStore(tmp_path / "parts.sqlite")
    store.create_or_get_experiment("e", "echo", "m", "h", {})
    payloads = {f"s{i}": {"i": i, "messages": [SYSTEM]} for i in range(len(VALUES))}
    store.add_samples("e", [(sid, "g", payload) for sid, payload in payloads.items()])
    for i, value in enumerate(VALUES):
        store.record_rollout("e", f"s{i}", request=_request(f"question {i}"), response=value, latency_s=0.1,
                             prompt_tokens=1, completion_tokens=1, attempts=1, trajectory=[{"messages": [SYSTEM],
                                                                                          "text": str(i)}],
                             wait=i % 2 == 0)
        store.record_judgement("e", f"s{i}", prediction=value, correct=True, verdict={"k": i})
    store.close()

    again = RunStore(tmp_path / "parts.sqlite")  # no part in memory: every one is read from the store
    samples = again.samples("e")
    for i, sample in enumerate(samples):
        assert sample.payload == payloads[sample.sample_id]
        assert _dumps(sample.request) == _dumps(_request(f"question {i}"))
        before = _dumps(_loads(_dumps(VALUES[i])))  # what a store without parts read back (a huge int: a float)
        assert _dumps(sample.response) == before and _dumps(sample.prediction) == before
        assert sample.trajectory == [{"messages": [SYSTEM], "text": str(i)}]
    assert again.sample("e", "s3").response["text"] == MARKER + "0" * 64
    bodies = {row["body"] for row in again._read("SELECT body FROM parts")}
    assert _dumps(SYSTEM) in bodies and _dumps(DOCS) in bodies
    assert len(again._read("SELECT sha256 FROM parts")) == len(bodies)  # each once
    again.close()
