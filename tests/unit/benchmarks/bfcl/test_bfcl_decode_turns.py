"""bfcl-eval's decoder, and evalui's own parses of model text and gold calls, take turns across
threads (CPython 3.11's ast conversion shares its depth count between threads), and a process
forked while another thread decodes, as a run's judging child is, still decodes."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from evalui.benchmarks.bfcl.scoring import official
from evalui.run.judge_pool import JudgePool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the judging child is forked")


def decode_python(text: str) -> list:
    """Module-level, so that a job naming it pickles."""
    bfcl = official.load_official()
    return bfcl.decode_prompting(text, bfcl.return_format.PYTHON, False)


def test_decodes_take_turns():
    bfcl = official.load_official()
    seen: list = []

    def decode_while_held() -> None:
        seen.append(decode_python("[cd(folder='x')]"))

    with official._PARSING:
        other = threading.Thread(target=decode_while_held)
        other.start()
        other.join(0.3)
        assert other.is_alive() and not seen  # waits for the decode under way
    other.join(10)
    assert seen == [[{"cd": {"folder": "x"}}]]
    assert bfcl.decode_prompting("[pwd()]", bfcl.return_format.PYTHON, False) == [{"pwd": {}}]


@pytest.mark.parametrize("parse", ["guard", "step", "gold"])
def test_evaluis_own_parses_wait_for_a_decode_under_way(parse):
    from evalui.benchmarks.bfcl.calls import gold_call_text
    from evalui.benchmarks.bfcl.scoring.multi_turn import decode_step
    from evalui.benchmarks.bfcl.scoring.safe_calls import guard_python_calls

    official.load_official()
    work = {"guard": lambda: guard_python_calls("[cd(folder='x')]"),
            "step": lambda: [call.name for call in decode_step("[cd(folder='x')]", "prompt", frozenset({"cd"}))],
            "gold": lambda: gold_call_text("cd(folder='x')")}[parse]
    seen: list = []
    with official._PARSING:  # a decode on another thread
        other = threading.Thread(target=lambda: seen.append(work()))
        other.start()
        other.join(0.3)
        assert other.is_alive() and not seen
    other.join(10)
    assert seen == [{"guard": "[cd(folder='x')]", "step": ["cd"], "gold": 'cd(folder="x")'}[parse]]


def test_a_child_forked_during_a_decode_can_decode():
    official.load_official()
    with official._PARSING:  # another thread's decode is under way when the run forks its child
        pool = JudgePool.start()
    assert pool is not None
    outcome: dict = {}

    async def judge() -> None:
        pool.submit((decode_python, ("[ls(a=1)]",)), lambda result: outcome.setdefault("result", result))
        await pool.drain()

    runner = threading.Thread(target=lambda: asyncio.run(judge()), daemon=True)
    try:
        runner.start()
        runner.join(30)
        assert "result" in outcome, "the child waited for a lock its parent held at the fork"
        done, value, _ = outcome["result"]
        assert done and value == [{"ls": {"a": 1}}]
        assert not pool.broken  # decoded in the child, not judged again here
    finally:
        pool.close()
