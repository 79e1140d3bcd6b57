"""Running the official ``bfcl evaluate`` on evalui's exported result files, for the tests."""

from __future__ import annotations

import atexit
import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from waiting import finishes

_one_command_at_a_time = threading.Lock()


@functools.cache
def _warm_server() -> subprocess.Popen:
    """tests/official_bfcl_server.py, started once per test process and ended with it."""
    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("official_bfcl_server.py"))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env=dict(os.environ, OPENAI_API_KEY="sk-unused"))
    atexit.register(_stop, server)
    ready = finishes(server.stdout.readline, "the warm bfcl server starting")
    assert json.loads(ready or "{}").get("ready"), "the warm bfcl server did not start"
    return server


def _stop(server: subprocess.Popen) -> None:
    server.stdin.close()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()


def run_bfcl(args: list[str], *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``bfcl <args>``: bfcl-eval's console script with this environment and working folder, its
    output captured, in a fork of a warm interpreter (tests/official_bfcl_server.py)."""
    with _one_command_at_a_time, tempfile.TemporaryDirectory(prefix="bfcl-command-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        server = _warm_server()
        server.stdin.write(json.dumps({"args": args, "env": env, "cwd": str(cwd), "stdout": str(out),
                                       "stderr": str(err)}) + "\n")
        server.stdin.flush()
        reply = finishes(server.stdout.readline, f"bfcl {' '.join(args)}", within_s=900)
        assert reply, "the warm bfcl server ended"
        return subprocess.CompletedProcess(["bfcl", *args], json.loads(reply)["returncode"], out.read_text(),
                                           err.read_text())


def bfcl_evaluate(root: Path, model: str, result_files: list[Path], categories: str = "all") -> Path:
    """Copy the files to ``root/result/<model>/`` (where the CLI looks), run ``bfcl evaluate
    --partial-eval`` under ``BFCL_PROJECT_ROOT=root`` and return its score folder."""
    target = root / "result" / model.replace("/", "_")
    target.mkdir(parents=True, exist_ok=True)
    for path in result_files:
        (target / Path(path).name).write_text(Path(path).read_text())
    env = dict(os.environ, BFCL_PROJECT_ROOT=str(root), OPENAI_API_KEY="sk-unused")
    env.pop("WANDB_BFCL_PROJECT", None)
    done = run_bfcl(["evaluate", "--model", model, "--test-category", categories, "--partial-eval"], env=env, cwd=root)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return root / "score"


def official_verdicts(score_dir: Path, category: str, ids: list[str]) -> dict[str, bool]:
    """Per id, whether ``bfcl evaluate`` accepted it (its score file lists the failures only)."""
    path = next(score_dir.rglob(f"BFCL_v4_{category}_score.json"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    failed = {line["id"] for line in lines[1:]}
    return {entry_id: entry_id not in failed for entry_id in ids}


def official_errors(score_dir: Path, category: str) -> dict[str, str]:
    path = next(score_dir.rglob(f"BFCL_v4_{category}_score.json"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {line["id"]: line["error"]["error_type"] if isinstance(line.get("error"), dict) else line.get("error_type")
            for line in lines[1:]}
