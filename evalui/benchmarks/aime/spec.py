"""The three AIME steps as benchmark specs: generate problems, judge them, and their win rate.

Their own files (the generated file, and ``<stem>_judge.json`` / ``<stem>_winrate.json`` beside it)
go where the step's ``out`` or input says; the lifecycle's common files go to the run's own folder.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from evalui.benchmarks.aime import command_line
from evalui.benchmarks.aime.material import generation_material, judge_material
from evalui.benchmarks.aime.options import (
    GenerateOptions,
    JudgeOptions,
    WinrateOptions,
    cache_dir,
    check_generation,
    check_judge,
    check_winrate,
    judge_summary,
    winrate_summary,
)
from evalui.benchmarks.aime.options import generation_summary as generation_cli_summary
from evalui.benchmarks.aime.prompts import TOPICS
from evalui.benchmarks.aime.scorers import GENERATED_PROBLEM, LLM_JUDGE, LLM_JUDGE_EXCELLENT, PAIRWISE_PREFERENCE
from evalui.core.benchmark import Benchmark, Target
from evalui.core.run_config import RunConfig

GENERATE, JUDGE, WINRATE = "aime-generate", "aime-judge", "aime-winrate"


def _judged(samples: list) -> list:
    return [s for s in samples if s.stage == "judged"]


# generation -----------------------------------------------------------------------------------
def reference_pool(options: GenerateOptions):
    from evalui.benchmarks.aime import references

    return references.reference_pool(options.reference_source, cache_dir())


def generation_samples(options: GenerateOptions):
    from evalui.benchmarks.aime.tasks import generation_specs

    if options.n < 1:
        raise ValueError("generate at least one problem")
    topics = [t.strip() for t in options.topics if t.strip()] or list(TOPICS)
    return generation_specs(options.n, topics, reference_pool(options)[0], options.seed)


def generation_task(options: GenerateOptions, store, exp_id: str):
    from evalui.benchmarks.aime.tasks import GenerationTask

    accepted = [(s.sample_id, s.prediction["problem"]) for s in store.samples(exp_id, stages=("judged",))]
    return GenerationTask(reference_pool(options)[0], accepted=accepted)


def generation_summary(samples: list, summary: dict) -> dict:
    judged = _judged(samples)
    return {"requested": summary["total"], "generated": len(judged),
            "topics": dict(Counter(s.prediction.get("topic") for s in judged).most_common()),
            "rejected_attempts": sum(len((s.verdict or {}).get("rejected_attempts", [])) for s in judged)}


def export_generation(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    import json

    from evalui.benchmarks.aime import report as aime_report

    config = RunConfig.of(experiment)
    options = config.options
    target = Path(config.out) if config.out else folder
    target.mkdir(parents=True, exist_ok=True)
    problems = generated_problems(experiment, _judged(samples))
    output = target / options["output_name"]
    output.write_text(json.dumps(problems, indent=2, ensure_ascii=False), encoding="utf-8")
    summary.update(output=str(output), out_dir=str(target), reference_source=config.extra("reference_label")
                   or options["reference_source"])
    summary["report"] = str(aime_report.write_generation_report(target, summary, problems))
    return {"output": output, "report": Path(summary["report"])}


def generated_problems(experiment: dict, judged: list) -> list[dict]:
    problems = []
    for sample in judged:
        problem = dict(sample.prediction)
        problem["metadata"] = {"exp_id": experiment["exp_id"], "model": experiment["model"],
                               "reference_ids": sample.payload["reference_ids"],
                               "rejected_attempts": len((sample.verdict or {}).get("rejected_attempts", []))}
        problems.append(problem)
    return problems


def generated_share(summary: dict) -> tuple[str, float | None]:
    return "generated", summary["generated"] / summary["requested"] if summary.get("requested") else None


# judge and win rate ---------------------------------------------------------------------------
def judge_samples(options: JudgeOptions):
    from evalui.benchmarks.aime.problems import read_problems
    from evalui.benchmarks.aime.tasks import judge_specs

    return judge_specs(read_problems(options.input))


def winrate_samples(options: WinrateOptions):
    from evalui.benchmarks.aime import references
    from evalui.benchmarks.aime.problems import read_problems
    from evalui.benchmarks.aime.tasks import pairing_specs

    real, _ = references.aime25(options.real_source, cache_dir())
    return pairing_specs(read_problems(options.input), real, options.seed)


def companion_target(experiment: dict) -> tuple[Path, Path]:
    """(the generated file, the folder for what is written beside it)."""
    config = RunConfig.of(experiment)
    input_path = Path(config.options["input"])
    folder = Path(config.out) if config.out else input_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    return input_path, folder


def _write_companion(folder: Path, output: Path, summary: dict, results: list) -> None:
    import json

    output.write_text(json.dumps({"summary": summary, "results": results}, indent=2, ensure_ascii=False),
                      encoding="utf-8")
    summary.update(output=str(output), out_dir=str(folder))


def judge_figures(samples: list, summary: dict) -> dict:
    from evalui.stats.metrics import judge_summary

    scores = [{d: s.prediction["scores"][d]["score"] for d in s.prediction["scores"]} for s in _judged(samples)]
    figures = judge_summary(scores)
    return {**figures, "average_score": figures["average"], "failures": summary["errors"]}


def judge_calibration(input_path: Path, results: list[dict]) -> dict | None:
    """The judge's figures corrected by the reviews beside the file so far (evalui.review.calibration);
    None when nothing was judged. Reviews that cannot be read are said, and never stop the export."""
    from evalui.errors import InputError
    from evalui.review.calibration import calibrate
    from evalui.stats.metrics import JUDGE_DIMENSIONS

    judged = {r["problem_id"]: {d: r["scores"][d]["score"] for d in JUDGE_DIMENSIONS} for r in results}
    if not judged:
        return None
    try:
        return calibrate(input_path, judged=judged)
    except InputError as exc:
        return {"error": str(exc)}


def export_judge(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    from evalui.benchmarks.aime import report as aime_report

    input_path, target = companion_target(experiment)
    results = [{**s.prediction, "topic": s.group} for s in _judged(samples)]
    summary.update(judge_model=experiment["model"], input=str(input_path))
    # Reviews usually come after the judge: exporting the run again (rescore, or the same --exp-id) brings them in.
    summary["calibrated"] = judge_calibration(input_path, results)
    _write_companion(target, target / f"{input_path.stem}_judge.json", summary, results)
    summary["report"] = str(aime_report.write_judge_report(target, input_path.stem, summary, results))
    return {"output": Path(summary["output"]), "report": Path(summary["report"])}


def winrate_figures(samples: list, summary: dict) -> dict:
    from evalui.stats.metrics import win_rates

    results = [s.prediction for s in _judged(samples)]
    return {"pairs": len(results), "inconsistent_pairs": sum(1 for r in results if not r["consistent"]),
            "failures": summary["errors"], **win_rates(r["outcome"] for r in results)}


def export_winrate(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    from evalui.benchmarks.aime import report as aime_report

    input_path, target = companion_target(experiment)
    results = [s.prediction for s in _judged(samples)]
    summary.update(judge_model=experiment["model"], input=str(input_path),
                   real_source=RunConfig.of(experiment).extra("reference_label")
                   or RunConfig.of(experiment).options["real_source"])
    _write_companion(target, target / f"{input_path.stem}_winrate.json", summary, results)
    summary["report"] = str(aime_report.write_winrate_report(target, input_path.stem, summary))
    return {"output": Path(summary["output"]), "report": Path(summary["report"])}


def judged_problem(sample) -> str | None:
    """The problem the judge was given."""
    return (sample.payload or {}).get("problem")


def generator_answer(sample) -> Target | None:
    """The answer the problem's generator gave it."""
    answer = (sample.payload or {}).get("answer")
    return None if answer in (None, "") else Target(str(answer))


