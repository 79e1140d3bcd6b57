"""`evalui verify export`: the approved problems with their reviews, pushed with
datasets.Dataset.push_to_hub to the project's local fake Hub (the real huggingface_hub client,
pointed at it through HF_ENDPOINT), read back from the committed parquet file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from fake_hub import FakeHub
from test_verification import SCORES, write_problems

from evalui.review import export as verification_export
from evalui.review import queue as queue
from evalui.errors import InputError

# Only the checks made before anything is sent are unit tests: a push starts an interpreter with datasets.

TOKEN = "hf_sentinel_token_never_printed_1234"


def export(data, repo: str, hub_url: str, *extra: str) -> subprocess.CompletedProcess:
    # A fresh interpreter: huggingface_hub and datasets read HF_ENDPOINT when first imported. hf_xet's
    # storage protocol is not something the fake Hub speaks, so uploads take the Hub's LFS route.
    env = {k: val for k, val in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    env.update(HF_ENDPOINT=hub_url, HF_TOKEN=TOKEN, HF_HUB_DISABLE_XET="1", HF_HOME=str(data.parent / "hf-home"))
    return subprocess.run([sys.executable, "-m", "evalui", "verify", "export", "--input", str(data), "--repo", repo,
                           *extra], capture_output=True, text=True, timeout=180, env=env)


def reviewed_file(tmp_path):
    data = write_problems(tmp_path, 4)
    queue.record_review(data, "gen-0000", SCORES, "approved", "<script>x</script>", "ana")
    queue.record_review(data, "gen-0000", {**SCORES, "clarity": 2}, "rejected", "unclear", "ben")
    queue.record_review(data, "gen-0000", SCORES, "approved", "settled", "lee", final=True)
    queue.record_review(data, "gen-0001", SCORES, "rejected", "", "ana")
    queue.record_review(data, "gen-0002", SCORES, "approved", "", "ben")
    return data


def test_export_pushes_the_approved_problems_with_every_review(tmp_path):
    data = reviewed_file(tmp_path)
    with FakeHub("team/aime-reviewed", writable=True) as hub:
        done = export(data, "team/aime-reviewed", hub.url)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["repo_id"] == "team/aime-reviewed" and summary["rows"] == 2
    assert TOKEN not in done.stdout + done.stderr
    assert hub.created and set(hub.tokens) == {f"Bearer {TOKEN}"}
    shards = [name for name in hub.files if name.endswith(".parquet")]
    assert len(shards) == 1 and shards[0].startswith("data/train-") and "README.md" in hub.files
    rows = pq.read_table(io.BytesIO(hub.files[shards[0]])).to_pylist()
    assert [r["problem_id"] for r in rows] == ["gen-0000", "gen-0002"]  # gen-0001 was rejected, gen-0003 unreviewed
    first = rows[0]
    assert first["answer"] == "0" and first["problem"].startswith("Problem 0")
    assert first["final_review"]["reviewer"] == "lee" and first["final_review"]["adjudicated"] is True
    assert [(r["reviewer"], r["status"], r["scores"]["clarity"]) for r in first["reviews"]] == \
        [("ana", "approved", 4), ("ben", "rejected", 2)]
    assert first["reviews"][0]["comments"] == "<script>x</script>"  # data, kept as it was written
    assert rows[1]["final_review"]["adjudicated"] is False and len(rows[1]["reviews"]) == 1


def test_a_refusing_hub_is_one_line_without_the_token(tmp_path):
    data = reviewed_file(tmp_path)
    with FakeHub("team/aime-reviewed", writable=False) as hub:
        done = export(data, "team/aime-reviewed", hub.url)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "could not push to team/aime-reviewed" in done.stderr and TOKEN not in done.stderr + done.stdout
    assert not hub.files


@pytest.mark.unit
@pytest.mark.parametrize("repo", ["not a repo", "a/b/c", "../escape", "", "x" * 200, "team/name.git"])
def test_bad_repository_names_are_refused_before_anything_is_sent(tmp_path, repo):
    data = reviewed_file(tmp_path)
    with pytest.raises(InputError, match="not a Hub dataset name"):
        verification_export.push_approved(data, repo, token=TOKEN)


@pytest.mark.unit
def test_nothing_approved_is_refused(tmp_path):
    data = write_problems(tmp_path, 2)
    with pytest.raises(InputError, match="no approved problems to export"):
        verification_export.push_approved(data, "team/empty", token=TOKEN)
