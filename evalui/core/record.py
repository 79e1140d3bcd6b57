"""The run record, typed and versioned: one line of ``samples.jsonl`` (a sample, its steps and its
score) and ``summary.json`` (the run's figures). Both files are written through these models and
validated as they are written; their JSON Schemas are published in ``schemas/`` (regenerate them
with ``python -m evalui.core.record``; a test checks the committed files are up to date).

Versions. Each record carries ``schema_version``. Files written before records were versioned
have no such key and are read as version 0: the same keys with the same meaning, without
``schema_version`` and ``score``. Readers accept any version up to the current one (unknown keys
are kept); a record from a newer evalui is refused with a message saying so. A version is bumped
when a key changes meaning or goes away, never just for a new optional key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

SAMPLE_RECORD_VERSION = 1
# 2: provenance names the benchmark's upstream packages in ``packages`` (version 1 had one key per package).
RUN_SUMMARY_VERSION = 2
UNVERSIONED = 0  # what a record without schema_version was written as
# A finding's severity (evalui.scanners.base: INVALID, WARNING, INFO).
Severity = Literal["invalid", "warning", "info"]

# Verdict keys that hold the checker's own words, in the order a reason is looked for.
_REASON_KEYS = ("error", "reason", "message", "comment", "note")


class _Record(BaseModel):
    # Records are read back by later evalui versions: keys a model does not name are kept, not refused.
    model_config = ConfigDict(extra="allow", from_attributes=True)


class ToolCallRecord(_Record):
    name: str = Field(description="the tool or function the model called (as it named it)")
    arguments: Any = Field(None, description="its arguments as the model sent them: usually JSON text, never run")


class ToolResultRecord(_Record):
    name: str = Field("", description="the call that was run, as evalui shows it")
    content: Any = Field(None, description="what the tool returned: text, or content parts (images)")
    error: str | None = Field(None, description="why the call failed (timeout, bad_arguments, …); null when it ran")


class StepRecord(_Record):
    """One model call (evalui.run.trajectory.Step): what it added, the reply, the tools it ran."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description=(
        "chat messages this step added to the conversation before the model answered (OpenAI chat format); "
        "the model's own reply is not among them"))
    text: str | None = Field("", description="the model's reply text")
    tool_calls: list[ToolCallRecord] = Field(default_factory=list, description="native tool calls of the reply")
    tool_results: list[ToolResultRecord] = Field(default_factory=list, description="results of the calls that ran")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = Field(1, description="HTTP attempts the call took (retries included)")
    note: str = Field("", description="why the task did not accept this reply, when it did not")
    finish_reason: str = Field("", description="why the endpoint stopped: stop, length (cut at the token cap), "
                               "tool_calls, content_filter; empty in records written before it was kept")


class Verdict(_Record):
    """A judge's verdict. Every benchmark adds keys of its own (kept as they are); these are shared."""

    correct: bool | None = None
    error_type: str | None = Field(None, description="the kind of failure: wrong_value, state_mismatch, …")
    error: str | None = Field(None, description="the checker's own message")
    scored: bool | None = Field(None, description="false when the sample has no known answer (left out of scores)")


class Score(_Record):
    """The verdict as a score, the same for every benchmark (Inspect's C/I convention)."""

    value: Literal["C", "I"] = Field(description="C: correct, I: incorrect")
    explanation: str | None = Field(None, description="the checker's reason, when it gave one")
    error_type: str | None = None
    scorer: str | None = Field(None, description="the named scorer that judged (absent: the benchmark's first)")
    metadata: dict[str, Any] | None = Field(None, description=(
        "what the scorer measured beyond the verdict, e.g. an LLM judge's mean and each dimension's score"))


# The one finding type: evalui.scanners.registry.scan_sample makes these, the store keeps them as they
# are (JSON in the sample's verdict) and the record validates them. A TypedDict, so a finding is a plain
# dict; ``message`` and ``step`` may be absent (read as "" and null), and a record keeps exactly the keys
# a finding was stored with. (The docstring is the published schema's description.)
@with_config(ConfigDict(extra="allow"))
class Finding(TypedDict):
    """What a validity scanner (evalui.scanners) found in a sample."""

    scanner: Annotated[str, Field(description="the scanner's name: endpoint_error, refusal, truncated, …")]
    severity: Annotated[Severity, Field(description=(
        "invalid: the environment failed the sample (left out of the valid-sample score); warning: the verdict "
        "stands but deserves a look; info: shown, never counted"))]
    # The defaults are the schema's word for an absent key: validation fills in nothing.
    message: NotRequired[Annotated[str, Field(json_schema_extra={"default": ""})]]
    step: NotRequired[Annotated[int | None, Field(
        description="0-based index of the trajectory step it is about; null: the sample",
        json_schema_extra={"default": None})]]


