"""A stored run as an Inspect AI eval log (``.eval`` or ``.json``), built with inspect_ai's own types
and written with its ``write_eval_log``, so Inspect's reader, its viewer and ``inspect score`` use it.

inspect_ai is optional: without it the export says how to install it. The log names the model as
Inspect does, ``<provider>/<model>`` (evalui.export.inspect_model), with the endpoint's base URL, and
records the generate config as it was sent (the endpoint's temperature and max_tokens, and the
fields a benchmark added to each request). Each evalui sample becomes one EvalSample: its id and
epoch (``<id>#e<k>`` is epoch k), the question as its input (the first user message the model was
sent, never the system prompt), the whole conversation from the trajectory, the target the
benchmark declares (its spec's ``question_of`` and ``target_of``), the verdict as a Score (C or I, the
checker's reason as its explanation, the verdict in its metadata), the tokens as model usage, the
findings of the validity scanners and the error type in its metadata, and the transcript's events
(evalui.export.inspect_events). A sample whose call failed for good has no score and carries the
endpoint's error. Its output's ``completion`` is the answer the checker read, where that is text,
as Inspect's agents put a submitted answer there: Inspect's own scorers then read what evalui's
read.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from evalui.core.record import SampleRecord, StepRecord
from evalui.export.inspect_events import SampleFacts, sample_events, stop_reason
from evalui.export.inspect_messages import content, message, turns
from evalui.export.inspect_model import base_url, inspect_model_name
from evalui.ops.stored_checks import check_verdicts
from evalui.store.light import shown_error_type

INSTALL_HINT = "pip install inspect_ai (it is in evalui's test extra: pip install -e '.[test]')"
FORMATS = {".eval": "eval", ".json": "json"}


class UnknownRun(ValueError):
    pass


def require_inspect() -> None:
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        raise RuntimeError(f"the Inspect export needs inspect_ai, which is not installed: {INSTALL_HINT}") from None


def _iso(timestamp: float | None) -> str:
    moment = datetime.fromtimestamp(timestamp, tz=UTC) if timestamp else datetime.now(UTC)
    return moment.isoformat()


def _spec(benchmark: str):
    from evalui.core import registry

    return registry.find(benchmark)


def question_and_target(spec, sample) -> tuple[str | None, str]:
    """What the benchmark declares: the question (None: the first user message) and the target ("":
    none, or hidden)."""
    if spec is None:
        return None, ""
    target = spec.target(sample)
    return spec.question_of(sample), target.value if target is not None else ""


def dataset(spec, experiment: dict, ids: list):
    """What the run read: the benchmark's title, and its data files by name (never a server's folders)."""
    from inspect_ai.log import EvalDataset

    names: list[str] = []
    if spec is not None:
        try:
            files = spec.data_files(spec.make_options((experiment.get("config") or {}).get("options") or {}))
            names = list(dict.fromkeys(Path(f).name for f in files))
        except (ValueError, TypeError, KeyError, OSError):  # options of another evalui version, data not here
            names = []
    title = spec.title if spec is not None else experiment["benchmark"]
    return EvalDataset(name=title, location=", ".join(names) or None, samples=len(ids), sample_ids=ids)


def generate_config(endpoint: dict | None, extra_body: dict | None = None):
    """The generation settings every request carried: evalui's client sends the endpoint's temperature,
    its max_tokens when one is set, and the fields a benchmark adds to the body."""
    from inspect_ai.model import GenerateConfig

    endpoint = endpoint or {}
    return GenerateConfig(temperature=endpoint.get("temperature"), max_tokens=endpoint.get("max_tokens") or None,
                          extra_body=extra_body if isinstance(extra_body, dict) and extra_body else None)


def _request(sample) -> dict:
    return sample.request if isinstance(sample.request, dict) else {}


def tools_offered(request: dict) -> list:
    """The tools the request offered, as ToolInfo; a tool stored by name alone keeps its name."""
    from inspect_ai.tool import ToolInfo
    from pydantic import ValidationError

    out = []
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            try:
                out.append(ToolInfo.model_validate({"name": str(function.get("name") or ""),
                                                    "description": str(function.get("description") or ""),
                                                    "parameters": function.get("parameters") or {}}))
                continue
            except ValidationError:  # a schema Inspect's types do not take: its name and description stay
                out.append(ToolInfo(name=str(function.get("name") or ""),
                                    description=str(function.get("description") or "")))
                continue
        if isinstance(tool, str):
            out.append(ToolInfo(name=tool, description=""))
    return out


def _opening(sample) -> list:
    """The messages of the sample's stored request (for a sample whose trajectory holds none)."""
    return [message(m, {}) for m in _request(sample).get("messages") or [] if isinstance(m, dict)]


