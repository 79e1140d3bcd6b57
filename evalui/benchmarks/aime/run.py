"""AIME pipeline steps as the CLI and the dashboard run them: generate, judge, win rate, evaluate."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.aime import references
from evalui.benchmarks.aime.prompts import TOPICS
from evalui.benchmarks.aime.tasks import GenerationTask, JudgeTask, WinRateTask, generation_specs, judge_specs, pairing_specs
from evalui.engine.client import ModelClient
from evalui.engine.experiment import register_experiment, run_folder
from evalui.engine.runner import Progress, run_experiment
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.errors import InputError
from evalui.jsonl import read_json_array
from evalui.reports import aime_report
from evalui.scoring.metrics import judge_summary, win_rates

GENERATE, JUDGE, WINRATE = "aime-generate", "aime-judge", "aime-winrate"


def _cache_dir() -> Path:
    from evalui.config import data_dir

    return data_dir() / "cache" / "datasets"


def _run(store, exp_id, task, settings, *, concurrency, requests_per_minute, cancel, on_progress) -> float:
    started = time.perf_counter()
    run_experiment(store, exp_id, task, ModelClient(settings), concurrency=concurrency,
                   requests_per_minute=requests_per_minute, cancel=cancel, on_progress=on_progress,
                   secrets=settings.secrets())
    return time.perf_counter() - started


def _judged(store: RunStore, exp_id: str) -> list:
    return [s for s in store.samples(exp_id) if s.stage == "judged"]


def read_problems(path: str | Path) -> list[dict]:
    """A generated file: a JSON array of problems with problem_id, problem and answer."""
    problems = read_json_array(path, "problems")
    for index, problem in enumerate(problems, start=1):
        if not isinstance(problem, dict) or not {"problem_id", "problem", "answer"} <= set(problem):
            raise InputError(f"problem {index} needs problem_id, problem and answer", path=str(path))
    return problems


# generation -----------------------------------------------------------------------------------
def prepare_generation(store: RunStore, settings: EndpointSettings, *, n: int, topics: list[str] | None = None,
                       seed: int = 0, reference_source: str = "auto", exp_id: str | None = None,
                       out: str | Path | None = None) -> str:
    if n < 1:
        raise ValueError("generate at least one problem")
    topics = [t.strip() for t in (topics or TOPICS) if t.strip()] or list(TOPICS)
    pool, pool_source = references.reference_pool(reference_source, _cache_dir())
    stamp = time.strftime("%Y%m%d_%H%M%S")
    config = {"n": n, "topics": topics, "seed": seed, "reference_source": pool_source,
              "endpoint": settings.public(), "output_name": f"aime_generated_{stamp}.json",
              "out": str(out) if out else None}
    existing = store.experiment(exp_id) if exp_id else None
    if existing:  # a resumed run keeps its file name and folder
        config.update(output_name=existing["config"]["output_name"], out=existing["config"].get("out"))
    return register_experiment(store, GENERATE, exp_id, model=settings.model, host=settings.host, config=config,
                               specs=generation_specs(n, topics, pool, seed), fixed=("seed",))


def execute_generation(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int = 4,
                       requests_per_minute: float | None = None, cancel: threading.Event | None = None,
                       on_progress: Callable[[Progress], None] | None = None) -> dict:
    experiment = store.experiment(exp_id)
    pool, _ = references.reference_pool(
        "bundled" if experiment["config"]["reference_source"].startswith("bundled") else "auto", _cache_dir())
    task = GenerationTask(pool, accepted=[(s.sample_id, s.prediction["problem"]) for s in _judged(store, exp_id)])
    duration = _run(store, exp_id, task, settings, concurrency=concurrency, requests_per_minute=requests_per_minute,
                    cancel=cancel, on_progress=on_progress)
    return export_generation(store, exp_id, duration_s=duration)


def generated_problems(store: RunStore, exp_id: str) -> list[dict]:
    experiment = store.experiment(exp_id)
    problems = []
    for sample in _judged(store, exp_id):
        problem = dict(sample.prediction)
        problem["metadata"] = {"exp_id": exp_id, "model": experiment["model"],
                               "reference_ids": sample.payload["reference_ids"],
                               "rejected_attempts": len((sample.verdict or {}).get("rejected_attempts", []))}
        problems.append(problem)
    return problems


def export_generation(store: RunStore, exp_id: str, *, duration_s: float | None = None) -> dict:
    experiment = store.experiment(exp_id)
    config = experiment["config"]
    folder = run_folder(exp_id, config.get("out"))
    problems = generated_problems(store, exp_id)
    output = folder / config["output_name"]
    output.write_text(json.dumps(problems, indent=2, ensure_ascii=False), encoding="utf-8")
    counts = store.progress(exp_id)
    summary = {
        "exp_id": exp_id, "benchmark": GENERATE, "model": experiment["model"], "requested": config["n"],
        "generated": len(problems), "errors": counts["errors"], "tokens": counts["tokens"],
        "topics": dict(Counter(p["topic"] for p in problems).most_common()),
        "rejected_attempts": sum(p["metadata"]["rejected_attempts"] for p in problems),
        "reference_source": config["reference_source"], "status": experiment["status"],
        "duration_s": duration_s, "out_dir": str(folder), "output": str(output),
    }
    summary["report"] = str(aime_report.write_generation_report(folder, summary, problems))
    store.set_status(exp_id, experiment["status"], summary=summary, out_dir=str(folder))
    return summary


# judge ----------------------------------------------------------------------------------------
def prepare_judge(store: RunStore, settings: EndpointSettings, input_file: str | Path, *, exp_id: str | None = None,
                  out: str | Path | None = None) -> str:
    problems = read_problems(input_file)
    config = {"input": str(Path(input_file).resolve()), "endpoint": settings.public(), "out": str(out) if out else None}
    return register_experiment(store, JUDGE, exp_id, model=settings.model, host=settings.host, config=config,
                               specs=judge_specs(problems), fixed=("input",))


def execute_judge(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int = 4,
                  requests_per_minute: float | None = None, cancel: threading.Event | None = None,
                  on_progress: Callable[[Progress], None] | None = None) -> dict:
    duration = _run(store, exp_id, JudgeTask(), settings, concurrency=concurrency,
                    requests_per_minute=requests_per_minute, cancel=cancel, on_progress=on_progress)
    return export_judge(store, exp_id, duration_s=duration)


def _companion_target(experiment: dict) -> tuple[Path, Path]:
    """(the generated file judged, the folder for what is written beside it)."""
    input_path = Path(experiment["config"]["input"])
    folder = Path(experiment["config"]["out"]) if experiment["config"].get("out") else input_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    return input_path, folder


def _write_companion(folder: Path, output: Path, summary: dict, results: list) -> None:
    output.write_text(json.dumps({"summary": summary, "results": results}, indent=2, ensure_ascii=False), encoding="utf-8")
    summary.update(output=str(output), out_dir=str(folder))


def export_judge(store: RunStore, exp_id: str, *, duration_s: float | None = None) -> dict:
    experiment = store.experiment(exp_id)
    input_path, folder = _companion_target(experiment)
    judged = _judged(store, exp_id)
    results = [{**s.prediction, "topic": s.group} for s in judged]
    scores = [{d: r["scores"][d]["score"] for d in r["scores"]} for r in results]
    summary = {"exp_id": exp_id, "benchmark": JUDGE, "judge_model": experiment["model"], "input": str(input_path),
               "judged": len(results), "failures": store.progress(exp_id)["errors"], **judge_summary(scores),
               "status": experiment["status"], "duration_s": duration_s}
    summary["average_score"] = summary["average"]
    _write_companion(folder, folder / f"{input_path.stem}_judge.json", summary, results)
    summary["report"] = str(aime_report.write_judge_report(folder, input_path.stem, summary, results))
    store.set_status(exp_id, experiment["status"], summary=summary, out_dir=str(folder))
    return summary


# win rate -------------------------------------------------------------------------------------
def prepare_winrate(store: RunStore, settings: EndpointSettings, input_file: str | Path, *, seed: int = 0,
                    real_source: str = "auto", exp_id: str | None = None, out: str | Path | None = None) -> str:
    problems = read_problems(input_file)
    real, real_source_used = references.aime25(real_source, _cache_dir())
    config = {"input": str(Path(input_file).resolve()), "seed": seed, "real_source": real_source_used,
              "endpoint": settings.public(), "out": str(out) if out else None}
    return register_experiment(store, WINRATE, exp_id, model=settings.model, host=settings.host, config=config,
                               specs=pairing_specs(problems, real, seed), fixed=("input", "seed"))


def execute_winrate(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int = 4,
                    requests_per_minute: float | None = None, cancel: threading.Event | None = None,
                    on_progress: Callable[[Progress], None] | None = None) -> dict:
    duration = _run(store, exp_id, WinRateTask(), settings, concurrency=concurrency,
                    requests_per_minute=requests_per_minute, cancel=cancel, on_progress=on_progress)
    return export_winrate(store, exp_id, duration_s=duration)


def export_winrate(store: RunStore, exp_id: str, *, duration_s: float | None = None) -> dict:
    experiment = store.experiment(exp_id)
    config = experiment["config"]
    input_path, folder = _companion_target(experiment)
    results = [s.prediction for s in _judged(store, exp_id)]
    rates = win_rates(r["outcome"] for r in results)
    summary = {"exp_id": exp_id, "benchmark": WINRATE, "judge_model": experiment["model"], "input": str(input_path),
               "real_source": config["real_source"], "pairs": len(results),
               "inconsistent_pairs": sum(1 for r in results if not r["consistent"]),
               "failures": store.progress(exp_id)["errors"], **rates, "status": experiment["status"],
               "duration_s": duration_s}
    _write_companion(folder, folder / f"{input_path.stem}_winrate.json", summary, results)
    summary["report"] = str(aime_report.write_winrate_report(folder, input_path.stem, summary))
    store.set_status(exp_id, experiment["status"], summary=summary, out_dir=str(folder))
    return summary


def write_evaluation_report(generation: dict, judge: dict, winrate: dict) -> str:
    folder = Path(generation["out_dir"])
    stem = Path(generation["output"]).stem
    return str(aime_report.write_comprehensive_report(folder, stem, generation, judge, winrate))


def generated_files(root: Path) -> list[Path]:
    """Generated AIME files under ``root``, newest first (not the judge, reviews or export files beside them)."""
    from evalui.verification_input import is_companion

    found = [p for p in root.rglob("aime_generated_*.json") if not is_companion(p)]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def companion(path: Path, suffix: str) -> Path:
    """A file written beside a generated file: ``<stem>_judge.json``, ``<stem>_winrate.json``, …"""
    return path.with_name(f"{path.stem}{suffix}")


def read_companion_summary(path: Path, suffix: str) -> dict | None:
    target = companion(path, suffix)
    if not target.is_file():
        return None
    try:
        return json.loads(target.read_text(encoding="utf-8"))["summary"]
    except (json.JSONDecodeError, KeyError):
        return None
