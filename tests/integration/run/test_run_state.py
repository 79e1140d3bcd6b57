"""Run state across processes: SIGTERM and Ctrl-C stop a CLI run during its requests, a killed run
shows as interrupted, a running run cannot be deleted, and stores from the first wave still open."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from peers import SENTINEL_KEY, Held
from waiting import HANG_S, wait_for

from evalui.store.run_store import RunBusy, RunStore
from support.openai_peer import ScriptedPeer


def start_cli_run(peer, data_dir, exp_id, extra=()):
    env = {**os.environ, "EVALUI_DATA_DIR": str(data_dir), "OPENAI_API_KEY": SENTINEL_KEY}
    return subprocess.Popen(
        [sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "6",
         "--mode", "fc", "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id, "--concurrency", "2",
         "--timeout", "3600", *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ends(process, what: str) -> None:
    try:
        process.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"{what}: the run still went {HANG_S:g} s later") from None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_a_cli_run_during_its_requests(tmp_path, sig):
    # The endpoint holds both requests until the test ends: a run that waited for them would never end.
    with Held() as held, ScriptedPeer(held) as peer:
        process = start_cli_run(peer, tmp_path, "sig-1")
        wait_for(lambda: len(peer.chat_requests()) >= 2 or process.poll() is not None, "the run never asked the endpoint")
        assert process.poll() is None, process.communicate()[1][-3000:]
        process.send_signal(sig)
        ends(process, f"signal {sig.name}")
        asked = len(peer.chat_requests())
    assert process.returncode == 130, process.stderr.read()
    assert asked == 2  # nothing was asked after the signal
    store = RunStore(tmp_path / "evalui.sqlite")
    assert store.experiment("sig-1")["status"] == "cancelled"
    assert store.progress("sig-1")["judged"] == 0
    store.close()


def test_a_killed_run_is_interrupted_and_only_then_deletable(tmp_path):
    with Held() as held, ScriptedPeer(held) as peer:
        process = start_cli_run(peer, tmp_path, "kill-1")
        wait_for(lambda: len(peer.chat_requests()) >= 2 or process.poll() is not None, "the run never asked the endpoint")
        store = RunStore(tmp_path / "evalui.sqlite")
        assert store.experiment("kill-1")["status"] == "running"
        with pytest.raises(RunBusy, match="running"):
            store.delete_experiment("kill-1")
        process.kill()
        ends(process, "kill -9")
    experiment = store.experiment("kill-1")
    assert experiment["status"] == "interrupted" and experiment["stored_status"] == "running"
    store.delete_experiment("kill-1")
    assert store.experiment("kill-1") is None
    store.close()


def test_the_cli_refuses_a_private_base_url_in_shared_mode(tmp_path):
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path), "EVALUI_SHARED": "1"}
    env.pop("EVALUI_ALLOWED_HOSTS", None)
    done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "1",
                           "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "private" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