class SampleRecord(_Record):
    """One line of samples.jsonl: what was asked, answered and judged, and every step."""

    schema_version: int = Field(SAMPLE_RECORD_VERSION, description=(
        f"{SAMPLE_RECORD_VERSION} for records written now; absent in older files, which are read as 0"))
    id: str = Field(description="the sample's id; epoch k > 1 of a sample is stored as '<id>#e<k>'")
    group: str = Field("", description="category, level or topic")
    stage: Literal["init", "rollout", "judged"] = Field(description=(
        "init: not answered (or failed, see error); rollout: answered, not judged; judged: has a verdict"))
    prediction: Any = Field(None, description="what the judge read from the answer")
    correct: bool | None = None
    verdict: Verdict | None = None
    error: str | None = Field(None, description="the endpoint's error, for a sample that failed for good")
    latency_s: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: int = Field(0, description="how many model calls the sample took")
    trajectory: list[StepRecord] | None = None
    score: Score | None = Field(None, description="the verdict as a score; null when unjudged or unscored")
    findings: list[Finding] | None = Field(None, description=(
        "what the validity scanners found (evalui.scanners), refreshed whenever the run's exports are written and "
        "by `evalui scan`; an empty list: scanned, nothing found"))
    cost_usd: float | None = Field(None, description="what the sample's tokens cost at the run's price (see the "
                                   "summary's cost.price); absent when the run has no price")

    @classmethod
    def of(cls, sample) -> SampleRecord:
        """The record of a stored sample (evalui.store.rows.Sample). Its findings are the ones
        just scanned (``sample.findings``), else those the store keeps in a judged sample's verdict
        (evalui.run.findings); the record has them on their own, not in the verdict."""
        verdict, findings = sample.verdict, getattr(sample, "findings", None)
        if isinstance(verdict, dict) and "findings" in verdict:
            findings = verdict["findings"] if findings is None else findings
            verdict = {k: v for k, v in verdict.items() if k != "findings"}
        extra = {} if findings is None else {"findings": findings}
        return cls(id=sample.sample_id, group=sample.group, stage=sample.stage, prediction=sample.prediction,
                   correct=sample.correct, verdict=verdict, error=sample.error, latency_s=sample.latency_s,
                   prompt_tokens=sample.prompt_tokens, completion_tokens=sample.completion_tokens,
                   steps=sample.steps, trajectory=sample.trajectory, score=score_of(sample), **extra)

    def dump(self) -> dict:
        # exclude_unset: a verdict or step keeps exactly the keys it was stored with.
        return {"schema_version": self.schema_version, **self.model_dump(exclude_unset=True)}


def reason_of(verdict: dict | None) -> str | None:
    """The checker's own words for a verdict (its message, reason or comment), else its error type."""
    verdict = verdict or {}
    for key in _REASON_KEYS:
        if verdict.get(key):
            return str(verdict[key])
    return str(verdict["error_type"]) if verdict.get("error_type") else None


def score_of(sample) -> Score | None:
    if sample.stage != "judged" or sample.correct is None:
        return None
    verdict = sample.verdict or {}
    if verdict.get("scored") is False:  # e.g. GAIA's test split: the answer is hidden
        return None
    extra = {key: verdict[key] for key in ("scorer", "metadata") if verdict.get(key)}
    return Score(value="C" if sample.correct else "I", explanation=None if sample.correct else reason_of(verdict),
                 error_type=None if sample.correct else verdict.get("error_type"), **extra)


class Headline(_Record):
    label: str
    value: float | None = None


class Provenance(_Record):
    evalui: str | None = None
    packages: dict[str, str | None] = Field(default_factory=dict, description=(
        "the packages the benchmark runs (its spec's upstream_packages, such as its official checker) and "
        "their installed versions; null when one is not installed"))
    python: str | None = None
    git_revision: str | None = None
    datasets: dict[str, str] = Field(default_factory=dict, description="'<folder>/<file>': 'sha256:<hex>'")


class Cost(_Record):
    """What the run cost at its price (evalui.run.pricing): every token counts, failed attempts too."""

    usd: float | None = Field(None, description="the run's cost in USD; null when no price is known for its model")
    per_sample_usd: float | None = Field(None, description="per sample that spent tokens")
    per_correct_usd: float | None = Field(None, description="the run's cost divided by its correct answers")
    priced_by: Literal["run", "file", "table"] | None = Field(None, description=(
        "run: prices given with the run; file: a --prices / EVALUI_PRICES file; table: evalui's pinned, dated "
        "table (evalui/data/prices.json); null: no price known"))
    price: dict[str, Any] | None = Field(None, description=(
        "input_per_m and output_per_m (USD per million tokens), with the entry's source and as_of date"))
    max_cost_usd: float | None = Field(None, description="the run's budget (--max-cost), when it has one")