def _input(turn_list: list, sample, question: str | None) -> list | str:
    """The question as the model got it: the first user message (text, or the message when it holds
    images); the spec's question when no message was stored (an agent's run); else the id."""
    from inspect_ai.model import ChatMessageUser

    messages = [m for t in turn_list for m in t.added] or _opening(sample)
    for m in messages:
        if isinstance(m, ChatMessageUser):
            return m.content if isinstance(m.content, str) else [m]
    return question if question else sample.sample_id


def _answer(prediction) -> str | None:
    if prediction is None:
        return None
    return prediction if isinstance(prediction, str) else json.dumps(prediction, ensure_ascii=False, default=str)


def eval_sample(spec, experiment: dict, model: str, sample, found: list[dict], endpoint: dict | None):
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    benchmark = experiment["benchmark"]
    record = SampleRecord.of(sample)
    base_id, epoch = sample.own_id, sample.epoch
    steps: list[StepRecord] = record.trajectory or []
    turn_list = turns(steps, model)
    question, target = question_and_target(spec, sample)
    prompt = _input(turn_list, sample, question)
    opening = []
    if not (turn_list and turn_list[0].added):  # the input is not in the trajectory: it opens the conversation
        opening = _opening(sample) or [ChatMessageUser(content=content(prompt))]
    messages = opening + [m for t in turn_list for m in (*t.added, t.reply, *t.trailing)]
    usage = ModelUsage(input_tokens=record.prompt_tokens, output_tokens=record.completion_tokens,
                       total_tokens=record.prompt_tokens + record.completion_tokens)
    output = ModelOutput(model=model)
    if turn_list:
        output = ModelOutput.from_message(turn_list[-1].reply, stop_reason=stop_reason(steps[-1].finish_reason))
        output.model = model
    if record.stage == "judged" and isinstance(record.prediction, str):
        output.completion = record.prediction  # the answer the checker read, as an agent's submitted answer
    if usage.total_tokens:
        output.usage = usage
    scores = {}
    if record.score is not None:
        scores = {benchmark: Score(value=record.score.value, answer=_answer(record.prediction),
                                   explanation=record.score.explanation,
                                   metadata={"error_type": record.score.error_type, "verdict": sample.verdict or {},
                                             "scorer": record.score.scorer, **(record.score.metadata or {})})}
    error = None
    if record.stage != "judged" and record.error:
        error = EvalError(message=record.error, traceback="", traceback_ansi="")
    error_type = shown_error_type(record.stage, record.correct, record.verdict.error_type if record.verdict else None,
                                  record.error)
    metadata = {"group": record.group, "stage": record.stage, "evalui_id": record.id, "attempts": sample.attempts,
                "steps": record.steps, "findings": found, "error_type": error_type}
    if record.stage == "judged" and record.score is None:
        metadata["unscored"] = True  # e.g. a hidden answer: judged, but left out of the scores
    if question and question != prompt:
        metadata["question"] = question
    started = None
    if getattr(sample, "updated_at", None):
        started = sample.updated_at - (record.latency_s or 0.0)
    request = _request(sample)
    facts = SampleFacts(model=model, task=benchmark,
                        inspect_sample=Sample(input=prompt, target=target, id=base_id),
                        config=generate_config(endpoint, request.get("extra_body")),
                        tools=tools_offered(request), steps=steps, started=started, scores=scores, target=target,
                        error=error, opening=opening)
    return EvalSample(id=base_id, epoch=epoch, input=prompt, target=target, messages=messages, output=output,
                      scores=scores or None, metadata=metadata, total_time=record.latency_s, error=error,
                      model_usage={model: usage} if usage.total_tokens else {}, events=sample_events(facts, turn_list))


_STATUS = {"finished": "success", "cancelled": "cancelled", "incomplete": "error", "failed": "error"}


def _shared_extra_body(samples: list) -> dict | None:
    """The fields a benchmark added to the run's request bodies, when the stored requests that record
    them all record the same (a request stored without them says nothing either way)."""
    bodies = [b for b in (_request(s).get("extra_body") for s in samples) if isinstance(b, dict)]
    return bodies[0] if bodies and all(b == bodies[0] for b in bodies) else None


