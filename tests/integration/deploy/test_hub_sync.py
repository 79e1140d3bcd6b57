"""A Space keeps its data: the store, the run folders and the reviews go to a private dataset on the
(fake, local) Hub through the real huggingface_hub, and a restart on a wiped disk restores them.
Keys never reach the Hub."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_hub import FakeHub
from peers import SENTINEL_KEY
from waiting import wait_for

from evalui.deploy import hub_sync
from evalui.deploy.hub_sync import STORE_IN_REPO, HubSync, start_from_env
from evalui.review.reviews import make_review, save_review, verifications_path
from evalui.store.run_store import RunStore
from support.openai_peer import ScriptedPeer, completion

REPO = "team/evalui-space-data"


HUB_TOKEN = "hf_sentinel_token_5c2e8d1a7b"


@pytest.fixture()
def hub(monkeypatch):
    import huggingface_hub.constants

    # The fake Hub speaks the LFS protocol, not Xet: huggingface_hub falls back to LFS when Xet is
    # off (the real Hub takes either). The CLI child reads the variable, this process the constant.
    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    with FakeHub(REPO, writable=True) as live:
        monkeypatch.setenv("HF_ENDPOINT", live.url)
        monkeypatch.setenv("EVALUI_HUB_SYNC", REPO)
        monkeypatch.setenv("EVALUI_HUB_TOKEN", HUB_TOKEN)
        monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
        monkeypatch.delenv("EVALUI_DATABASE_URL", raising=False)
        yield live


def assert_no_secret_on(hub: FakeHub) -> None:
    assert hub.files
    for name, data in hub.files.items():
        assert SENTINEL_KEY.encode() not in data and HUB_TOKEN.encode() not in data, name


SCORES = {"correctness": 5, "clarity": 4, "difficulty_match": 3, "completeness": 4}


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_restart_restores_every_run_and_review_from_the_hub(tmp_path, hub, monkeypatch):
    before = tmp_path / "before"
    # A real CLI run, with the sync variables set: its end syncs the store and its folder at once.
    with ScriptedPeer(lambda body, n: completion("[]")) as peer:
        env = {**os.environ, "EVALUI_DATA_DIR": str(before)}
        done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python",
                               "--limit", "5", "--mode", "fc", "--base-url", peer.base_url, "--model", "m",
                               "--exp-id", "space-1"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert STORE_IN_REPO in hub.files and "runs/space-1/summary.json" in hub.files and hub.private is True
    assert any(token == f"Bearer {HUB_TOKEN}" for token in hub.tokens)

    # The dashboard: restores (nothing missing yet), then syncs every 0.2 s.
    monkeypatch.setenv("EVALUI_DATA_DIR", str(before))
    monkeypatch.setenv("EVALUI_HUB_SYNC_MINUTES", str(0.2 / 60))
    sync = start_from_env()
    # A second run, still in the WAL of an open store (no checkpoint): only a backup copies it.
    store = RunStore()
    store.create_or_get_experiment("space-2", "bfcl", "m", "h", {"options": {}})
    store.add_samples("space-2", [("a", "simple_python", {}), ("b", "simple_python", {})])
    store.record_judgement("space-2", "a", prediction="x", correct=True, verdict={})
    assert (before / "evalui.sqlite-wal").stat().st_size > 0
    generated = before / "runs" / "aime" / "aime_generated_1.json"
    generated.parent.mkdir(parents=True)
    generated.write_text(json.dumps([{"problem_id": "p1", "problem": "What is 1+1?", "answer": 2}]))
    save_review(generated, make_review("p1", SCORES, "approved", "clear", "alice"))
    review_name = verifications_path(generated).relative_to(before).as_posix()
    wait_for(lambda: review_name in hub.files and b"space-2" in hub.files[STORE_IN_REPO],
             "the periodic sync never uploaded the review and the second run")
    sync.stop()
    hub_sync._active = None
    expected_runs = {e["exp_id"]: store.progress(e["exp_id"]) for e in store.experiments()}
    store.close()
    assert set(expected_runs) == {"space-1", "space-2"}

    # The Space restarts on a wiped disk.
    after = tmp_path / "after"
    monkeypatch.setenv("EVALUI_DATA_DIR", str(after))
    restarted = start_from_env()
    restarted.stop(final_sync=False)
    hub_sync._active = None
    restored = RunStore()
    assert {e["exp_id"]: restored.progress(e["exp_id"]) for e in restored.experiments()} == expected_runs
    assert restored.experiment("space-1")["status"] == "finished"
    restored.close()
    kept = {name: data for name, data in files_of(before).items()
            if name.split("/")[0] in ("runs", "uploads") and not name.endswith(".lock")}  # a save's lock is no data
    back = {name: data for name, data in files_of(after).items() if name.split("/")[0] in ("runs", "uploads")}
    assert back == kept and review_name in back
    assert json.loads(back[review_name])["p1"]["reviews"][0]["reviewer"] == "alice"
    assert_no_secret_on(hub)


def test_a_file_that_holds_a_key_is_never_uploaded(tmp_path, hub):
    leak = tmp_path / "runs" / "leaky" / "notes.txt"
    leak.parent.mkdir(parents=True)
    leak.write_text(f"someone pasted {SENTINEL_KEY} here")
    (leak.parent / "fine.txt").write_text("nothing secret")
    sync = HubSync(REPO, HUB_TOKEN, tmp_path, None, hub.url)
    done = sync.sync()
    assert done["withheld"] == ["runs/leaky/notes.txt"]
    assert "runs/leaky/fine.txt" in hub.files and "runs/leaky/notes.txt" not in hub.files
    assert_no_secret_on(hub)


def test_changed_files_are_committed_again_and_deleted_ones_deleted(tmp_path, hub):
    folder = tmp_path / "runs" / "r1"
    folder.mkdir(parents=True)
    (folder / "a.json").write_text("1")
    (folder / "b.json").write_text("2")
    sync = HubSync(REPO, HUB_TOKEN, tmp_path, None, hub.url)
    assert sync.sync()["uploaded"] == 2
    assert sync.sync() == {"uploaded": 0, "deleted": 0, "withheld": []}  # nothing changed: no commit
    commits = len(hub.commits)
    (folder / "a.json").write_text("3")
    (folder / "b.json").unlink()
    assert sync.sync() == {"uploaded": 1, "deleted": 1, "withheld": []}
    assert hub.files["runs/r1/a.json"] == b"3" and "runs/r1/b.json" not in hub.files
    assert len(hub.commits) == commits + 1
