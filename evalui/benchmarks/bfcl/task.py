"""The BFCL task for the run engine: build the request, call the model, judge with the core."""

from __future__ import annotations

from dataclasses import dataclass

from evalui.benchmarks.bfcl.data import entry_of, load_category
from evalui.benchmarks.bfcl.request import build_request, prepare_requests, result_from_response
from evalui.benchmarks.bfcl.scoring.format_sensitivity import configurations
from evalui.benchmarks.bfcl.scoring.format_sensitivity import score as score_format_sensitivity
from evalui.benchmarks.bfcl.scoring.single_turn import FORMAT_SENSITIVITY_CATEGORIES, score_entry
from evalui.core.benchmark import SampleSpec
from evalui.store.run_store import Sample

BENCHMARK = "bfcl"


def sample_specs(categories: list[str], limit: int | None) -> list[SampleSpec]:
    """(sample_id, category, payload) for the first ``limit`` entries of each category."""
    specs = []
    for category in categories:
        entries = load_category(category)
        if limit and category in FORMAT_SENSITIVITY_CATEGORIES:  # the first ``limit`` entries, in every configuration
            limit_here = limit * len(configurations())
        else:
            limit_here = limit
        for entry in entries[: limit_here or None]:
            specs.append(SampleSpec(entry.id, category, {"category": category}))
    return specs


@dataclass
class BfclTask:
    mode: str = "fc"
    benchmark: str = BENCHMARK

    def _entry(self, sample: Sample):
        return entry_of(sample.group, sample.sample_id)

    def prepare(self, samples: list[Sample]) -> None:
        prepare_requests((self._entry(s) for s in samples if s.stage == "init"), self.mode)

    def fixed_request(self, sample: Sample) -> bool:
        return True  # one call, whose request is the entry's

    def build_request(self, sample: Sample) -> dict:
        return build_request(self._entry(sample), self.mode)

    def call(self, client, sample: Sample, request: dict):
        return client.chat(request["messages"], tools=request.get("tools"), extra_body=request.get("extra_body"))

    async def acall(self, client, sample: Sample, request: dict):
        # The same call as a coroutine on the client's loop: no thread waits per request.
        return await client.achat(request["messages"], tools=request.get("tools"), extra_body=request.get("extra_body"))

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        return judge_single_turn(sample, response, self.mode)

    def judge_job(self, sample: Sample, response: dict):
        # Pure: the checker reads the entry and the reply only, so the run may judge in its child process.
        return judge_entry, (sample.group, sample.sample_id, response, self.mode)


def judge_single_turn(sample: Sample, response: dict, mode: str) -> tuple[object, bool, dict]:
    """The official AST checker's verdict on a stored single-turn reply: the run and a rescore both
    judge through here."""
    return judge_entry(sample.group, sample.sample_id, response, mode)


def judge_entry(category: str, sample_id: str, response: dict, mode: str) -> tuple[object, bool, dict]:
    """``judge_single_turn`` by the sample's category and id: what a judge's child process is sent."""
    entry = entry_of(category, sample_id)
    result = result_from_response(response, mode)
    if category in FORMAT_SENSITIVITY_CATEGORIES:  # decoded as its configuration's return format says
        verdict = score_format_sensitivity(entry.id, entry.functions, entry.possible_answer, result)
        return result, verdict.correct, verdict.as_dict()
    verdict = score_entry(category, entry.functions, entry.possible_answer, result,
                          underscore_to_dot=mode == "fc", mode=mode)
    return result, verdict.correct, verdict.as_dict()
