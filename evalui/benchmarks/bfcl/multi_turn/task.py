"""The multi-turn task for the run engine: play the conversation, judge it with the official checker."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from evalui.benchmarks.bfcl.data import entry_of
from evalui.benchmarks.bfcl.isolated import score_isolated
from evalui.benchmarks.bfcl.multi_turn.data import checker_entry
from evalui.benchmarks.bfcl.multi_turn.play import play, stopped_message
from evalui.benchmarks.bfcl.scoring.multi_turn import MultiTurnVerdict
from evalui.store.run_store import Sample


def judge_multi_turn(sample: Sample, response: dict, mode: str, pool=None) -> tuple[object, bool, dict]:
    """The official multi-turn checker's verdict on a stored conversation, run in call workers
    (``pool``: the run's own; None: the process's shared ones, as a rescore uses)."""
    entry = entry_of(sample.group, sample.sample_id)
    result = response.get("turns") if isinstance(response, dict) else None
    exceeded = response.get("limit_exceeded") if isinstance(response, dict) else None
    if exceeded:  # the conversation was stopped at a flood: nothing of it is run again
        verdict = MultiTurnVerdict(False, str(exceeded), stopped_message(str(exceeded)), f"evalui:{exceeded}").as_dict()
        return result, False, verdict
    verdict = score_isolated(checker_entry(entry), entry.possible_answer, result, mode, pool=pool)
    if isinstance(response, dict) and response.get("force_terminated"):
        verdict["force_terminated"] = True
    return result, verdict["correct"], verdict


@dataclass
class MultiTurnTask:
    mode: str = "fc"
    benchmark: str = "bfcl"
    pool: object = None  # the run's own call workers; None: the process's shared ones

    def _entry(self, sample: Sample):
        return entry_of(sample.group, sample.sample_id)

    def build_request(self, sample: Sample) -> dict:
        # The conversation is built as it goes; every step's messages are kept in the trajectory.
        entry = self._entry(sample)
        return {"category": sample.group, "id": entry.id, "mode": self.mode, "turns": len(entry.question)}

    def call(self, client, sample: Sample, request: dict):
        return client.submit(self.acall(client, sample, request)).result()

    async def acall(self, client, sample: Sample, request: dict):
        return await play(client, self._entry(sample), self.mode, pool=self.pool)

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        return judge_multi_turn(sample, response, self.mode, pool=self.pool)

    async def ajudge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        # The check runs in a worker under a deadline; the loop that plays other samples never waits on it.
        return await asyncio.to_thread(self.judge, sample, response)
