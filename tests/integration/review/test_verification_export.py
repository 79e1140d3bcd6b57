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
from fake_hub import FakeHub
from unit.review.test_verification_export import TOKEN, reviewed_file  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.review import queue as queue


def export(data, repo: str, hub_url: str, *extra: str) -> subprocess.CompletedProcess:
    # A fresh interpreter: huggingface_hub and datasets read HF_ENDPOINT when first imported. hf_xet's
    # storage protocol is not something the fake Hub speaks, so uploads take the Hub's LFS route.
    env = {k: val for k, val in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    env.update(HF_ENDPOINT=hub_url, HF_TOKEN=TOKEN, HF_HUB_DISABLE_XET="1", HF_HOME=str(data.parent / "hf-home"))
    return subprocess.run([sys.executable, "-m", "evalui", "verify", "export", "--input", str(data), "--repo", repo,
                           *extra], capture_output=True, text=True, timeout=180, env=env)


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
