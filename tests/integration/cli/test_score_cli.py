"""The `evalui bfcl score` and `evalui gaia score` commands, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bfcl_cases import gold_calls, prompt_text

from evalui.benchmarks.bfcl.data import load_category


def run_cli(*args, module=True):
    # The console script installed beside this interpreter, whether or not the venv is activated.
    script = str(Path(sys.executable).parent / "evalui")
    command = [sys.executable, "-m", "evalui", *args] if module else [script, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def live_simple_results(tmp_path_factory):
    entries = load_category("live_simple")[:12]
    records = []
    for index, entry in enumerate(entries):
        calls = gold_calls(entry.possible_answer)
        if index % 3 == 2:
            calls = [(calls[0][0] + "_nope", calls[0][1])]
        records.append({"id": entry.id, "result": prompt_text(calls, "python")})
    return write_lines(tmp_path_factory.mktemp("bfcl") / "BFCL_v4_live_simple_result.json", records)


def test_bfcl_score_writes_verdicts_and_prints_summary_last(live_simple_results, tmp_path):
    out = tmp_path / "verdicts.jsonl"
    done = run_cli("bfcl", "score", "--category", "live_simple", "--results", str(live_simple_results), "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["category"] == "live_simple"
    assert summary["total"] == 12 and summary["correct"] == 8
    assert summary["accuracy"] == pytest.approx(8 / 12)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 12
    assert all(isinstance(r["correct"], bool) and "error_type" in r for r in rows)
    assert {r["error_type"] for r in rows if not r["correct"]} == {"wrong_function"}


def test_console_script_and_module_agree(live_simple_results):
    by_module = run_cli("bfcl", "score", "--category", "live_simple", "--results", str(live_simple_results))
    by_script = run_cli("bfcl", "score", "--category", "live_simple", "--results", str(live_simple_results), module=False)
    assert by_module.returncode == by_script.returncode == 0
    assert by_module.stdout.splitlines()[-1] == by_script.stdout.splitlines()[-1]


def test_cli_paths_do_not_import_gradio():
    code = (
        "import sys; from evalui.cli import build_parser; build_parser(); "
        "import evalui.benchmarks.bfcl.score_file, evalui.benchmarks.gaia.score_file; "
        "import evalui.benchmarks.bfcl.spec, evalui.benchmarks.gaia.spec, evalui.benchmarks.aime.spec; "
        "import evalui.run.lifecycle; "
        "import evalui.review.reviews, evalui.ops.history, evalui.endpoint.local.model; "
        "print('gradio' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr


def test_scoring_loads_no_provider_sdk_and_the_real_registry_still_imports_after():
    # A dotted function name exercises the one registry question the checker asks: FC replies carry
    # "math_hypot" for "math.hypot".
    code = """
