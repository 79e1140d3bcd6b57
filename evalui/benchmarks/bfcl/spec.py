"""BFCL as a benchmark spec: options, samples, task and exports for the shared lifecycle."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalui.benchmarks.bfcl.data import VERSION_PREFIX, bfcl_data_dir, check_category
from evalui.benchmarks.bfcl.task import BfclTask, sample_specs
from evalui.engine.benchmark import Benchmark, Scorer
from evalui.jsonl import write_jsonl
from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES, RELEVANCE_CATEGORIES

MODES = ("fc", "prompt")
MULTI_TURN_DOC_FILES = ("gorilla_file_system.json", "math_api.json", "message_api.json", "posting_api.json",
                        "ticket_api.json", "trading_bot.json", "travel_booking.json", "vehicle_control.json")


@dataclass
class BfclOptions:
    categories: list[str] = field(default_factory=lambda: ["simple_python"])
    limit: int | None = None  # per category; None or 0: all
    mode: str = "fc"  # fc: native tool calls; prompt: [func(param=value)] text


def samples(options: BfclOptions) -> list[tuple[str, str, dict]]:
    if options.mode not in MODES:
        raise ValueError(f"mode must be 'fc' or 'prompt', not {options.mode!r}")
    categories = [check_category(c.strip()) for c in options.categories if c.strip()]
    if not categories:
        raise ValueError("choose at least one BFCL category")
    return sample_specs(categories, options.limit or None)


@dataclass
class BfclRunTask:
    """Single-turn samples go to BfclTask, multi-turn ones to MultiTurnTask; one run may hold both."""

    mode: str = "fc"
    benchmark: str = "bfcl"

    def __post_init__(self):
        from evalui.benchmarks.bfcl.multi_turn.task import MultiTurnTask

        self.single, self.multi = BfclTask(mode=self.mode), MultiTurnTask(mode=self.mode)

    def _task(self, sample):
        return self.multi if sample.group in MULTI_TURN_CATEGORIES else self.single

    def prepare(self, samples) -> None:
        self.single.prepare([s for s in samples if s.group not in MULTI_TURN_CATEGORIES])

    def build_request(self, sample) -> dict:
        return self._task(sample).build_request(sample)

    def call(self, client, sample, request):
        return self._task(sample).call(client, sample, request)

    async def acall(self, client, sample, request):
        return await self._task(sample).acall(client, sample, request)

    def judge(self, sample, response):
        return self._task(sample).judge(sample, response)

    async def ajudge(self, sample, response):
        task = self._task(sample)
        if hasattr(task, "ajudge"):
            return await task.ajudge(sample, response)
        return task.judge(sample, response)  # single-turn verdicts are quick and pure: on the loop


def summarise(samples: list, summary: dict) -> dict:
    from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard

    return {"leaderboard": leaderboard(summary.get("by_category") or {})}


def export(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    """The official result files, one per category that has samples (a resume may have added some)."""
    from evalui.benchmarks.bfcl.leaderboard_csv import write_leaderboard_csvs
    from evalui.benchmarks.bfcl.report import write_bfcl_report

    judged = [s for s in samples if s.stage == "judged"]
    summary["mode"] = experiment["config"]["options"]["mode"]
    files = {}
    for category in dict.fromkeys(s.group for s in samples):
        path = folder / f"{VERSION_PREFIX}_{category}_result.json"
        write_jsonl(path, ({"id": s.sample_id, "result": s.prediction} for s in judged if s.group == category))
        files[category] = path
    summary["result_files"] = {category: str(path) for category, path in files.items()}
    files.update(write_leaderboard_csvs(folder, summary["by_category"], summary["model"], summary["mode"]))
    summary["report"] = str(write_bfcl_report(folder, experiment, summary, judged))
    return {**files, "report": Path(summary["report"])}


def data_files(options: BfclOptions) -> list[Path]:
    folder = bfcl_data_dir()
    files = []
    for category in options.categories:
        files.append(folder / f"{VERSION_PREFIX}_{category}.json")
        if category in MULTI_TURN_CATEGORIES:  # their function docs come from these files
            files += [folder / "multi_turn_func_doc" / name for name in MULTI_TURN_DOC_FILES
                      if folder / "multi_turn_func_doc" / name not in files]
        if category not in RELEVANCE_CATEGORIES:
            files.append(folder / "possible_answer" / f"{VERSION_PREFIX}_{category}.json")
    return files


def bfcl_eval_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"bfcl-eval {version('bfcl-eval')}"
    except PackageNotFoundError:
        return "bfcl-eval (not installed)"


BENCHMARK = Benchmark(
    name="bfcl",
    title="BFCL function calling (single-turn AST and multi-turn)",
    options=BfclOptions,
    samples=samples,
    task=lambda options, store, exp_id: BfclRunTask(mode=options.mode),
    fixed=("mode",),  # a finished sample's verdict depends on how the model was asked
    export=export,
    summarise=summarise,
    data_files=data_files,
    group_name="category",
    metrics={"accuracy": "share of judged samples the official AST checker accepts, Wilson 95% interval",
             "by_category": "the same, per category"},
    scorers=(Scorer("bfcl_checker", "bfcl-eval's own checkers: the AST checker (single-turn) and "
                    "multi_turn_checker (run in a worker process)", version=bfcl_eval_version),),
)
