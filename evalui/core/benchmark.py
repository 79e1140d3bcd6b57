"""What a benchmark is to the rest of evalui: a spec that the lifecycle, the CLI and the tabs read.

A benchmark gives its name, a model of options (``evalui.core.options``), the samples an option set selects, the task
that asks and judges one sample, the figures it adds to the common summary, the files it exports,
and its headline figure. Everything else (registering the run, resuming it, running it, the common
exports and the provenance) is written once, in ``evalui.run.lifecycle``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from evalui.core.options import OptionField, make_options, option_fields

# The front ends and the benchmarks import these from here, the one module a benchmark names.
from evalui.core.options import Options as Options
from evalui.core.options import base_type as base_type
from evalui.core.options import option as option
from evalui.core.options import option_default as option_default


class SampleSpec(NamedTuple):
    """A sample a benchmark selects: its id, its group, and its payload (what its task reads to ask,
    and its scorers to judge). A plain (id, group, payload) tuple is read as one."""

    sample_id: str
    group: str
    payload: dict


def _no_figures(samples: list, summary: dict) -> dict:
    return {}


def _no_files(folder: Path, experiment: dict, summary: dict, samples: list) -> dict:
    return {}


def accuracy_headline(summary: dict) -> tuple[str, float | None]:
    return "accuracy", summary.get("accuracy")


def accept_options(options, settings, stored: dict | None) -> tuple[Any, dict]:
    return options, {}


def given_options(args, values: dict) -> dict:
    return values


def common_cli_summary(summary: dict) -> dict:
    return {key: summary[key] for key in ("exp_id", "total", "correct", "accuracy", "errors", "duration_s", "out_dir",
                                          "status", "headline", "epochs", "cost") if key in summary}


def evalui_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"evalui {version('evalui')}"
    except PackageNotFoundError:
        return "evalui (not installed)"


@dataclass(frozen=True)
class Target:
    """The answer a sample is held to: ``value`` as its scorer holds it (JSON for structured answers,
    "" when there is none to show), ``shown`` as a person reads it (empty: the value)."""

    value: str
    shown: str = ""

    def text(self) -> str:
        return self.shown or self.value


# Payload keys that hold a sample's answer, for benchmarks that declare no target of their own.
TARGET_KEYS = ("target", "final_answer", "answer", "expected", "gold", "truth")


def payload_target(sample) -> Target | None:
    """The first answer-like key of the sample's payload; None when it has none."""
    payload = getattr(sample, "payload", None) or {}
    for key in TARGET_KEYS:
        value = payload.get(key)
        if value not in (None, ""):
            return Target(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str))
    return None


def plain_prediction(prediction) -> str:
    """A stored prediction as a person reads it: text as written, anything else as indented JSON."""
    if prediction is None:
        return ""
    if isinstance(prediction, str):
        return prediction
    return json.dumps(prediction, ensure_ascii=False, indent=1, default=str)


def no_question(sample) -> str | None:
    return None


@dataclass(frozen=True)
class Said:
    """Words of the viewer's catalog (evalui.viewer.texts), said in the visitor's language where they
    are shown: the text's key and its fields. A benchmark names them and never words them itself."""

    key: str
    fields: dict = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class VerdictTable:
    """A table the viewer shows under a verdict: its heading (the page's words), then ``subject``
    (the run's text: what the table is about), the columns' headings, and rows of the run's text."""

    heading: Said
    columns: tuple[Said, ...]
    rows: tuple[tuple[str, ...], ...]
    subject: str = ""


@dataclass(frozen=True)
class VerdictView:
    """What a verdict holds beyond its explanation, as data the viewer escapes and words: ``record``
    restates fields of the checker's record as people read them (a turn counted from 1 where the
    checker counts from 0; the stored verdict keeps the checker's value), ``tables`` follow the answers."""

    record: dict[str, Said] = dataclasses.field(default_factory=dict)
    tables: tuple[VerdictTable, ...] = ()


def no_verdict_view(sample) -> VerdictView:
    return VerdictView()


def own_cluster(sample_id: str) -> str:
    return sample_id


@dataclass(frozen=True)
class Scorer:
    """A named way to judge a stored reply, with no model call: the run judges with the first one,
    and ``evalui rescore`` judges a stored run again with any (after an upgrade of the official
    checker, say). ``version`` names what judged, and goes into every verdict it writes.

    ``score(sample, reply, options)`` is apart from the task: a function of the stored sample (seen
    under its own id, whatever its epoch), its stored reply and the run's options, returning
    (prediction, correct, verdict). A rescore calls it and builds no task, so nothing of a run (call
    workers, memory backends, a model client) starts. None: the benchmark's task judges (a plugin
    that declares no scorer), and a rescore builds the task for it."""

    name: str
    description: str
    score: Callable[[Any, Any, Any], tuple[object, bool, dict]] | None = None
    version: Callable[[], str] = evalui_version


