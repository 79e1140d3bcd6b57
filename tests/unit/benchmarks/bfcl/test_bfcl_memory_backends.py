"""BFCL v4's memory backends, as evalui loads them: bfcl-eval's own classes, offline, without torch.

The data is bfcl-eval's: the notetaker scenario's prereq conversations (memory_prereq_conversation)
fill the memory, in their ``depends_on`` order, and its questions load the snapshot; the vector
store then finds the ground truth's source sentence for the questions.
"""

from __future__ import annotations

import json
import sys

import pytest

from evalui.benchmarks.bfcl.agentic.memory import (
    MEMORY_CATEGORIES,
    MiniLMSentenceTransformer,
    backend_class_name,
    finish_memory_entry,
    load_memory_backend,
    open_memory_backend,
    run_snapshot_root,
)
from evalui.benchmarks.bfcl.scoring.official import set_project_root

SCENARIO = "notetaker"  # 5 prereq conversations of short notes, 25 questions


@pytest.fixture(scope="module")
def bfcl_utils():
    set_project_root()  # before bfcl_eval is first imported: it makes folders there
    import bfcl_eval.utils

    return bfcl_eval.utils


def scenario_entries(bfcl_utils, category: str, scenario: str = SCENARIO) -> tuple[list[dict], list[dict]]:
    entries = [e for e in bfcl_utils.load_dataset_entry(category) if e["scenario"] == scenario]
    prereqs = [e for e in entries if bfcl_utils.is_memory_prereq(e["id"])]
    questions = [e for e in entries if not bfcl_utils.is_memory_prereq(e["id"])]
    return prereqs, questions


def user_messages(entry: dict) -> list[str]:
    return [m["content"] for turn in entry["question"] for m in turn if m["role"] == "user"]


def stored_texts(category: str, backend) -> list[str]:
    """Everything the backend holds, through its own public API."""
    if category == "memory_kv":
        keys = backend.archival_memory_list_keys()["keys"]
        return [backend.archival_memory_retrieve(k)["value"] for k in keys]
    if category == "memory_vector":
        return [r["text"] for r in backend.archival_memory_retrieve_all()["result"]]
    return [t for t in backend.memory_retrieve().get("memory_content", "").split("\n") if t]


def store(category: str, backend, index: int, text: str) -> dict:
    if category == "memory_kv":
        return backend.archival_memory_add(f"note_{index}", text)
    if category == "memory_vector":
        return backend.archival_memory_add(text)
    return backend.memory_append(text + "\n")


@pytest.mark.parametrize("category", MEMORY_CATEGORIES)
def test_the_loader_gives_bfcl_evals_own_class(bfcl_utils, category):
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    cls = load_memory_backend(category)
    name = backend_class_name(category)
    assert cls.__name__ == name and cls.__module__ == CLASS_FILE_PATH_MAPPING[name]
    assert load_memory_backend(f"{category}_prereq_0-customer-0") is cls
    assert load_memory_backend(f"{category}_3-student-3") is cls


def test_snapshot_roots_are_per_run_and_worker(tmp_path):
    assert run_snapshot_root(tmp_path / "run-1") != run_snapshot_root(tmp_path / "run-2")
    assert run_snapshot_root(tmp_path, "w1") != run_snapshot_root(tmp_path, "w2")
    assert run_snapshot_root(tmp_path, "w1").is_relative_to(run_snapshot_root(tmp_path))
    with pytest.raises(ValueError):
        run_snapshot_root(tmp_path, "../elsewhere")


def test_not_a_memory_category():
    for category in ("multi_turn_base", "web_search_base", "memory", "memory_kvx"):
        with pytest.raises(ValueError):
            backend_class_name(category)


def test_memory_vector_runs_on_real_faiss_and_evalui_encoder_and_leaves_sys_modules_as_it_was(bfcl_utils):
    before = sys.modules.get("sentence_transformers")
    cls = load_memory_backend("memory_vector")
    module = sys.modules[cls.__module__]
    assert sys.modules.get("sentence_transformers") is before
    assert isinstance(module.ENCODER, MiniLMSentenceTransformer) and module.ENCODER_DIM == 384
    assert module.faiss.__name__ == "faiss" and hasattr(module.faiss, "IndexFlatIP")
    assert "torch" not in sys.modules


def test_kv_store_limits_and_bm25_key_search(tmp_path):
    kv = open_memory_backend({"id": "memory_kv_prereq_0-customer-0", "scenario": "customer"}, tmp_path)
    assert kv.core_memory_add("preferred_contact", "email") == {"status": "Key-value pair added."}
    assert kv.core_memory_retrieve("preferred_contact") == {"value": "email"}
    assert "error" in kv.core_memory_add("Bad Key", "x")
    for i in range(6):
        kv.core_memory_add(f"fact_{i}", str(i))
    assert kv.core_memory_add("one_too_many", "x") == {"error": "Core memory is full. Please clear some entries."}
    kv.archival_memory_add("order_shipping_date", "shipped on May 2")
    kv.archival_memory_add("dog_name", "Biscuit")
    ranked = kv.archival_memory_key_search("when was my order shipped")["ranked_results"]
    assert ranked[0][1] == "order_shipping_date"


