"""A stored run as an Inspect AI eval log (``.eval`` or ``.json``), built with inspect_ai's own types
and written with its ``write_eval_log``, so Inspect's reader and viewer open it.

inspect_ai is optional: without it the export says how to install it. Each evalui sample becomes
one EvalSample: its id and epoch (``<id>#e<k>`` is epoch k), the input messages, the whole
conversation from the trajectory (replies, tool calls, tool results), the target where the
benchmark has one, the verdict as a Score (C or I, the checker's reason as its explanation, the
verdict in its metadata) and the tokens as model usage. A sample whose call failed for good has
no score and carries the endpoint's error.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from evalui.engine.record import SampleRecord, StepRecord
from evalui.runs.inspect_messages import content, conversation, message
from evalui.runs.stored_checks import check_verdicts
from evalui.stats.epochs import split_epoch

INSTALL_HINT = "pip install inspect_ai (it is in evalui's test extra: pip install -e '.[test]')"
FORMATS = {".eval": "eval", ".json": "json"}
_GOLD_KEYS = ("final_answer", "answer", "target", "expected", "gold", "truth")
_HIDDEN_ANSWERS = ("?",)  # GAIA's test split
# Where the run's own words for the question are, for a sample stored without messages.
_QUESTION_KEYS = ("question", "Question", "problem", "prompt")


class UnknownRun(ValueError):
    pass


def require_inspect() -> None:
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        raise RuntimeError(f"the Inspect export needs inspect_ai, which is not installed: {INSTALL_HINT}") from None


def _iso(timestamp: float | None) -> str:
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc) if timestamp else datetime.now(timezone.utc)
    return moment.isoformat()


def _bfcl_target(group: str, sample_id: str, cache: dict) -> str:
    if group not in cache:
        try:
            from evalui.benchmarks.bfcl.data import entries_by_id

            cache[group] = entries_by_id(group)
        except (KeyError, ValueError, OSError, ImportError):  # a category this evalui cannot load
            cache[group] = {}
    entry = cache[group].get(sample_id)
    answer = getattr(entry, "possible_answer", None)
    return "" if answer is None else json.dumps(answer, ensure_ascii=False)  # relevance categories have none


def target_of(benchmark: str, sample, cache: dict) -> str:
    """The answer the scorer held the sample to; "" when the benchmark has none (or hides it)."""
    base_id = split_epoch(sample.sample_id)[0]
    if benchmark == "bfcl":
        return _bfcl_target(sample.group, base_id, cache)
    if benchmark in ("aime-generate", "aime-winrate"):
        return ""  # no answer to hold them to: a generator's output and a preference
    payload = sample.payload or {}
    for key in _GOLD_KEYS:
        value = payload.get(key)
        if value not in (None, "") and value not in _HIDDEN_ANSWERS:
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return ""


def dataset_name(experiment: dict) -> str:
    """What the run read, by name (file names, never a server's folders)."""
    options = (experiment.get("config") or {}).get("options") or {}
    benchmark = experiment["benchmark"]
    if benchmark == "bfcl":
        return "BFCL v4: " + ", ".join(options.get("categories") or [])
    if benchmark == "gaia":
        kind, _, where = str(options.get("source") or "sample").partition(":")
        return f"GAIA {kind}" + (f": {Path(where.split('@')[0]).name}" if where else "")
    if options.get("input"):
        return Path(str(options["input"])).name
    return benchmark


def _input(record: SampleRecord, sample) -> list | str:
    steps = record.trajectory or []
    if steps and steps[0].messages:
        return [message(m, {}) for m in steps[0].messages]
    request = sample.request if isinstance(sample.request, dict) else {}
    if isinstance(request.get("messages"), list) and request["messages"]:
        return [message(m, {}) for m in request["messages"]]
    for key in _QUESTION_KEYS:
        if isinstance((sample.payload or {}).get(key), str):
            return sample.payload[key]
    return record.id


def _answer(prediction) -> str | None:
    if prediction is None:
        return None
    return prediction if isinstance(prediction, str) else json.dumps(prediction, ensure_ascii=False, default=str)


def eval_sample(benchmark: str, model: str, sample, cache: dict):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    record = SampleRecord.of(sample)
    base_id, epoch = split_epoch(record.id)
    steps: list[StepRecord] = record.trajectory or []
    prompt = _input(record, sample)
    messages = conversation(steps, model)
    if not (steps and steps[0].messages):  # the input is not in the trajectory: it opens the conversation
        messages = ([ChatMessageUser(content=content(prompt))] if isinstance(prompt, str) else list(prompt)) + messages
    usage = ModelUsage(input_tokens=record.prompt_tokens, output_tokens=record.completion_tokens,
                       total_tokens=record.prompt_tokens + record.completion_tokens)
    replies = [m for m in messages if isinstance(m, ChatMessageAssistant)]
    output = ModelOutput(model=model)
    if replies:
        output = ModelOutput.from_message(replies[-1], stop_reason="tool_calls" if replies[-1].tool_calls else "stop")
        output.model = model
    if usage.total_tokens:
        output.usage = usage
    scores = None
    if record.score is not None:
        verdict = sample.verdict or {}
        scores = {benchmark: Score(value=record.score.value, answer=_answer(record.prediction),
                                   explanation=record.score.explanation,
                                   metadata={"error_type": record.score.error_type, "verdict": verdict,
                                             "scorer": record.score.scorer, **(record.score.metadata or {})})}
    error = None
    if record.stage != "judged" and record.error:
        error = EvalError(message=record.error, traceback="", traceback_ansi="")
    metadata = {"group": record.group, "stage": record.stage, "evalui_id": record.id, "attempts": sample.attempts,
                "steps": record.steps}
    if record.stage == "judged" and record.score is None:
        metadata["unscored"] = True  # e.g. a hidden answer: judged, but left out of the scores
    return EvalSample(id=base_id, epoch=epoch, input=prompt, target=target_of(benchmark, sample, cache),
                      messages=messages, output=output, scores=scores, metadata=metadata,
                      model_usage={model: usage} if usage.total_tokens else {}, total_time=record.latency_s,
                      error=error)


_STATUS = {"finished": "success", "cancelled": "cancelled", "incomplete": "error", "failed": "error"}


def eval_log(experiment: dict, samples: list):
    """The EvalLog of a stored run (``experiment`` as RunStore.experiment returns it)."""
    from inspect_ai.log import (EvalConfig, EvalDataset, EvalError, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec,
                                EvalStats)
    from inspect_ai.model import ModelUsage

    from evalui.engine.lifecycle import git_revision

    benchmark, model = experiment["benchmark"], experiment.get("model") or "none"
    config = experiment.get("config") or {}
    cache: dict = {}
    exported = [eval_sample(benchmark, model, s, cache) for s in samples]
    ids = list(dict.fromkeys(s.id for s in exported))
    scored = [s.scores[benchmark] for s in exported if s.scores]
    correct = sum(1 for score in scored if score.value == "C")
    created = _iso(experiment.get("created_at"))
    spec = EvalSpec(eval_id=experiment["exp_id"], run_id=experiment["exp_id"], created=created, task=benchmark,
                    task_args=config.get("options") or {}, model=model,
                    dataset=EvalDataset(name=dataset_name(experiment), samples=len(ids), sample_ids=ids),
                    config=EvalConfig(epochs=int(config.get("epochs") or 1)),
                    metadata={"evalui": {"exp_id": experiment["exp_id"], "status": experiment.get("status"),
                                         "endpoint_host": experiment.get("endpoint_host"),
                                         "git_revision": git_revision()}})
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
    return EvalLog(status=status, eval=spec, results=results, stats=stats, samples=exported, error=error)


def export_inspect(store, exp_id: str, out: str | Path | None = None) -> dict:
    """Write run ``exp_id`` as an Inspect log; ``out`` ends in .eval (default) or .json."""
    require_inspect()
    from inspect_ai.log import write_eval_log

    from evalui.config import runs_dir

    experiment = store.experiment(exp_id)
    if experiment is None:
        raise UnknownRun(f"no stored run {exp_id!r}")
    path = Path(out) if out else Path(experiment.get("out_dir") or runs_dir() / exp_id) / f"{exp_id}.eval"
    if path.suffix not in FORMATS:
        raise ValueError(f"{path.name}: an Inspect log ends in .eval or .json")
    path.parent.mkdir(parents=True, exist_ok=True)
    samples = store.samples(exp_id)
    check_verdicts(exp_id, samples)
    log = eval_log(experiment, samples)
    write_eval_log(log, str(path), format=FORMATS[path.suffix])
    scored = log.results.scores[0].scored_samples if log.results and log.results.scores else 0
    return {"exp_id": exp_id, "benchmark": experiment["benchmark"], "out": str(path), "format": FORMATS[path.suffix],
            "samples": len(samples), "scored": scored, "status": log.status}
