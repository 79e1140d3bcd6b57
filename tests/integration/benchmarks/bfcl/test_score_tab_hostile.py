"""The Score tab's API with hostile BFCL result lines: nothing runs, nothing is scored correct."""

from __future__ import annotations

import json

from evalui.benchmarks.bfcl.data import load_category
from integration.benchmarks.bfcl.test_bfcl_safety import hostile_lines


def test_score_tab_api_runs_no_hostile_line(app_url, tmp_path):
    from app_client import app_client
    from gradio_client import handle_file

    marker = tmp_path / "ran"
    ids = [e.id for e in load_category("simple_python")]
    lines = hostile_lines(marker)
    upload = tmp_path / "BFCL_v4_simple_python_result.json"
    upload.write_text("".join(json.dumps({"id": ids[i], "result": text}) + "\n" for i, text in enumerate(lines)))
    client = app_client(app_url, verbose=False)
    outputs = client.predict("simple_python", handle_file(str(upload)), api_name="/score_bfcl_file")
    verdict_file = next(o for o in outputs if isinstance(o, str) and o.endswith(".jsonl"))
    verdicts = [json.loads(line) for line in open(verdict_file, encoding="utf-8")]
    assert len(verdicts) == len(lines)
    assert all(not v["correct"] and v["error_type"] == "unsafe_expression" for v in verdicts)
    assert not marker.exists()


def test_score_tab_scores_multi_turn_files_as_the_cli_does_and_runs_no_hostile_call(app_url, tmp_path):
    from app_client import app_client
    from gradio_client import handle_file

    from evalui.benchmarks.bfcl.score_file import score_result_file

    marker = tmp_path / "ran"
    entries = load_category("multi_turn_base")
    gold = [{"id": e.id, "result": [["[" + ", ".join(turn) + "]"] if turn else ["Done."] for turn in e.possible_answer]}
            for e in entries[:4]]
    # Each hostile text stands as the first step of an entry's first turn: nothing of it may run.
    hostile = [{"id": e.id, "result": [[text]] + [["Done."]] * (len(e.possible_answer) - 1)}
               for e, text in zip(entries[4:], hostile_lines(marker))]
    upload = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    upload.write_text("".join(json.dumps(line) + "\n" for line in gold + hostile))
    client = app_client(app_url, verbose=False)
    outputs = client.predict("multi_turn_base", handle_file(str(upload)), api_name="/score_bfcl_file")
    verdict_file = next(o for o in outputs if isinstance(o, str) and o.endswith(".jsonl"))
    shown = {v["id"]: v for v in map(json.loads, open(verdict_file, encoding="utf-8"))}
    expected = {v["id"]: v for v in score_result_file(upload, "multi_turn_base")[0]}
    assert {i: v["correct"] for i, v in shown.items()} == {i: v["correct"] for i, v in expected.items()}
    assert sum(shown[line["id"]]["correct"] for line in gold) >= 3  # gold conversations mostly pass
    assert not any(shown[line["id"]]["correct"] for line in hostile)
    assert not marker.exists()