def test_vector_store_retrieves_by_meaning(tmp_path):
    vec = open_memory_backend({"id": "memory_vector_prereq_0-customer-0", "scenario": "customer"}, tmp_path)
    for text in ("Order 123 shipped on May 2.", "The dog is named Biscuit.", "I prefer to be contacted by email."):
        assert "id" in vec.archival_memory_add(text)
    hits = vec.archival_memory_retrieve("What is my pet called?", top_k=2)["result"]
    assert [h["text"] for h in hits][0] == "The dog is named Biscuit."
    assert hits[0]["similarity_score"] > hits[1]["similarity_score"]
    assert vec.archival_memory_update(1, "The cat is named Pepper.") == {"status": "ID 1 updated."}
    best = vec.archival_memory_retrieve("What is my pet called?", top_k=1)["result"][0]
    assert best["text"] == "The cat is named Pepper."
    assert vec.archival_memory_remove(1) == {"status": "ID 1 removed from store."}
    assert all(h["id"] != 1 for h in vec.archival_memory_retrieve("pet", top_k=5)["result"])
    assert "error" in vec.core_memory_add("x" * 301)


def test_rec_sum_keeps_one_summary(tmp_path):
    rec = open_memory_backend({"id": "memory_rec_sum_prereq_0-customer-0", "scenario": "customer"}, tmp_path)
    rec.memory_append("Name: Michael. ")
    rec.memory_append("Contact: email.")
    assert rec.memory_replace("email", "phone") == {"status": "Memory updated."}
    assert rec.memory_retrieve() == {"memory_content": "Name: Michael. Contact: phone."}
    assert rec.memory_clear() and rec.memory_retrieve() == {"error": "Memory is empty."}
    assert "error" in rec.memory_update("x" * 10_001)


@pytest.mark.parametrize("category", MEMORY_CATEGORIES)
def test_prereq_snapshots_reach_the_questions_of_their_scenario_and_run_only(bfcl_utils, tmp_path, category):
    from bfcl_eval.model_handler.utils import add_memory_instruction_system_prompt

    prereqs, questions = scenario_entries(bfcl_utils, category)
    assert len(prereqs) == 5 and questions
    run_a, run_b = run_snapshot_root(tmp_path / "run-a"), run_snapshot_root(tmp_path / "run-b")
    written: list[str] = []
    for position, prereq in enumerate(prereqs):
        assert prereq["depends_on"] == [p["id"] for p in prereqs[:position]]
        backend = open_memory_backend(prereq, run_a)
        assert stored_texts(category, backend) == written  # what the earlier prereqs left, no more
        for text in user_messages(prereq):
            assert "error" not in store(category, backend, len(written), text)
            written.append(text)
        latest = finish_memory_entry(prereq["id"], backend)
        assert latest.is_relative_to(run_a) and latest.name == f"{SCENARIO}_final.json"
        assert (backend.snapshot_folder / f"{prereq['id']}.json").is_file()

    question = questions[0]
    backend = open_memory_backend(question, run_a)
    assert stored_texts(category, backend) == written
    assert finish_memory_entry(question["id"], backend) is None  # questions never write
    assert json.loads(latest.read_text()) == json.loads((backend.snapshot_folder / latest.name).read_text())
    if category != "memory_kv":  # kv shows its (empty) core memory; rec_sum its summary
        prompt = add_memory_instruction_system_prompt(
            [[dict(m) for m in turn] for turn in question["question"]], category, SCENARIO, backend)
        assert (written[0] in prompt[0][0]["content"]) == (category == "memory_rec_sum")

    # Another run, or another scenario of this run, starts from an empty memory.
    assert stored_texts(category, open_memory_backend(question, run_b)) == []
    _, other_questions = scenario_entries(bfcl_utils, category, "healthcare")
    assert stored_texts(category, open_memory_backend(other_questions[0], run_a)) == []


def test_the_vector_store_finds_the_ground_truth_source_after_a_snapshot(bfcl_utils, tmp_path):
    category = "memory_vector"
    prereqs, questions = scenario_entries(bfcl_utils, category)
    truth = {g["id"]: g for g in bfcl_utils.load_ground_truth_entry(category)}
    root = run_snapshot_root(tmp_path)
    for prereq in prereqs:
        backend = open_memory_backend(prereq, root)
        for text in user_messages(prereq):
            backend.archival_memory_add(text)
        finish_memory_entry(prereq["id"], backend)
    found = 0
    for question in questions:
        backend = open_memory_backend(question, root)  # the store is re-embedded from the snapshot
        asked = question["question"][0][-1]["content"]
        answers = [a.lower() for a in truth[question["id"].replace(category, "memory", 1)]["ground_truth"]]
        hits = backend.archival_memory_retrieve(asked, top_k=5)["result"]
        found += any(answer in hit["text"].lower() for hit in hits for answer in answers)
    # Measured here: 20 of 25 (the other answers are paraphrased in the notes, or need two of them);
    # sentence-transformers' own vectors give the same top five for every question.
    assert found >= 18