def percent(value) -> str:
    """A share as the Score tab's figures show it (``–`` for none)."""
    return "–" if value is None else f"{value:.1%}"


def accuracy_interval(summary: dict) -> str:
    """The summary's accuracy with its 95% interval, as the Score tab's figures show it."""
    low, high = summary.get("ci95") or (None, None)
    return f"{percent(summary.get('accuracy'))} (95% CI {percent(low)}–{percent(high)})"


@dataclass(frozen=True)
class ScoreInput:
    """One input of a file-scoring panel: an uploaded file, or (``choices`` given) one value among
    ``choices()``. ``key`` ends its element id (``score-<benchmark>-<key>``) and names the scoring
    function's parameter; ``label`` is the UI string key of its label."""

    key: str
    label: str
    file_types: tuple[str, ...] = ()
    choices: Callable[[], list[str]] | None = None
    default: str | None = None
    parameter: str | None = None  # the scoring function's parameter name, when it is not ``key``


@dataclass(frozen=True)
class FileScoring:
    """Scoring files the benchmark's official tools write (a result file, a submission), with no run:
    the dashboard's Score tab builds one panel per benchmark that has it, and names its endpoint
    ``score_<benchmark>_file``.

    ``score(values, budget_s)`` takes the inputs' values in order (files as local paths of UTF-8 text
    or parquet, already checked for size) and the seconds it may take, and returns (verdict rows, summary);
    ``figures(summary)`` words the summary as lines of (UI string key, its fields), in the visitor's
    language; ``verdicts_name(values)`` names the file the rows are offered in; ``columns`` are the
    rows' columns in the verdict table. ``intro`` and ``button`` are UI string keys."""

    inputs: tuple[ScoreInput, ...]
    score: Callable[[list, float], tuple[list[dict], dict]]
    figures: Callable[[dict], list[tuple[str, dict]]]
    columns: tuple[str, ...]
    intro: str
    button: str
    verdicts_name: Callable[[list], str] = lambda values: "verdicts.jsonl"


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    options: type  # an Options model; its fields are the run's options, its defaults the CLI's and the tab's
    samples: Callable[[Any], list[SampleSpec]]  # options -> the samples they select
    task: Callable[[Any, Any, str], Any]  # (options, store, exp_id) -> a runner Task
    # Options a resumed run must keep, because finished samples depend on them; the others may
    # change on resume, and the run then adopts them (new samples added, the config updated).
    fixed: tuple[str, ...] = ()
    summarise: Callable[[list, dict], dict] = _no_figures  # (samples, common summary) -> more figures
    export: Callable[[Path, dict, dict, list], dict] = _no_files  # (folder, experiment, summary, samples) -> {what: path}
    headline: Callable[[dict], tuple[str, float | None]] = accuracy_headline
    data_files: Callable[[Any], list[Path]] = lambda options: []  # hashed into the summary's provenance
    verdict_words: tuple[str, str] = ("correct", "wrong")
    group_name: str = "group"
    needs_endpoint: bool = True  # False where something else can answer (GAIA's user agents)
    default_concurrency: int = 8
    # True: the run's ``out`` is its folder. False: ``out`` is where the benchmark's own files go
    # (AIME writes beside the generated file), and the common files stay in the run's own folder.
    out_is_run_folder: bool = True
    metrics: dict[str, str] = dataclasses.field(default_factory=lambda: {
        "accuracy": "share of judged samples that are correct, with a Wilson 95% interval"})
    scorers: tuple[Scorer, ...] = ()  # none declared: the task's own judge, under the benchmark's name
    # Before a run is registered: refuse options that cannot run (ValueError) and normalise them;
    # returns (options, notes for the run's config). ``stored``: a resumed run's options, else None.
    check: Callable[[Any, Any, dict | None], tuple[Any, dict]] = accept_options
    # Who answers when no endpoint is given (GAIA: the user's agent, module:attr); None: the endpoint must.
    answered_by: Callable[[Any], str | None] = lambda options: None
    # The CLI: ``evalui GROUP COMMAND`` (default ``evalui NAME run``), its flags from the options,
    # extra flags that are not options, how they become option values, and the summary it prints.
    command: tuple[str, str] | None = None
    cli_flags: Callable[[Any], None] | None = None  # (parser) -> None
    cli_options: Callable[[Any, dict], dict] = given_options  # (parsed args, option values) -> option values
    cli_summary: Callable[[dict], dict] = common_cli_summary
    # Commands of its own in its group, beside the run command (``evalui bfcl score``):
    # (the group's sub-commands, the CLI's kit) -> None. The kit (evalui.cli.generic.KIT) lends them
    # the CLI's endpoint and run flags, its way to start and follow a run and its summary line, so a
    # benchmark's commands live in its package without importing the CLI. Where specs share a group
    # (AIME's three steps), one of them declares the group's commands and its help.
    cli_commands: Callable[[Any, Any], None] | None = None
    cli_help: str | None = None  # the group's help in ``evalui --help`` (default: the title)
    epochs: bool = True  # whether the run commands offer --epochs (and the tabs an Epochs input)
    # (stored sample) -> evalui.scanners.material.Material: its gold answer, and which of what the model
    # was shown is the question, the task's own material (an attachment, a search's pages) or a judge's.
    # The validity scanners read it, so the task's material never counts as a leaked answer. None: the
    # whole prompt is read as the question.
    material: Callable[[Any], Any] | None = None
    # (stored sample) -> the question as the task states it, for logs other tools read (Inspect AI's
    # sample input). None: the first user message the model was sent stands for it.
    question_of: Callable[[Any], str | None] = no_question
    # (stored sample) -> the answer it is held to (a Target), or None when there is none or it is
    # hidden. The viewer's gold answer, the Inspect export's target and the scanners read it; the
    # task never sees it. Default: the payload's first answer-like key.
    target_of: Callable[[Any], Target | None] = payload_target
    # (stored prediction) -> text, as the viewer and the search show a model's answer.
    render_prediction: Callable[[Any], str] = plain_prediction
    # (stored sample) -> VerdictView: what the viewer's transcript shows of its verdict beyond the
    # explanation (where a conversation's state differs from the gold's, say). Default: nothing.
    render_verdict: Callable[[Any], VerdictView] = no_verdict_view
    # The packages the benchmark runs (its official checker, its data loader): their versions go into
    # every summary's provenance, so a figure says which upstream code produced it.
    upstream_packages: tuple[str, ...] = ()
    # (the runs folder) -> the files this benchmark writes for people to review (the verification
    # panel lists them, newest first); None: it writes none.
    reviewable_files: Callable[[Path], list[Path]] | None = None
    model_help: str = "model name at the endpoint"
    # (a sample's id, its epoch suffix taken off) -> the cluster it shares with samples whose answers
    # are not independent of its own (BFCL's multi-turn variants of one base entry, say), for the
    # clustered accuracy intervals (evalui.stats.clustered). Default: each sample its own cluster.
    cluster_of: Callable[[str], str] = own_cluster
    # Files of the benchmark's own format that the dashboard's Score tab scores (BFCL's result files,
    # say); None: the tab offers none.
    score_files: FileScoring | None = None
    # Its own dashboard tabs: "module:attr" of a sequence of tabs (evalui.ui.BenchmarkTab), named by a
    # string as the registry names specs, so no benchmark imports the dashboard. None: the generic tab
    # made from its options; "": none (a step that another spec's tabs show, as AIME's judging is).
    tabs: str | None = None
    # The template its replies end with (a regular expression, matched ignoring case, and the template
    # as written), for the format_failure scanner: a wrong reply without it was scored on its last line.
    answer_template: tuple[str, str] | None = None
    # True where a sample's answer may be hidden (GAIA's test split): such verdicts say "scored": False,
    # and the run's status counts the judged samples that were scored.
    hidden_answers: bool = False
    # The error kind (its message's prefix) of a sample whose output the task's own checks refused after
    # its retries (an unparseable generated problem, say): the run's status counts these apart from errors.
    rejection_kind: str | None = None

    def target(self, sample) -> Target | None:
        """The sample's target, or None when there is none or its data cannot be read here (a category
        this installation cannot load, a stored id the data no longer has)."""
        try:
            return self.target_of(sample)
        except (KeyError, ValueError, OSError, ImportError):
            return None

    def verdict_view(self, sample) -> VerdictView:
        """What ``render_verdict`` shows of the sample's verdict; nothing when the data it reads cannot
        be read here (as ``target``)."""
        try:
            return self.render_verdict(sample)
        except (KeyError, ValueError, OSError, ImportError):
            return VerdictView()

    def scorer_list(self) -> tuple[Scorer, ...]:
        return self.scorers or (Scorer(self.name, "the benchmark's own judge"),)

    def scorer(self, name: str | None = None) -> Scorer:
        """The named scorer (the first one when ``name`` is None); ValueError names the known ones."""
        found = self.scorer_list()
        for scorer in found:
            if name in (None, scorer.name):
                return scorer
        raise ValueError(f"{self.name} has no scorer {name!r}; its scorers are {', '.join(s.name for s in found)}")

    def option_fields(self) -> list[OptionField]:
        return option_fields(self.options)

    def asked_fields(self) -> list[OptionField]:
        """The options a user sets (a CLI flag, a tab input): every field not declared ``shown=False``."""
        return [f for f in self.option_fields() if f.metadata["shown"]]

    def cli_command(self) -> tuple[str, str]:
        return self.command or (self.name, "run")

    def make_options(self, values: dict) -> Any:
        """Options from stored or typed values: unknown names are refused, missing ones defaulted,
        and the rest validated by the options model (InvalidOptions, a ValueError, when refused)."""
        return make_options(self.options, values, self.name)


