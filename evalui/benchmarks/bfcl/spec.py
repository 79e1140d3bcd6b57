"""BFCL as a benchmark spec: options, samples, task and exports for the shared lifecycle."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evalui.benchmarks.bfcl import command_line
from evalui.benchmarks.bfcl.clusters import cluster_of
from evalui.benchmarks.bfcl.data import VERSION_PREFIX, bfcl_data_dir, check_category
from evalui.benchmarks.bfcl.file_scoring import SCORE_FILES
from evalui.benchmarks.bfcl.options import MODES, BfclOptions, check_options, cli_summary
from evalui.benchmarks.bfcl.scoring.single_turn import (
    AGENTIC_CATEGORIES,
    FORMAT_SENSITIVITY_CATEGORIES,
    MEMORY_CATEGORIES,
    MULTI_TURN_CATEGORIES,
    RELEVANCE_CATEGORIES,
    WEB_SEARCH_CATEGORIES,
)
from evalui.benchmarks.bfcl.task import BfclTask, sample_specs
from evalui.benchmarks.bfcl.verdict_view import render_verdict
from evalui.core.benchmark import Benchmark, SampleSpec, Scorer, Target
from evalui.core.run_config import RunConfig
from evalui.jsonl import write_jsonl

MULTI_TURN_DOC_FILES = ("gorilla_file_system.json", "math_api.json", "message_api.json", "posting_api.json",
                        "ticket_api.json", "trading_bot.json", "travel_booking.json", "vehicle_control.json")


def samples(options: BfclOptions) -> list[SampleSpec]:
    if options.mode not in MODES:
        raise ValueError(f"mode must be 'fc' or 'prompt', not {options.mode!r}")
    categories = [check_category(c.strip()) for c in options.categories if c.strip()]
    if not categories:
        raise ValueError("choose at least one BFCL category")
    from evalui.benchmarks.bfcl.format_sensitivity import check_mode

    check_mode(categories, options.mode)
    return sample_specs(categories, options.limit or None)


@dataclass
class BfclRunTask:
    """Single-turn samples go to BfclTask, multi-turn ones to MultiTurnTask, memory and web search
    to AgenticTask; one run may hold them all. ``run_folder`` keeps the run's memory snapshots."""

    mode: str = "fc"
    benchmark: str = "bfcl"
    run_folder: Path | None = None
    web_options: object = None
    cancel: object = None  # the run's cancel event: it stops the run's call workers at once

    def __post_init__(self):
        from evalui.benchmarks.bfcl.agentic.task import AgenticTask
        from evalui.benchmarks.bfcl.isolated import RunWorkers
        from evalui.benchmarks.bfcl.multi_turn.task import MultiTurnTask
        from evalui.benchmarks.bfcl.warm import build_once

        # Made while the run loads: an install without `make` works its caches out here, saying so.
        build_once(lambda message: print(message, file=sys.stderr, flush=True))

        # Workers start on a run's first multi-turn call, so a single-turn run starts none.
        self.workers = RunWorkers(self.cancel)
        self.single, self.multi = BfclTask(mode=self.mode), MultiTurnTask(mode=self.mode, pool=self.workers.pool)
        self.agentic = AgenticTask(mode=self.mode, snapshot_root=memory_folder(self.run_folder or Path(".")),
                                   web_options=self.web_options, pool=self.workers.pool)

    def _task(self, sample):
        if sample.group in AGENTIC_CATEGORIES:
            return self.agentic
        return self.multi if sample.group in MULTI_TURN_CATEGORIES else self.single

    def prepare(self, samples) -> None:
        self.single.prepare([s for s in samples if s.group not in MULTI_TURN_CATEGORIES + AGENTIC_CATEGORIES])

    def fixed_request(self, sample) -> bool:
        """A single-turn sample's request is its entry's, known before the call; a multi-turn or
        agentic conversation grows as it goes."""
        return self._task(sample) is self.single

    def build_request(self, sample) -> dict:
        return self._task(sample).build_request(sample)

    def call(self, client, sample, request):
        return self._task(sample).call(client, sample, request)

    async def acall(self, client, sample, request):
        return await self._task(sample).acall(client, sample, request)

    def judge(self, sample, response):
        return self._task(sample).judge(sample, response)

    def judge_job(self, sample, response):
        """Single-turn verdicts are pure: the run may judge them in its child process."""
        task = self._task(sample)
        return task.judge_job(sample, response) if task is self.single else None

    async def ajudge(self, sample, response):
        task = self._task(sample)
        if hasattr(task, "ajudge"):
            return await task.ajudge(sample, response)
        return task.judge(sample, response)  # single-turn verdicts are quick and pure: on the loop

    def close(self) -> None:
        """Stop the run's call workers (the run engine calls it when the run ends)."""
        self.workers.close()