def _task(name: str):
    def make(options, store, exp_id):
        from evalui.benchmarks.aime import tasks

        return {JUDGE: tasks.JudgeTask, WINRATE: tasks.WinRateTask}[name]()

    return make



def own_commands(group, kit) -> None:
    """The aime group's commands of its own (evaluate, calibrate), which run the three steps."""
    command_line.commands(group, kit, (GENERATION, JUDGING, WINRATE_SPEC))



def reviewable_files(runs: Path) -> list[Path]:
    """The generated problem files under the runs folder, for the verification panel."""
    from evalui.benchmarks.aime.companions import generated_files

    return generated_files(runs)

GENERATION = Benchmark(
    name=GENERATE, title="AIME-style problem generation", options=GenerateOptions, samples=generation_samples,
    task=generation_task, fixed=("seed", "output_name"), summarise=generation_summary, export=export_generation,
    headline=generated_share, verdict_words=("valid", "invalid"), group_name="topic", default_concurrency=4,
    out_is_run_folder=False, check=check_generation, command=("aime", "generate"), cli_summary=generation_cli_summary,
    epochs=False, scorers=(GENERATED_PROBLEM,), material=generation_material,
    reviewable_files=reviewable_files,
    cli_commands=own_commands,
    cli_help=command_line.HELP,  # the aime group's own commands: evaluate, calibrate
    tabs="evalui.ui.tabs.aime:TABS",  # generation, and the results of all three steps
    rejection_kind="invalid_generation",  # unparseable, answer out of range, a near-duplicate
    metrics={"generated": "valid problems (parsed, answer 0–999, not a near-duplicate) out of those asked"})
JUDGING = Benchmark(
    name=JUDGE, title="LLM judge of generated problems", options=JudgeOptions, samples=judge_samples,
    task=_task(JUDGE), fixed=("input",), summarise=judge_figures, export=export_judge,
    headline=lambda s: ("pass rate", (s.get("pass_rate") or {}).get("rate")), verdict_words=("pass", "fail"),
    group_name="topic", default_concurrency=4, out_is_run_folder=False,
    data_files=lambda options: [Path(options.input)], check=check_judge, command=("aime", "judge"),
    cli_summary=judge_summary, epochs=False, model_help="the judge model", scorers=(LLM_JUDGE, LLM_JUDGE_EXCELLENT),
    material=judge_material, question_of=judged_problem, target_of=generator_answer, tabs="",  # the results tab's
    metrics={"average": "mean of the four dimensions (1–5)", "pass_rate": "share with a mean ≥ 3.5"})
WINRATE_SPEC = Benchmark(
    name=WINRATE, title="Win rate against real AIME problems", options=WinrateOptions, samples=winrate_samples,
    task=_task(WINRATE), fixed=("input", "seed"), summarise=winrate_figures, export=export_winrate,
    headline=lambda s: ("win rate", (s.get("win_rate") or {}).get("rate")), verdict_words=("win", "not a win"),
    group_name="topic", default_concurrency=4, out_is_run_folder=False,
    data_files=lambda options: [Path(options.input)], check=check_winrate, command=("aime", "winrate"),
    cli_summary=winrate_summary, epochs=False, model_help="the judge model", scorers=(PAIRWISE_PREFERENCE,),
    material=judge_material, tabs="",  # the results tab's
    metrics={"win_rate": "pairs the judge prefers in both orders; order-dependent pairs are ties"})
