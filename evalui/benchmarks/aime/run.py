"""AIME pipeline steps as the CLI and the dashboard run them: generate, judge, win rate, evaluate.

Each step is a benchmark spec (evalui/benchmarks/aime/spec.py) on the shared lifecycle; these are
the calls the CLI and the tabs make, with the step's own arguments.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from evalui.benchmarks.aime import references
from evalui.benchmarks.aime.problems import read_problems
from evalui.benchmarks.aime.prompts import TOPICS
from evalui.benchmarks.aime.spec import (GENERATE, GENERATION, JUDGE, JUDGING, WINRATE, WINRATE_SPEC,
                                         GenerateOptions, JudgeOptions, WinrateOptions, _cache_dir)
from evalui.engine import lifecycle
from evalui.engine.runner import Progress
from evalui.engine.settings import EndpointSettings
from evalui.engine.store import RunStore
from evalui.benchmarks.aime import report as aime_report

__all__ = ["GENERATE", "JUDGE", "WINRATE", "prepare_generation", "execute_generation", "prepare_judge",
           "execute_judge", "prepare_winrate", "execute_winrate", "read_problems"]


def _label(store: RunStore, exp_id: str, label: str) -> str:
    # Where the references really came from (a bundled stand-in when the Hub is out of reach).
    store.update_config(exp_id, {**store.experiment(exp_id)["config"], "reference_label": label})
    return exp_id


def prepare_generation(store: RunStore, settings: EndpointSettings, *, n: int, topics: list[str] | None = None,
                       seed: int = 0, reference_source: str = "auto", exp_id: str | None = None,
                       out: str | Path | None = None) -> str:
    existing = store.experiment(exp_id) if exp_id else None
    # A resumed run keeps its file name; a new one is named when it is first prepared.
    name = ((existing or {}).get("config", {}).get("options") or {}).get("output_name") \
        or f"aime_generated_{time.strftime('%Y%m%d_%H%M%S')}.json"
    _, source_label = references.reference_pool(reference_source, _cache_dir())
    options = GenerateOptions(n=n, topics=[t.strip() for t in (topics or TOPICS) if t.strip()] or list(TOPICS),
                              seed=seed, output_name=name,
                              reference_source="bundled" if source_label.startswith("bundled") else reference_source)
    return _label(store, lifecycle.prepare(store, GENERATION, options, settings, exp_id=exp_id, out=out), source_label)


def prepare_judge(store: RunStore, settings: EndpointSettings, input_file: str | Path, *, exp_id: str | None = None,
                  out: str | Path | None = None) -> str:
    read_problems(input_file)  # a bad file is refused before anything is registered
    options = JudgeOptions(input=str(Path(input_file).resolve()))
    return lifecycle.prepare(store, JUDGING, options, settings, exp_id=exp_id, out=out)


def prepare_winrate(store: RunStore, settings: EndpointSettings, input_file: str | Path, *, seed: int = 0,
                    real_source: str = "auto", exp_id: str | None = None, out: str | Path | None = None) -> str:
    read_problems(input_file)
    _, source_label = references.aime25(real_source, _cache_dir())
    options = WinrateOptions(input=str(Path(input_file).resolve()), seed=seed,
                             real_source="bundled" if source_label.startswith("bundled") else real_source)
    return _label(store, lifecycle.prepare(store, WINRATE_SPEC, options, settings, exp_id=exp_id, out=out),
                  source_label)


def _execute(store: RunStore, settings: EndpointSettings, exp_id: str, *, concurrency: int | None = None,
             requests_per_minute: float | None = None, cancel: threading.Event | None = None,
             on_progress: Callable[[Progress], None] | None = None) -> dict:
    return lifecycle.execute(store, exp_id, settings, concurrency=concurrency,
                             requests_per_minute=requests_per_minute, cancel=cancel, on_progress=on_progress)


execute_generation = execute_judge = execute_winrate = _execute


def _export(store: RunStore, exp_id: str, *, duration_s: float | None = None) -> dict:
    return lifecycle.export(store, exp_id, duration_s=duration_s)


export_generation = export_judge = export_winrate = _export


def write_evaluation_report(generation: dict, judge: dict, winrate: dict) -> str:
    folder = Path(generation["out_dir"])
    stem = Path(generation["output"]).stem
    return str(aime_report.write_comprehensive_report(folder, stem, generation, judge, winrate))


def generated_files(root: Path) -> list[Path]:
    """Generated AIME files under ``root``, newest first (not the judge, reviews or export files beside them)."""
    from evalui.review.uploads import is_companion

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