class Validity(_Record):
    """The valid-sample score beside the raw one (evalui.scanners.validity): never in its place."""

    valid_accuracy: float | None = Field(None, description=(
        "accuracy over the judged, scored samples without an 'invalid' finding; null when none is left"))
    valid_ci95: list[float | None] = Field(default_factory=list, description=(
        "its 95% interval, clustered as the raw accuracy's"))
    valid: int = Field(0, description="judged, scored samples without an 'invalid' finding")
    valid_correct: int = 0
    invalid: int = Field(0, description="samples of any stage with an 'invalid' finding (endpoint errors included)")
    invalid_judged: int = Field(0, description="judged, scored samples left out as invalid")
    by_scanner: dict[str, dict[str, int]] = Field(default_factory=dict, description=(
        "per scanner, the samples it flagged at each severity"))
    scanners: dict[str, str] = Field(default_factory=dict, description="the scanners that ran, with their versions")
    label_precision: dict[str, dict[str, int | float | None]] = Field(default_factory=dict, description=(
        "per scanner, its precision from reviewers' labels of these findings: confirmed, false_alarm, precision"))


class RunSummary(_Record):
    """summary.json. Each benchmark adds figures of its own (``by_<group>``, leaderboard, …), kept as they are."""

    schema_version: int = Field(RUN_SUMMARY_VERSION, description=(
        f"{RUN_SUMMARY_VERSION} for summaries written now; absent in older files, which are read as 0"))
    exp_id: str
    benchmark: str
    model: str = ""
    status: str = Field(description="created, running, finished, incomplete, cancelled, budget_spent (stopped by "
                        "--max-cost; resumable), interrupted or failed")
    total: int
    judged: int
    correct: int
    accuracy: float | None = None
    ci95: list[float | None] = Field(default_factory=list, description="Wilson 95% interval of the accuracy")
    errors: int = Field(0, description="samples whose call failed for good (not judged)")
    tokens: int = 0
    error_types: dict[str, int] = Field(default_factory=dict)
    mean_steps: float | None = None
    duration_s: float | None = None
    out_dir: str
    headline: Headline | None = None
    files: dict[str, str] = Field(default_factory=dict)
    provenance: Provenance | None = None
    epochs: dict[str, Any] | None = None
    validity: Validity | None = None
    cost: Cost | None = None

    def dump(self) -> dict:
        return {"schema_version": self.schema_version, **self.model_dump(exclude_unset=True)}


class NewerRecord(ValueError):
    """A record written by a newer evalui than this one."""


def _read(model: type[_Record], data: dict, current: int, what: str):
    if not isinstance(data, dict):
        raise ValueError(f"a {what} is a JSON object, not {type(data).__name__}")
    version = data.get("schema_version", UNVERSIONED)
    if not isinstance(version, int) or version > current:
        raise NewerRecord(f"{what} schema_version {version!r} is newer than this evalui reads ({current}); "
                          "upgrade evalui")
    return model.model_validate({**data, "schema_version": version})


def read_sample_record(data: dict) -> SampleRecord:
    return _read(SampleRecord, data, SAMPLE_RECORD_VERSION, "sample record")


def read_run_summary(data: dict) -> RunSummary:
    return _read(RunSummary, data, RUN_SUMMARY_VERSION, "run summary")


def read_samples_file(path: str | Path) -> list[SampleRecord]:
    """Every record of a samples.jsonl, of any version this evalui reads."""
    records = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    records.append(read_sample_record(json.loads(line)))
                except (ValueError, ValidationError) as exc:
                    raise ValueError(f"{path}, line {number}: {exc}") from None
    return records


def read_summary_file(path: str | Path) -> RunSummary:
    return read_run_summary(json.loads(Path(path).read_text(encoding="utf-8")))


SCHEMAS: dict[str, type[BaseModel]] = {"sample_record": SampleRecord, "run_summary": RunSummary}


def json_schemas() -> dict[str, dict]:
    """{file stem: JSON Schema} for the published schemas."""
    schemas = {}
    for name, model in SCHEMAS.items():
        schema = model.model_json_schema()
        schemas[name] = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return schemas


def write_schemas(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in json_schemas().items():
        path = folder / f"{name}.schema.json"
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    import sys

    for written_path in write_schemas(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "schemas"):
        print(written_path)
