"""``evalui bfcl run`` against an endpoint that dies mid-run and comes back: the progress bar says
the run is paused, and the run ends with every sample judged, none wrong and no error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import replace

from waiting import HANG_S, wait_for

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

SAMPLES = 8


def test_the_cli_bar_says_paused_and_the_run_finishes_after_the_endpoint_returns(tmp_path):
    oracle = BfclOracle(["simple_python"])
    stopped = threading.Event()
    answered = []

    def script(body, n):
        if body.get("max_tokens") != 1:  # not the endpoint check
            answered.append(n)
            if len(answered) > 3:
                stopped.wait(HANG_S)
        reply = oracle.gold_reply(body)
        return replace(reply, headers={**reply.headers, "connection": "close"})  # nothing outlives a stop

    first = ScriptedPeer(script).start()
    port = first._server.server_address[1]
    second = None
    errors: list[str] = []
    command = [sys.executable, "-m", "evalui", "bfcl", "run", "--base-url", first.base_url, "--model", "m",
               "--category", "simple_python", "--limit", str(SAMPLES), "--concurrency", "2", "--exp-id", "cli-outage"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "EVALUI_DATA_DIR": str(tmp_path / "data")}, stdin=subprocess.DEVNULL)

    def read_errors():
        for chunk in iter(lambda: process.stderr.read(256), ""):
            errors.append(chunk)

    reader = threading.Thread(target=read_errors, daemon=True)
    reader.start()
    try:
        wait_for(lambda: len(answered) > 3, "the run never asked for its fourth sample")
        first.stop()  # the port now refuses connections
        stopped.set()
        wait_for(lambda: "paused=endpoint down, probing" in "".join(errors), "the bar never said the run was paused")
        second = ScriptedPeer(script, port=port).start()
        out, _ = process.communicate(timeout=HANG_S)
    finally:
        stopped.set()
        if process.poll() is None:
            process.kill()
        (second or first).stop()
    reader.join(HANG_S)
    assert process.returncode == 0, "".join(errors)[-2000:]
    summary = json.loads(out.splitlines()[-1])
    assert summary["total"] == SAMPLES and summary["correct"] == SAMPLES and summary["errors"] == 0, summary
