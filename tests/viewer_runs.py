"""Two stored BFCL runs for the viewer's tests, asked of scripted peers: 'base' answers all 6
simple_python samples right; 'cand' answers #1 wrong, #2 with hostile text (HOSTILE) and fails #3
with HTTP 500 (no retry)."""

from __future__ import annotations

from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion, error

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


def store_two_runs(store, limit: int = 6) -> None:
    oracle = BfclOracle(["simple_python"])

    def candidate(body, n):
        index = int(oracle.entry_for(body).id.rsplit("_", 1)[-1])
        return {1: lambda: oracle.wrong_reply(body), 2: lambda: completion(HOSTILE),
                3: lambda: error(500, "always broken")}.get(index, lambda: oracle.gold_reply(body))()

    for name, script in (("base", lambda body, n: oracle.gold_reply(body)), ("cand", candidate)):
        with ScriptedPeer(script) as peer:
            settings = settings_for(peer, max_retries=0)
            options = BfclOptions(categories=["simple_python"], limit=limit, mode="fc")
            lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=name), settings)
