"""The AIME steps' options, as the CLI's flags and the tabs' inputs ask for them, the checks made
before a step's run is registered, and the summary each step's command prints."""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import field_validator

from evalui.benchmarks.aime.prompts import TOPICS
from evalui.core.benchmark import Options, option

SOURCES = ("auto", "hub", "bundled")


def cache_dir() -> Path:
    from evalui.config import data_dir

    return data_dir() / "cache" / "datasets"


class GenerateOptions(Options):
    n: int = option(10, required=True, help="how many problems")
    topics: list[str] = option(default_factory=lambda: list(TOPICS),
                               help="comma-separated topics (default: " + ", ".join(TOPICS) + ")")
    seed: int = 0
    reference_source: str = option("auto", flag="--references", choices=SOURCES,
                                   help="reference examples: TianHongZXY/aime-1983-2025 from the Hub, the bundled "
                                        "sample, or auto")
    # aime_generated_<timestamp>.json, named when the run is first prepared and kept by a resume.
    output_name: str = option("", shown=False)

    @field_validator("topics")
    @classmethod
    def _topics(cls, topics: list[str]) -> list[str]:
        return [t.strip() for t in topics if t.strip()] or list(TOPICS)  # none named: every topic

    @field_validator("n")
    @classmethod
    def _count(cls, n: int) -> int:
        if n < 1:
            raise ValueError("generate at least one problem")
        return n


class JudgeOptions(Options):
    input: str = option("", required=True, help="an aime_generated_*.json file")


class WinrateOptions(Options):
    input: str = option("", required=True, help="an aime_generated_*.json file")
    seed: int = 0
    real_source: str = option("auto", flag="--real", choices=SOURCES,
                              help="real problems: math-ai/aime25 from the Hub, the bundled stand-in, or auto")


def _source(asked: str, label: str) -> str:
    # Where the examples really came from: a bundled stand-in when the Hub is out of reach.
    return "bundled" if label.startswith("bundled") else asked


def check_generation(options: GenerateOptions, settings, stored: dict | None) -> tuple[GenerateOptions, dict]:
    from evalui.benchmarks.aime import references

    output_name = ((stored or {}).get("output_name") or options.output_name
                   or f"aime_generated_{time.strftime('%Y%m%d_%H%M%S')}.json")
    _, label = references.reference_pool(options.reference_source, cache_dir())
    checked = options.model_copy(update={"output_name": output_name,
                                         "reference_source": _source(options.reference_source, label)})
    return checked, {"reference_label": label}


def _generated_file(path: str) -> str:
    from evalui.benchmarks.aime.problems import read_problems

    if not path:
        raise ValueError("give a generated file (aime_generated_*.json)")
    read_problems(path)  # a bad file is refused before anything is registered
    return str(Path(path).resolve())


def check_judge(options: JudgeOptions, settings, stored: dict | None) -> tuple[JudgeOptions, dict]:
    return options.model_copy(update={"input": _generated_file(options.input)}), {}


def check_winrate(options: WinrateOptions, settings, stored: dict | None) -> tuple[WinrateOptions, dict]:
    from evalui.benchmarks.aime import references

    _, label = references.aime25(options.real_source, cache_dir())
    checked = options.model_copy(update={"input": _generated_file(options.input),
                                         "real_source": _source(options.real_source, label)})
    return checked, {"reference_label": label}


def generation_summary(summary: dict) -> dict:
    keys = ("exp_id", "requested", "generated", "errors", "topics", "duration_s", "out_dir", "output", "status")
    return {k: summary[k] for k in keys}


def judge_summary(summary: dict) -> dict:
    return {"exp_id": summary["exp_id"], "judged": summary["judged"], "failures": summary["failures"],
            "average_score": summary["average"], "pass_rate": summary["pass_rate"]["rate"],
            "excellent_rate": summary["excellent_rate"]["rate"], "dimensions": summary["dimensions"],
            "duration_s": summary["duration_s"], "output": summary["output"], "report": summary["report"]}


def winrate_summary(summary: dict) -> dict:
    return {"exp_id": summary["exp_id"], "pairs": summary["pairs"], "failures": summary["failures"],
            "win_rate": summary["win_rate"]["rate"], "loss_rate": summary["loss_rate"]["rate"],
            "tie_rate": summary["tie_rate"]["rate"], "inconsistent_pairs": summary["inconsistent_pairs"],
            "duration_s": summary["duration_s"], "output": summary["output"], "report": summary["report"]}