def memory_folder(run_folder: Path) -> Path:
    """Where a run's memory snapshots and prereq conversations live (bfcl's layout below it)."""
    return Path(run_folder) / "memory"


def make_task(options: BfclOptions, store, exp_id: str, cancel=None) -> BfclRunTask:
    from evalui.benchmarks.bfcl.scoring.official import load_official
    from evalui.run.experiment import run_folder

    load_official()  # the checker's slow first import, before the run phase's clock starts

    experiment = store.experiment(exp_id)
    own = RunConfig.of(experiment).out or experiment.get("out_dir")
    web = None
    if set(options.categories) & set(WEB_SEARCH_CATEGORIES):
        from evalui.benchmarks.bfcl.agentic.web_search import check_web_options

        web = check_web_options(options.web_options())
    return BfclRunTask(mode=options.mode, run_folder=run_folder(exp_id, own), web_options=web, cancel=cancel)


def summarise(samples: list, summary: dict) -> dict:
    from evalui.benchmarks.bfcl.format_sensitivity import official_header, summary_block
    from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard

    figures = {"leaderboard": leaderboard(summary.get("by_category") or {})}
    header = official_header(samples)
    if header:
        figures["format_sensitivity"] = summary_block(header)
    return figures


def export(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    """The official result files, one per category that has samples (a resume may have added some)."""
    from evalui.benchmarks.bfcl.leaderboard_csv import write_leaderboard_csvs
    from evalui.benchmarks.bfcl.report import write_bfcl_report

    judged = [s for s in samples if s.stage == "judged"]
    summary["mode"] = RunConfig.of(experiment).options["mode"]
    files = {}
    for category in dict.fromkeys(s.group for s in samples):
        path = folder / f"{VERSION_PREFIX}_{category}_result.json"
        write_jsonl(path, ({"id": s.sample_id, "result": s.prediction} for s in judged if s.group == category))
        files[category] = path
    summary["result_files"] = {category: str(path) for category, path in files.items()}
    files.update(_prereq_files(folder, {s.group for s in samples} & set(MEMORY_CATEGORIES)))
    from evalui.benchmarks.bfcl.format_sensitivity import official_header

    options = BfclOptions(**{k: v for k, v in RunConfig.of(experiment).options.items()
                             if k in BfclOptions.model_fields})
    files.update(write_leaderboard_csvs(folder, summary["by_category"], options.leaderboard_model or summary["model"],
                                        summary["mode"], format_sensitivity=official_header(judged)))
    if set(summary["by_category"]) & set(WEB_SEARCH_CATEGORIES):
        from evalui.benchmarks.bfcl.agentic.web_search import web_provenance

        summary["web"] = web_provenance(options.web_options())
    summary["report"] = str(write_bfcl_report(folder, experiment, summary, judged))
    return {**files, "report": Path(summary["report"])}


def _prereq_files(folder: Path, categories: set[str]) -> dict[str, Path]:
    """The memory prereq conversations as the official result files hold them (never scored)."""
    from evalui.benchmarks.bfcl.agentic.task import prereq_results_path

    files = {}
    for category in sorted(categories):
        played = prereq_results_path(memory_folder(folder), category)
        if played.is_file():
            path = folder / f"{VERSION_PREFIX}_{category}_prereq_result.json"
            path.write_text(played.read_text(encoding="utf-8"), encoding="utf-8")
            files[f"{category}_prereq"] = path
    return files


def data_files(options: BfclOptions) -> list[Path]:
    folder = bfcl_data_dir()
    files = []
    for category in options.categories:
        if category in AGENTIC_CATEGORIES:
            files += [path for path in _agentic_data_files(folder, category) if path not in files]
            continue
        if category in FORMAT_SENSITIVITY_CATEGORIES:  # the official ids, over these categories' files
            files.append(folder / f"{VERSION_PREFIX}_{category}.json")
            files += [path for path in _format_sensitivity_data_files(folder) if path not in files]
            continue
        files.append(folder / f"{VERSION_PREFIX}_{category}.json")
        if category in MULTI_TURN_CATEGORIES:  # their function docs come from these files
            files += [folder / "multi_turn_func_doc" / name for name in MULTI_TURN_DOC_FILES
                      if folder / "multi_turn_func_doc" / name not in files]
        if category not in RELEVANCE_CATEGORIES:
            files.append(folder / "possible_answer" / f"{VERSION_PREFIX}_{category}.json")
    return files


def _format_sensitivity_data_files(folder: Path) -> list[Path]:
    import json

    ids = json.loads((folder / f"{VERSION_PREFIX}_format_sensitivity.json").read_text(encoding="utf-8"))
    return [path for category, chosen in ids.items() if chosen
            for path in (folder / f"{VERSION_PREFIX}_{category}.json",
                         folder / "possible_answer" / f"{VERSION_PREFIX}_{category}.json")]


def _agentic_data_files(folder: Path, category: str) -> list[Path]:
    shared = "memory" if category in MEMORY_CATEGORIES else "web_search"
    docs = {"memory_kv": "memory_kv.json", "memory_vector": "memory_vector.json",
            "memory_rec_sum": "memory_rec_sum.json"}.get(category, "web_search.json")
    files = [folder / f"{VERSION_PREFIX}_{shared}.json", folder / "possible_answer" / f"{VERSION_PREFIX}_{shared}.json",
             folder / "multi_turn_func_doc" / docs]
    if shared == "memory":
        files += sorted((folder / "memory_prereq_conversation").glob("*.json"))
    return files


def score_stored(sample, reply, options: BfclOptions) -> tuple[object, bool, dict]:
    """bfcl-eval's checker on a stored reply, by the sample's category, with no task: the run's
    tasks judge through the same functions."""
    from evalui.benchmarks.bfcl.agentic.task import judge_agentic
    from evalui.benchmarks.bfcl.multi_turn.task import judge_multi_turn
    from evalui.benchmarks.bfcl.task import judge_single_turn

    if sample.group in AGENTIC_CATEGORIES:
        return judge_agentic(sample, reply, options.mode)
    if sample.group in MULTI_TURN_CATEGORIES:
        return judge_multi_turn(sample, reply, options.mode)
    return judge_single_turn(sample, reply, options.mode)


def bfcl_eval_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"bfcl-eval {version('bfcl-eval')}"
    except PackageNotFoundError:
        return "bfcl-eval (not installed)"


def target_of(sample) -> Target:
    """The entry's possible answer: as JSON for the checker's readers, as calls for people. Relevance
    entries have none ("any call"), irrelevance ones hold the model to calling nothing ("no call")."""
    import json

    from evalui.benchmarks.bfcl.calls import pretty_truth
    from evalui.benchmarks.bfcl.data import stored_entry

    entry = stored_entry(sample)
    answer = getattr(entry, "possible_answer", None)
    if answer is None:
        return Target("", shown="no call" if "irrelevance" in sample.group else "any call")
    return Target(json.dumps(answer, ensure_ascii=False), shown=pretty_truth(answer))


def render_prediction(prediction) -> str:
    from evalui.benchmarks.bfcl.calls import pretty_prediction

    return pretty_prediction(prediction)


BENCHMARK = Benchmark(
    name="bfcl",
    title="BFCL function calling (single-turn AST and multi-turn)",
    options=BfclOptions,
    samples=samples,
    task=make_task,
    fixed=("mode",),  # a finished sample's verdict depends on how the model was asked
    export=export,
    summarise=summarise,
    data_files=data_files,
    group_name="category",
    metrics={"accuracy": "share of judged samples the official AST checker accepts, Wilson 95% interval",
             "by_category": "the same, per category"},
    check=check_options,
    cli_summary=cli_summary,
    cli_commands=command_line.commands,
    cli_help=command_line.HELP,
    scorers=(Scorer("bfcl_checker", "bfcl-eval's own checkers: the AST checker (single-turn) and "
                    "multi_turn_checker (run in a worker process)", score=score_stored,
                    version=bfcl_eval_version),),
    target_of=target_of,
    render_prediction=render_prediction,
    render_verdict=render_verdict,
    cluster_of=cluster_of,
    upstream_packages=("bfcl-eval",),  # the official checker and data every verdict and request come from
    score_files=SCORE_FILES,
    tabs="evalui.ui.tabs.bfcl:TABS",
)
