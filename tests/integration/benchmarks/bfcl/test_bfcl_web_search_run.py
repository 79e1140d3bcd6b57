"""BFCL web search end to end through the CLI, recorded then replayed offline.

`evalui bfcl run` on web_search_base and web_search_no_snippet against a scripted model that
searches, fetches a page (a local one, a redirect, one that is gone) and answers, gold for some,
wrong for others, one never stopping; the web is a local SerpAPI and page server, recorded with
``--web-record``. The same run again with ``--web-replay`` and the server stopped gets the same
requests and verdicts, and every verdict of both equals `bfcl evaluate`'s on the exported files,
in FC and prompt mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bfcl_official_cli import bfcl_evaluate, official_errors, official_verdicts
from bfcl_web_server import SERPAPI_KEY, FakeWeb
from peers import SENTINEL_KEY

from evalui.benchmarks.bfcl.agentic.web_record import recording_files, recording_hash
from support.bfcl_agentic_oracle import WebSearchOracle
from support.openai_peer import ScriptedPeer

CATEGORIES = ["web_search_base", "web_search_no_snippet"]
MODELS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gpt-4o-2024-11-20"}  # registered, OpenAI-style
LIMIT = 6
WRONG, ENDLESS = {"1", "4"}, {"2"}
PAGES = ("/page", "/latin", "/page", "/moved", "/gone")  # by question number; 2 never fetches
CLI_TIMEOUT_S = 900  # a bound that only catches a hang


def evalui_run(env: dict, peer, mode: str, *web_flags: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "evalui", "bfcl", "run", "--category", ",".join(CATEGORIES), "--limit", str(LIMIT),
         "--mode", mode, "--base-url", peer.base_url, "--model", MODELS[mode], "--api-key-env", "EVALUI_TEST_KEY",
         "--concurrency", "4", *web_flags],
        capture_output=True, text=True, timeout=CLI_TIMEOUT_S, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def verdicts(store, exp_id: str) -> dict[str, tuple]:
    return {s.sample_id: (s.correct, s.verdict.get("error_type"), s.verdict.get("official_error_type"))
            for s in store.samples(exp_id)}


def answers(result_file: Path) -> list[tuple[str, str]]:
    """What bfcl evaluate judges in an exported file: each entry's id and its result."""
    lines = [json.loads(line) for line in result_file.read_text().splitlines() if line.strip()]
    assert lines, result_file
    return [(line["id"], json.dumps(line["result"], sort_keys=True)) for line in lines]


def canonical(bodies: list[dict]) -> list[str]:
    return sorted(json.dumps(b, sort_keys=True) for b in bodies)


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_web_search_recorded_then_replayed_offline_equals_bfcl_evaluate(store, tmp_path, mode):
    recording = tmp_path / "web"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALUI_WEB", "EVALUI_BFCL_WEB", "OPENAI_"))}
    env.update(EVALUI_DATA_DIR=os.environ["EVALUI_DATA_DIR"], EVALUI_TEST_KEY=SENTINEL_KEY,
               SERPAPI_API_KEY=SERPAPI_KEY)
    with FakeWeb() as web:
        oracle = WebSearchOracle(CATEGORIES, [web.url(p) for p in PAGES], wrong=WRONG, endless=ENDLESS)
        with ScriptedPeer(lambda body, n: oracle.reply(body)) as peer:
            live_env = dict(env, EVALUI_SERPAPI_URL=web.url(""), EVALUI_WEB_ALLOW_HOSTS=f"127.0.0.1:{web.port}")
            recorded = evalui_run(live_env, peer, mode, "--web-search", "serpapi", "--web-record", str(recording))
            recorded_bodies = [r.body for r in peer.chat_requests()]
        asked_live = len(web.requests)
    assert asked_live and web.serpapi_queries and all(q["api_key"] == SERPAPI_KEY for q in web.serpapi_queries)
    assert any(r.startswith("/gone") for r in web.requests) and any(r.startswith("/moved") for r in web.requests)
    assert recording_files(recording) and SERPAPI_KEY not in "".join(p.read_text() for p in recording_files(recording))

    # The server is gone: the replay answers from the recording only.
    with ScriptedPeer(lambda body, n: oracle.reply(body)) as peer:
        replayed = evalui_run(env, peer, mode, "--web-replay", str(recording))
        replayed_bodies = [r.body for r in peer.chat_requests()]
    assert len(web.requests) == asked_live
    assert canonical(replayed_bodies) == canonical(recorded_bodies)  # the model saw the same web, step by step

    ours = verdicts(store, recorded["exp_id"])
    assert verdicts(store, replayed["exp_id"]) == ours
    assert len(ours) == LIMIT * len(CATEGORIES) and recorded["errors"] == 0
    for category in CATEGORIES:
        assert ours[f"{category}_0"][0] and ours[f"{category}_3"][0] and ours[f"{category}_5"][0]
        assert ours[f"{category}_1"][1] == ours[f"{category}_4"][1] == "answer_not_found"
        assert ours[f"{category}_2"][1] == "force_terminated"

    exported = {label: [Path(summary["out_dir"]) / f"BFCL_v4_{category}_result.json" for category in CATEGORIES]
                for label, summary in (("recorded", recorded), ("replayed", replayed))}
    # The replay exported the same answers, so bfcl evaluate's verdicts on one are its verdicts on both.
    assert [answers(path) for path in exported["replayed"]] == [answers(path) for path in exported["recorded"]]
    score_dir = bfcl_evaluate(tmp_path / "official", MODELS[mode], exported["recorded"])
    for category in CATEGORIES:
        ids = [i for i in ours if i.startswith(category + "_")]
        assert official_verdicts(score_dir, category, ids) == {i: ours[i][0] for i in ids}, category
        for entry_id, error_type in official_errors(score_dir, category).items():
            assert ours[entry_id][2] == error_type, entry_id
    for label, summary in (("recorded", recorded), ("replayed", replayed)):
        web_record = json.loads((Path(summary["out_dir"]) / "summary.json").read_text())["web"]
        assert web_record["web_recording_sha256"] == recording_hash(recording), label
    assert json.loads((Path(replayed["out_dir"]) / "summary.json").read_text())["web"]["web_mode"] == "replay"