import json, sys
from evalui.benchmarks.bfcl.scoring.official import load_official
official = load_official()
sdks = sorted({m.split('.')[0] for m in sys.modules} & {'anthropic', 'openai', 'google', 'qwen_agent', 'cohere', 'mistralai'})
func = [{"name": "math.hypot", "description": "", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]}}]
truth = [{"math.hypot": {"x": [3], "y": [4]}}]
verdicts = {}
for underscore_to_dot in (True, False):
    for name in ("math_hypot", "math.hypot"):
        verdicts[f"{underscore_to_dot}-{name}"] = official.ast_checker(
            func, [{name: {"x": 3, "y": 4}}], truth, official.language.PYTHON, "simple", official.checker_model_name(underscore_to_dot))["valid"]
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING
print(json.dumps({"sdks": sdks, "verdicts": verdicts, "registry": len(MODEL_CONFIG_MAPPING)}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["sdks"] == []
    assert report["verdicts"] == {
        "True-math_hypot": True, "True-math.hypot": False, "False-math_hypot": False, "False-math.hypot": True,
    }
    assert report["registry"] > 100


def test_the_checking_workers_load_no_provider_sdk():
    """The checker runs in worker processes forked from a fork server of their own: neither loads
    the provider SDKs (about 7 s of CPU in each process that checks), and the verdicts are bfcl-eval's."""
    from evalui.benchmarks.bfcl.isolated import census, score_single_isolated

    func = [{"name": "math.hypot", "description": "", "parameters": {
        "type": "dict", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]}}]
    truth = [{"math.hypot": {"x": [3], "y": [4]}}]
    verdicts = {name: score_single_isolated("simple_python", func, truth, [{name: '{"x": 3, "y": 4}'}],
                                            underscore_to_dot=True)["correct"] for name in ("math_hypot", "math.hypot")}
    assert verdicts == {"math_hypot": True, "math.hypot": False}
    workers = census()
    assert workers and all(worker["provider_sdks"] == [] for worker in workers), workers


AGENTIC_CHECK = """
import json, sys
from evalui.benchmarks.bfcl.isolated import PROVIDER_SDKS
from evalui.benchmarks.bfcl.scoring.agentic import score_agentic
verdicts = [score_agentic("web_search_base_0", "web_search_base", [[text]], ["Paris"], "prompt").correct
            for text in ("The capital is Paris.", "The capital is Lyon.")]
others = set(PROVIDER_SDKS) - {"openai"}  # the handler that decodes the steps is bfcl's OpenAI one
print(json.dumps({"verdicts": verdicts, "real_registry": "bfcl_eval.constants.model_config" in sys.modules,
                  "sdks": sorted({n.split(".")[0] for n in sys.modules} & others)}))
"""


def test_agentic_scoring_loads_neither_the_real_registry_nor_other_provider_sdks():
    """Memory and web-search verdicts come from bfcl-eval's eval runner, imported with the registry's
    stand-in: the real registry imports every provider SDK (about 7 s of CPU per process)."""
    done = subprocess.run([sys.executable, "-c", AGENTIC_CHECK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report == {"verdicts": [True, False], "real_registry": False, "sdks": []}


@pytest.mark.parametrize(
    "lines, category, message",
    [
        (['{"id": "live_simple_0-0-0", "result": "[]"}', "{not json"], "live_simple", ":2: malformed JSON"),
        (['{"id": "simple_python_1", "result": "[]"}'], "live_simple", "belongs to category 'simple_python'"),
        (['{"id": "live_simple_99999-1-1", "result": "[]"}'], "live_simple", "not in the live_simple dataset"),
        (['{"id": "live_simple_0-0-0"}'], "live_simple", 'missing field "result"'),
        (['{"id": "live_simple_0-0-0", "result": 5}'], "live_simple", "must be a string"),
        (['{"id": "live_simple_0-0-0", "result": "[]"}'], "simple_cobol", "unknown BFCL category"),
    ],
)
def test_bfcl_score_bad_input_is_one_clear_line(tmp_path, lines, category, message):
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = run_cli("bfcl", "score", "--category", category, "--results", str(path))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.fixture()
def gaia_files(tmp_path):
    metadata = write_lines(
        tmp_path / "metadata.jsonl",
        [
            {"task_id": "t1", "Question": "q", "Final answer": "17", "Level": 1},
            {"task_id": "t2", "Question": "q", "Final answer": "a, b", "Level": 1},
            {"task_id": "t3", "Question": "q", "Final answer": "St. Petersburg", "Level": 2},
            {"task_id": "t4", "Question": "q", "Final answer": "The Beatles", "Level": 3},
        ],
    )
    submission = write_lines(
        tmp_path / "submission.jsonl",
        [
            {"task_id": "t1", "model_answer": "17.0"},
            {"task_id": "t2", "model_answer": "b, a"},
            {"task_id": "t3", "model_answer": "st petersburg"},
            {"task_id": "t4", "model_answer": None},
        ],
    )
    return metadata, submission


def test_gaia_score_jsonl_metadata(gaia_files, tmp_path):
    metadata, submission = gaia_files
    out = tmp_path / "out.jsonl"
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(metadata), "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["total"] == 4 and summary["correct"] == 2
    assert summary["by_level"]["1"] == {"total": 2, "correct": 1, "accuracy": 0.5}
    assert summary["by_level"]["2"]["accuracy"] == 1.0
    assert summary["lenient_accuracy"] == 0.75
    rows = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["t2"] == {**rows["t2"], "correct": False, "lenient_correct": True, "level": "1"}


def test_gaia_score_parquet_metadata(gaia_files, tmp_path):
    import pandas as pd

    metadata, submission = gaia_files
    parquet = tmp_path / "metadata.parquet"
    pd.read_json(metadata, lines=True).to_parquet(parquet)
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(parquet))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["correct"] == 2


def test_gaia_score_unknown_task_is_a_clear_error(gaia_files, tmp_path):
    metadata, _ = gaia_files
    bad = write_lines(tmp_path / "bad.jsonl", [{"task_id": "t1", "model_answer": "17"}, {"task_id": "zz", "model_answer": "x"}])
    done = run_cli("gaia", "score", "--submission", str(bad), "--metadata", str(metadata))
    assert done.returncode == 2
    assert "bad.jsonl:2: unknown task_id 'zz'" in done.stderr and "Traceback" not in done.stderr
