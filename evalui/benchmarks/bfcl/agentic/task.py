"""The agentic task for the run engine: memory prereqs once per run and backend, then the questions.

A memory question loads its scenario's memory snapshot, which the scenario's prereq conversations
write. The first question of a scenario (per category, hence per backend) plays that chain, in
order, and the others wait for it; the chain's end is marked on disk, so a resumed run or a second
worker on the same run folder loads the snapshot instead of playing the chain again (a file lock
keeps two workers from playing it at once). Snapshots live in the run's folder, never shared
between runs. Prereq conversations are stored beside them (``prereq_results/``), never scored.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from evalui.benchmarks.bfcl.agentic.backends import AgenticBackend, new_backend
from evalui.benchmarks.bfcl.agentic.data import prereq_chain, scenario_of
from evalui.benchmarks.bfcl.agentic.play import play_agentic
from evalui.benchmarks.bfcl.data import entries_by_id
from evalui.benchmarks.bfcl.isolated import IsolatedMemory
from evalui.benchmarks.bfcl.multi_turn.play import model_name_of
from evalui.benchmarks.bfcl.scoring.agentic import score_agentic
from evalui.benchmarks.bfcl.scoring.single_turn import BfclVerdict
from evalui.store.run_store import Sample

PREREQ_LOCK_WAIT_S = 6 * 3600.0  # another worker playing the chain: a bound that only catches a hang


def prereq_results_path(snapshot_root: Path, category: str) -> Path:
    return snapshot_root / "prereq_results" / f"{category}.jsonl"


def judge_agentic(sample: Sample, response: dict, mode: str) -> tuple[object, bool, dict]:
    """The official agentic checker's verdict on a stored memory or web-search conversation: a pure
    check of its final answer, so a rescore needs neither the backends nor the snapshots."""
    entry = entries_by_id(sample.group)[sample.sample_id]
    result = response.get("turns") if isinstance(response, dict) else None
    exceeded = response.get("limit_exceeded") if isinstance(response, dict) else None
    if exceeded:
        verdict = BfclVerdict(False, str(exceeded), "The model's reply went past evalui's limits for one step or "
                              "one sample, and the conversation was stopped there.", f"evalui:{exceeded}")
        return result, False, verdict.as_dict()
    verdict = score_agentic(entry.id, entry.category, result, entry.possible_answer, mode,
                            force_terminated=bool(isinstance(response, dict) and response.get("force_terminated")))
    return result, verdict.correct, verdict.as_dict()


@dataclass
class AgenticTask:
    mode: str = "fc"
    snapshot_root: Path = field(default_factory=lambda: Path("memory"))
    web_options: object = None
    benchmark: str = "bfcl"
    pool: object = None  # the run's call workers, where memory backends live; None: the shared ones

    def __post_init__(self):
        self._chains: dict[tuple[str, str], asyncio.Lock] = {}

    def _entry(self, sample: Sample):
        return entries_by_id(sample.group)[sample.sample_id]

    def build_request(self, sample: Sample) -> dict:
        entry = self._entry(sample)
        return {"category": sample.group, "id": entry.id, "mode": self.mode, "scenario": scenario_of(entry)}

    def call(self, client, sample: Sample, request: dict):
        return client.submit(self.acall(client, sample, request)).result()

    async def acall(self, client, sample: Sample, request: dict):
        entry = self._entry(sample)
        if entry.category.startswith("memory"):
            await self._prereqs_played(client, entry.category, scenario_of(entry))
        backend = await self._backend(entry, model_name_of(client))
        try:
            return await play_agentic(client, entry, self.mode, backend)
        finally:
            await asyncio.to_thread(backend.close)

    async def _backend(self, entry, model_name: str):
        """Memory backends in a call worker (a model's calls grow their text); web search here,
        bounded by its sources' deadlines."""
        if entry.category.startswith("memory"):
            backend = IsolatedMemory(entry, self.snapshot_root, self.pool, model_name)
            await asyncio.to_thread(backend.open)
            return backend
        instance = await asyncio.to_thread(new_backend, entry, self.snapshot_root, self.web_options)
        return AgenticBackend(entry, instance, model_name)

    def _done_marker(self, category: str, scenario: str) -> Path:
        return self.snapshot_root / "prereqs_done" / f"{category}-{scenario}-{self.mode}"

    async def _prereqs_played(self, client, category: str, scenario: str) -> None:
        lock = self._chains.setdefault((category, scenario), asyncio.Lock())
        async with lock:  # the other questions of the scenario wait here for the first one's chain
            marker = self._done_marker(category, scenario)
            if marker.exists():
                return
            from filelock import FileLock

            marker.parent.mkdir(parents=True, exist_ok=True)
            file_lock = FileLock(str(marker) + ".lock", thread_local=False)
            await asyncio.to_thread(file_lock.acquire, timeout=PREREQ_LOCK_WAIT_S)
            try:
                if not marker.exists():  # another worker may have played it while this one waited
                    await self._play_chain(client, category, scenario)
                    marker.write_text("done\n", encoding="utf-8")
            finally:
                file_lock.release()

    async def _play_chain(self, client, category: str, scenario: str) -> None:
        results = []
        for prereq in prereq_chain(category, scenario):
            backend = await self._backend(prereq, model_name_of(client))
            try:
                played = await play_agentic(client, prereq, self.mode, backend)
                await asyncio.to_thread(backend.flush)  # what the questions load
            finally:
                await asyncio.to_thread(backend.close)
            results.append({"id": prereq.id, "result": played.output["turns"]})
        path = prereq_results_path(self.snapshot_root, category)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in results)

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        return judge_agentic(sample, response, self.mode)

    async def ajudge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        return await asyncio.to_thread(self.judge, sample, response)
