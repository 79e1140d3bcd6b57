"""bfcl-eval's decoder takes turns across threads (CPython 3.11's ast conversion shares its depth
count between threads), and a process forked while another thread decodes, as a run's judging
child is, still decodes."""

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
