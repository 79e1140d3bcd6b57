"""An installation that skipped `make`: its first `evalui bfcl run` works out bfcl-eval's registry
snapshot and category sizes while it loads, says so on stderr, and keeps them; the next run finds
them and says nothing (issue 41: the install caches outside the first run's run phase)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

SAID = "once for this installation"


def test_a_run_without_the_install_step_builds_the_caches_while_it_loads_and_says_so(tmp_path):
    oracle = BfclOracle(["simple_python"])
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "EVALUI_DATA_DIR": str(tmp_path / "data"),
           "OPENAI_API_KEY": "sk-test"}
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        def run(exp_id: str) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python",
                                   "--limit", "2", "--base-url", peer.base_url, "--model", "m", "--exp-id", exp_id],
                                  env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)

        first, second = run("first"), run("second")
    for done in (first, second):
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.strip().splitlines()[-1])["correct"] == 2
    assert SAID in first.stderr and SAID not in second.stderr
    kept = sorted(path.name.rsplit("-", 1)[0] for path in (tmp_path / "cache" / "evalui").glob("*.json"))
    assert kept == ["bfcl-category-sizes", "bfcl-model-registry"]
