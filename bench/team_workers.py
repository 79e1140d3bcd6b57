"""Team scale: one worker against two sharing a run on PostgreSQL (printed, never asserted).

400 simple_python samples at concurrency 4 per worker against a 100 ms endpoint, on a throwaway
PostgreSQL cluster (Debian's binaries, as the tests start it), one worker, then two with the same
exp_id, in one run. The figure is the run phase, from the run's first request to its last verdict:
each process also spends seconds importing bfcl-eval, which does not depend on the workers.
Target: two workers at most 0.75 x one worker's time, with 400 requests each time.

Run: .venv/bin/python bench/team_workers.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from pg_server import PostgresServer  # noqa: E402  (the tests' throwaway cluster)
from test_workers import answering_after, finish, start_worker, stopped_at_exit  # noqa: E402

from evalui.store.run_store import RunStore  # noqa: E402
from support.openai_peer import ScriptedPeer  # noqa: E402

COUNT, CONCURRENCY, LATENCY_S = 400, 4, 0.1


def run_phase_s(store: RunStore, peer, exp_id: str, first_request: int) -> float:
    """From the run's first request to its last verdict: the wall time of the run itself, without
    the seconds each process spends starting (importing bfcl-eval), which do not depend on workers."""
    asked = [r.received_at for r in peer.chat_requests()[first_request:]]
    return max(s.updated_at for s in store.samples(exp_id)) - min(asked)


def main() -> None:
    server = PostgresServer().start()
    try:
        url = server.new_database()
        store = RunStore(url=url)
        with tempfile.TemporaryDirectory() as folder, ScriptedPeer(answering_after(LATENCY_S)) as peer, \
                stopped_at_exit() as started:
            folder = Path(folder)
            finish(*started([start_worker(peer, folder / "one", url, "one", COUNT, CONCURRENCY)]), timeout=600)
            asked_one = len(peer.chat_requests())
            one = run_phase_s(store, peer, "one", 0)
            for worker in started([start_worker(peer, folder / "two", url, "two", COUNT, CONCURRENCY) for _ in range(2)]):
                finish(worker, timeout=600)
            asked_two = len(peer.chat_requests()) - asked_one
            two = run_phase_s(store, peer, "two", asked_one)
        store.close()
    finally:
        server.stop()
    ideal = COUNT * LATENCY_S / CONCURRENCY
    print(f"{COUNT} samples, C={CONCURRENCY} per worker, {LATENCY_S * 1000:.0f} ms, PostgreSQL")
    print(f"  one worker    {one:6.2f} s run phase   {asked_one} requests   (ideal {ideal:.1f} s)")
    print(f"  two workers   {two:6.2f} s run phase   {asked_two} requests   (ideal {ideal / 2:.1f} s)")
    print(f"  ratio         {two / one:6.2f} x one worker   (target <= 0.75)")


if __name__ == "__main__":
    main()
