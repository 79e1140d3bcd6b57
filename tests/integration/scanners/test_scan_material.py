"""`answer_in_context` on full GAIA runs against a scripted endpoint: the task's own material (the
bundled sample's attachments, read inline or through the files tool, and a search task's pages) never
makes a sample invalid, a page that names GAIA's own answers is a warning with its reason, and a gold
answer in the question itself stays invalid. (The AIME judge's run: test_aime_judge_scorer.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from peers import settings_for

from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.run import lifecycle
from support.openai_peer import ScriptedPeer, completion, first_user_text, tool_outputs

# The bundled sample's questions, by a phrase of each; task 0005's cities.json holds "Marseille".
ANSWERS = {"chemical symbol": "Au", "units were ordered": "10", "planets": "Mercury, Venus, Earth",
           "colour": "red", "largest population": "Paris", "total price": "525"}
WRONG = "evalui-sample-0005"


def answer_for(text: str) -> str:
    return next(answer for phrase, answer in ANSWERS.items() if phrase in text)


def bare_script(body, n):
    return completion(f"Let me look.\nFINAL ANSWER: {answer_for(first_user_text(body))}")


def files_script(body, n):
    text = first_user_text(body)
    if "Attached file" in text and not tool_outputs(body):
        return completion("", tool_calls=[("files", "{}")])  # read the attachment first
    return completion(f"FINAL ANSWER: {answer_for(text)}")


def findings_of(summary: dict) -> dict[str, list[dict]]:
    lines = (Path(summary["out_dir"]) / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["id"]: record["findings"] for record in map(json.loads, lines)}


@pytest.mark.parametrize("tools, script", [(None, bare_script), (["files"], files_script)], ids=["inline", "files_tool"])
def test_the_bundled_sample_with_one_wrong_answer_is_valid_throughout(store, tools, script):
    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0)
        prepared = lifecycle.prepare(store, GAIA, GaiaOptions(source="sample", tools=tools), settings,
                                     exp_id=f"sample-{bool(tools)}")
        summary = lifecycle.execute(store, prepared, settings)
        bodies = [r.body for r in peer.chat_requests()]
    # The wrong answer's attachment reached the model, inline or as the files tool's result.
    shown = [json.dumps(b["messages"]) for b in bodies if "largest population" in first_user_text(b)]
    assert shown and any("Marseille" in text for text in shown)
    assert summary["total"] == 6 and summary["errors"] == 0 and summary["correct"] == 5
    validity = summary["validity"]
    assert validity["invalid"] == 0 and validity["valid"] == 6
    assert validity["valid_accuracy"] == summary["accuracy"] == 5 / 6
    assert validity["by_scanner"]["answer_in_context"] == {}
    assert not any(f["scanner"] == "answer_in_context" for found in findings_of(summary).values() for f in found)
    assert {s.sample_id: s.correct for s in store.samples(prepared)}[WRONG] is False


# A search task: pages and results by address, as the operator's web backend would return them.
PAGES = {
    "https://example.org/harbour": "The harbour's flag shows a kestrel over three waves.",
    "https://huggingface.co/datasets/gaia-benchmark/GAIA/viewer": "Question: ... lighthouse? Final answer: quetzal",
}
SEARCH = {"lighthouse": [{"title": "Lighthouse lamps", "url": "https://example.org/lamps",
                          "snippet": "Task scan-material-lamp: the lighthouse lamp is amber."}]}
QUESTIONS = [
    # (task id, question, gold answer, the model's tool call before it answers)
    ("scan-material-page", "[page] Which bird is on the harbour's flag?", "kestrel",
     ("web_fetch", {"url": "https://example.org/harbour"})),
    ("scan-material-search", "[search] Which bird is carved on the harbour's gate?", "heron",
     ("web_search", {"query": "harbour gate heron carving"})),
    ("scan-material-sheet", "[sheet] Which bird is painted on the lighthouse?", "quetzal",
     ("web_fetch", {"url": "https://huggingface.co/datasets/gaia-benchmark/GAIA/viewer"})),
    ("scan-material-lamp", "[lamp] What colour is the lighthouse lamp?", "amber",
     ("web_search", {"query": "lighthouse lamp colour"})),
    ("scan-material-leak", "[leak] Which bird nests on the pier? (The editor's note: it is a cormorant.)",
     "cormorant", None),
]


class Web:
    """The operator's web backend (EVALUI_WEB_BACKEND=module:attr) for the search task."""

    def search(self, query: str, limit: int) -> list[dict]:
        found = next((results for word, results in SEARCH.items() if word in query), None)
        return found or [{"title": "Gate carvings", "url": "https://example.org/gate",
                          "snippet": "A heron is carved on the harbour's gate."}]

    def fetch(self, url: str) -> str:
        return PAGES[url]


def search_script(body, n):
    text = first_user_text(body)
    tag = text[1:text.index("]")]
    _, _, answer, call = next(q for q in QUESTIONS if q[1].startswith(f"[{tag}]"))
    if call and not tool_outputs(body):
        return completion("", tool_calls=[(call[0], json.dumps(call[1]))])
    return completion(f"FINAL ANSWER: {answer}")


def test_a_search_tasks_pages_are_its_material_and_only_an_answer_sheet_is_suspect(store, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_WEB_BACKEND", f"{__name__}:Web")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"task_id": task_id, "Question": question, "Final answer": answer, "Level": 1}
                                     for task_id, question, answer, _ in QUESTIONS]), encoding="utf-8")
    with ScriptedPeer(search_script) as peer:
        settings = settings_for(peer, max_retries=0)
        options = GaiaOptions(source=f"questions:{questions}", tools=["web"], max_steps=3)
        summary = lifecycle.execute(store, lifecycle.prepare(store, GAIA, options, settings, exp_id="search"), settings)
    assert summary["total"] == summary["correct"] == 5
    found = {sample_id: [(f["severity"], f["message"], f["step"]) for f in items if f["scanner"] == "answer_in_context"]
             for sample_id, items in findings_of(summary).items()}
    assert found["scan-material-page"] == [] and found["scan-material-search"] == []
    assert found["scan-material-leak"] == [("invalid", "the question already holds the gold answer 'cormorant'", 0)]
    for suspect in ("scan-material-sheet", "scan-material-lamp"):
        [(severity, message, step)] = found[suspect]
        assert severity == "warning" and step == 0, found[suspect]
        assert "names GAIA's own answers" in message and message.startswith("the web_")
    validity = summary["validity"]
    assert validity["by_scanner"]["answer_in_context"] == {"invalid": 1, "warning": 2}
    assert validity["valid"] == 4 and validity["valid_accuracy"] == 1.0
