"""GAIA as a benchmark spec: options, samples, task, figures and exports for the shared lifecycle."""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator

from evalui.benchmarks.gaia import command_line
from evalui.benchmarks.gaia.file_scoring import SCORE_FILES
from evalui.core.benchmark import Benchmark, Options, SampleSpec, Scorer, Target, option
from evalui.core.options import limit_or_none

SOURCES = "sample, hf:<split>, folder:<path>[@<split>] or questions:<path>"


class GaiaOptions(Options):
    # Where the tasks come from (see SOURCES); the CLI says it with --sample, --questions, --data-dir
    # and --split (evalui.benchmarks.gaia.command_line), so it is no flag of its own.
    source: str = option("sample", shown=False)
    level: str | None = option(None, choices=("1", "2", "3"), help="only this level")
    limit: int | None = option(None, help="at most N tasks")  # None or 0: all
    agent: str | None = option(None, help="your agent as module:attr, with answer(record) -> str, instead of an "
                                          "endpoint")
    tools: list[str] | None = option(None, help="run evalui's own tool agent with these tools: python,files[,web]")
    tool_timeout: float = option(30.0, help="seconds a python program may run (default 30)")
    max_steps: int = option(12, help="model calls per task for the tool agent (default 12)")
    tool_protocol: str = option("auto", choices=("auto", "native", "text"),
                                help="native OpenAI tool calls, plain text, or native falling back to text (default)")

    @field_validator("limit")
    @classmethod
    def _limit(cls, limit: int | None) -> int | None:
        return limit_or_none(limit, "tasks")

    @field_validator("max_steps")
    @classmethod
    def _steps(cls, steps: int) -> int:
        if steps < 1:
            raise ValueError("max steps must be at least 1")
        return steps

    @field_validator("tool_timeout")
    @classmethod
    def _timeout(cls, seconds: float) -> float:
        if seconds <= 0:
            raise ValueError("the tool timeout must be positive")
        return seconds


def load(options: GaiaOptions) -> list:
    """The GAIA questions an option set selects."""
    from evalui.benchmarks.gaia import data

    kind, _, where = options.source.partition(":")
    limit = options.limit or None
    if kind == "sample":
        return data.load_bundled_sample(options.level, limit)
    if kind == "hf":
        return data.load_hf(where or "validation", options.level, limit)
    if kind == "folder":
        folder, _, split = where.partition("@")
        return data.load_folder(folder, split or "validation", options.level, limit)
    if kind == "questions":
        return data.load_questions_file(where, options.level, limit)
    raise ValueError(f"unknown GAIA source {options.source!r}; use {SOURCES}")


class NoTasks(ValueError):
    """The options select no task."""


def samples(options: GaiaOptions) -> list[SampleSpec]:
    from evalui.benchmarks.gaia.task import sample_specs

    specs = sample_specs(load(options))
    if not specs:
        raise NoTasks("the selection has no GAIA tasks (check the split, the level and the source)")
    return specs


def task(options: GaiaOptions, store, exp_id: str, cancel=None):
    from evalui.benchmarks.gaia.agent import load_agent
    from evalui.benchmarks.gaia.task import GaiaTask

    if options.tools:
        from evalui.benchmarks.gaia.agent_loop import AgentSettings, ToolAgentTask, local_sandbox
        from evalui.benchmarks.gaia.tools.base import parse_choices

        # Checked again here: a resume on a Space must not run code the operator has not allowed.
        tools = parse_choices(options.tools)
        return ToolAgentTask(settings=AgentSettings(tools, options.tool_timeout, options.max_steps,
                                                    options.tool_protocol),
                             sandbox=local_sandbox(cancel) if "python" in tools else None)
    return GaiaTask(agent=load_agent(options.agent) if options.agent else None)