def eval_log(experiment: dict, samples: list, found: dict[str, list[dict]] | None = None):
    """The EvalLog of a stored run (``experiment`` as RunStore.experiment returns it); ``found``: each
    sample's findings by id."""
    from inspect_ai.log import (
        EvalConfig,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )
    from inspect_ai.model import ModelUsage

    from evalui.run.lifecycle import git_revision

    benchmark = experiment["benchmark"]
    config = experiment.get("config") or {}
    endpoint = config.get("endpoint") if isinstance(config.get("endpoint"), dict) else None
    model = inspect_model_name(experiment.get("model"), endpoint)
    spec = _spec(benchmark)
    generate = generate_config(endpoint, _shared_extra_body(samples))
    found = found or {}
    exported = [eval_sample(spec, experiment, model, s, found.get(s.sample_id) or [], endpoint)
                for s in samples]
    ids = list(dict.fromkeys(s.id for s in exported))
    scored = [s.scores[benchmark] for s in exported if s.scores]
    correct = sum(1 for score in scored if score.value == "C")
    created = _iso(experiment.get("created_at"))
    spec_log = EvalSpec(eval_id=experiment["exp_id"], run_id=experiment["exp_id"], created=created, task=benchmark,
                        task_args=config.get("options") or {}, model=model,
                        model_base_url=base_url(endpoint), model_generate_config=generate,
                        dataset=dataset(spec, experiment, ids),
                        config=EvalConfig(epochs=int(config.get("epochs") or 1),
                                          max_samples=config.get("concurrency") or None),
                        metadata={"evalui": {"exp_id": experiment["exp_id"], "status": experiment.get("status"),
                                             "model": experiment.get("model"),
                                             "endpoint_host": experiment.get("endpoint_host"),
                                             "git_revision": git_revision()}})
    plan = EvalPlan(steps=[EvalPlanStep(solver=benchmark, params={"options": config.get("options") or {}})],
                    config=generate)
    results = EvalResults(total_samples=len(exported), completed_samples=sum(1 for s in samples if s.stage == "judged"),
                          scores=[EvalScore(name=benchmark, scorer=benchmark, scored_samples=len(scored),
                                            unscored_samples=len(exported) - len(scored),
                                            metrics={"accuracy": EvalMetric(name="accuracy",
                                                                            value=correct / len(scored) if scored else 0.0)})])
    prompt = sum(s.prompt_tokens for s in samples)
    completion = sum(s.completion_tokens for s in samples)
    stats = EvalStats(started_at=created, completed_at=_iso(experiment.get("updated_at")),
                      model_usage={model: ModelUsage(input_tokens=prompt, output_tokens=completion,
                                                     total_tokens=prompt + completion)} if prompt + completion else {})
    status = _STATUS.get(experiment.get("status") or "", "started")
    failed = sum(1 for s in samples if s.stage != "judged" and s.error)
    error = EvalError(message=f"{failed} samples failed for good (endpoint errors); evalui resumes them",
                      traceback="", traceback_ansi="") if status == "error" else None
    return EvalLog(status=status, eval=spec_log, plan=plan, results=results, stats=stats, samples=exported, error=error)


def export_inspect(store, exp_id: str, out: str | Path | None = None) -> dict:
    """Write run ``exp_id`` as an Inspect log; ``out`` ends in .eval (default) or .json."""
    require_inspect()
    from inspect_ai.log import write_eval_log

    from evalui.config import runs_dir
    from evalui.viewer.findings import run_findings

    experiment = store.experiment(exp_id)
    if experiment is None:
        raise UnknownRun(f"no stored run {exp_id!r}")
    path = Path(out) if out else Path(experiment.get("out_dir") or runs_dir() / exp_id) / f"{exp_id}.eval"
    if path.suffix not in FORMATS:
        raise ValueError(f"{path.name}: an Inspect log ends in .eval or .json")
    path.parent.mkdir(parents=True, exist_ok=True)
    samples = store.samples(exp_id)
    check_verdicts(exp_id, samples)
    log = eval_log(experiment, samples, run_findings(store, experiment, samples))
    write_eval_log(log, str(path), format=FORMATS[path.suffix])
    scored = log.results.scores[0].scored_samples if log.results and log.results.scores else 0
    return {"exp_id": exp_id, "benchmark": experiment["benchmark"], "out": str(path), "format": FORMATS[path.suffix],
            "samples": len(samples), "scored": scored, "status": log.status}
