"""Hostile input files get one line naming the file (and line): from the CLI and the loaders the page uses."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from unit.benchmarks.gaia.test_bad_files import DEEP, GOOD_LINE, bad_files  # noqa: F401  (shared with the unit layer; fixtures are used by name)


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def assert_one_line_naming(done, path: Path, message: str):
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"evalui: error: {path}") and message in lines[0]


@pytest.fixture()
def gaia_metadata(tmp_path):
    path = tmp_path / "metadata.jsonl"
    path.write_text(json.dumps({"task_id": "t1", "Question": "q", "Final answer": "17", "Level": 1}) + "\n"
                    + json.dumps({"task_id": "t2", "Question": "q", "Final answer": "x", "Level": 2}) + "\n")
    return path


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_bfcl_score_bad_results_file(tmp_path, kind):
    path, message = bad_files(tmp_path, "BFCL_v4_simple_python_result.json")[kind]
    done = run_cli("bfcl", "score", "--category", "simple_python", "--results", str(path))
    assert_one_line_naming(done, path, message)


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_gaia_score_bad_submission_and_bad_metadata(tmp_path, gaia_metadata, kind):
    path, message = bad_files(tmp_path / "files", "submission.jsonl")[kind]
    done = run_cli("gaia", "score", "--submission", str(path), "--metadata", str(gaia_metadata))
    assert_one_line_naming(done, path, message)
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_LINE)
    metadata, message = bad_files(tmp_path / "meta", "metadata.jsonl")[kind]
    done = run_cli("gaia", "score", "--submission", str(good), "--metadata", str(metadata))
    assert_one_line_naming(done, metadata, message)


def test_gaia_score_parquet_that_is_not_parquet(tmp_path, gaia_metadata):
    fake = tmp_path / "metadata.parquet"
    fake.write_bytes(gaia_metadata.read_bytes())
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(fake))
    assert_one_line_naming(done, fake, "not a parquet file")
    broken = tmp_path / "broken" / "metadata.parquet"
    broken.parent.mkdir()
    broken.write_bytes(b"PAR1" + os.urandom(4096) + b"PAR1")
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(broken))
    assert_one_line_naming(done, broken, "cannot read parquet (")


@pytest.mark.parametrize("kind", ["binary", "latin1", "deep"])
def test_verify_summary_bad_input(tmp_path, kind):
    # The verification panel has its own reader (evalui/review/uploads.py), worded its own way.
    path, _ = bad_files(tmp_path, "aime_generated_1.json")[kind]
    done = run_cli("verify", "summary", "--input", str(path))
    assert_one_line_naming(done, path, {"binary": "a binary file", "latin1": "not UTF-8 text", "deep": "nested"}[kind])


def test_input_size_limit_is_configurable(tmp_path, gaia_metadata):
    submission = tmp_path / "submission.jsonl"
    submission.write_text(GOOD_LINE * 2000)  # about 80 KB
    done = run_cli("gaia", "score", "--submission", str(submission), "--metadata", str(gaia_metadata),
                   env={"EVALUI_MAX_INPUT_MB": "0.05"})
    assert_one_line_naming(done, submission, "the file is 0.1 MB, over the 0.05 MB limit for input files "
                                             "(set EVALUI_MAX_INPUT_MB to change it)")
    done = run_cli("gaia", "score", "--submission", str(gaia_metadata), "--metadata", str(gaia_metadata))
    assert done.returncode == 0, done.stderr  # 50 MB by default