def check(options: GaiaOptions, settings=None, stored: dict | None = None) -> tuple[GaiaOptions, dict]:
    """Options that cannot run together, said before a run is registered."""
    from evalui.benchmarks.gaia.agent import load_agent
    from evalui.benchmarks.gaia.agent_loop import PROTOCOLS
    from evalui.benchmarks.gaia.tools.base import parse_choices

    if options.tools and options.agent:
        raise ValueError("choose the built-in agent's tools or your own agent, not both")
    if (settings is None) == (options.agent is None):
        raise ValueError("give either an endpoint or an agent (module:attr), not both")
    if options.agent:
        load_agent(options.agent)  # a missing module or method is said now, not at the first task
    if options.tool_protocol not in PROTOCOLS:
        raise ValueError(f"the tool protocol is one of {', '.join(PROTOCOLS)}")
    # Which tools this deployment allows is the environment's to say (a Space), so it is checked here.
    return options.model_copy(update={"tools": parse_choices(options.tools) or None}), {}


def summarise(samples: list, summary: dict) -> dict:
    """Scores over the tasks with a known answer only: the test split's hidden answers are unscored."""
    from evalui.benchmarks.gaia.results import gaia_summary, task_rows

    figures = gaia_summary(task_rows(samples))
    figures["by_level"] = figures.pop("by_level")
    return figures


def export(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    from evalui.benchmarks.gaia.results import write_gaia_files

    return write_gaia_files(folder, experiment, summary, samples)


def headline(summary: dict) -> tuple[str, float | None]:
    if summary.get("judged") and not summary.get("scored"):
        return "unscored", None  # hidden answers: no accuracy, not 0 %
    return "accuracy", summary.get("accuracy")


def material(sample):
    """What the sample showed the model, for the validity scanners: the attachment and the tools' results
    are the task's own material; the question and the instructions must not hold the answer."""
    from evalui.benchmarks.gaia.material import sample_material

    return sample_material(sample)


def question_of(sample) -> str | None:
    """The question as GAIA states it."""
    from evalui.benchmarks.gaia.task import question_from_payload

    return question_from_payload(sample.payload).question


def target_of(sample) -> Target | None:
    """The final answer; the test split's hidden answer is no target."""
    from evalui.benchmarks.gaia.task import question_from_payload

    question = question_from_payload(sample.payload)
    return Target(question.final_answer) if question.has_truth else None


def data_files(options: GaiaOptions) -> list[Path]:
    kind, _, where = options.source.partition(":")
    if kind == "questions":
        return [Path(where)]
    if kind == "folder":
        folder, _, split = where.partition("@")
        base = Path(folder) / "2023" / (split or "validation")
        return [p for p in (base / "metadata.jsonl", base / "metadata.parquet") if p.exists()]
    return []



def score_stored(sample, reply, options) -> tuple[object, bool, dict]:
    """The leaderboard's question_scorer on a stored reply's last FINAL ANSWER (the run's task judges the same way)."""
    from evalui.benchmarks.gaia.task import judge_answer, question_from_payload

    return judge_answer(question_from_payload(sample.payload), (reply or {}).get("text", ""))

BENCHMARK = Benchmark(
    name="gaia",
    title="GAIA general assistant",
    options=GaiaOptions,
    samples=samples,
    task=task,
    fixed=("agent", "tools"),  # finished answers came from this agent, these tools (or the bare endpoint)
    summarise=summarise,
    export=export,
    headline=headline,
    data_files=data_files,
    group_name="level",
    needs_endpoint=False,  # a user's agent may answer instead
    default_concurrency=4,
    metrics={"accuracy": "the leaderboard's exact match over tasks with a known answer, Wilson 95% interval",
             "lenient_accuracy": "a labelled partial figure (articles dropped, order ignored); never the score",
             "latency_median_s": "median seconds per task", "tokens": "tokens in and out"},
    check=check,
    answered_by=lambda options: options.agent,
    cli_flags=command_line.add_source_flags,
    cli_options=command_line.options_from_args,
    cli_summary=command_line.cli_summary,
    cli_commands=command_line.commands,
    cli_help=command_line.HELP,
    scorers=(Scorer("gaia_exact_match", "the GAIA leaderboard's question_scorer on the last FINAL ANSWER",
                    score=score_stored),),
    material=material,
    question_of=question_of,
    target_of=target_of,
    score_files=SCORE_FILES,
    answer_template=(r"final\s*answer\s*:", "FINAL ANSWER:"),
    hidden_answers=True,
    tabs="evalui.ui.tabs.gaia:TABS",
)
