"""A stored sample as the events of an Inspect AI transcript, made with inspect_ai's own event types.

Inspect View opens a sample on its Transcript, which lists events, not messages: a sample with
no events shows an empty page. A sample's events are laid out as Inspect's own runner lays them
out: an ``init`` span with the sample, a ``solvers`` span holding one model event per stored step
(the conversation it was sent, its reply, tokens and retries) and a ``tool`` span per tool call
with its result or error, then a ``scorers`` span with the score, and an error event for a sample
whose call failed for good.

evalui stores each call's latency, not its clock time: a call is placed at the sample's start
plus the latencies of the calls before it, so the order is exact and the times are close (time
spent in tools is not recorded per call).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from evalui.export.inspect_messages import Turn

# OpenAI's finish_reason as Inspect's stop reason; an unrecorded one (older records) is "unknown".
_STOP_REASONS = {"stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls", "function_call": "tool_calls",
                 "content_filter": "content_filter"}
SOURCE = "evalui"


@dataclass
class SampleFacts:
    """What the events of one sample are made from, besides its turns."""

    model: str  # the Inspect model name (provider/model)
    task: str
    inspect_sample: object  # inspect_ai.dataset.Sample: its id, input and target
    config: object  # GenerateConfig as sent
    tools: list  # ToolInfo offered to the model
    steps: list  # the stored steps (evalui.core.record.StepRecord), one per turn
    started: float | None  # the sample's start (epoch seconds), when known
    scores: dict  # scorer name -> Score
    target: str
    error: object = None  # EvalError
    opening: list = field(default_factory=list)  # the messages that opened the conversation, when no step holds them


def _new_id() -> str:
    return uuid.uuid4().hex[:22]


class _Clock:
    def __init__(self, started: float | None):
        self.start = datetime.fromtimestamp(started, tz=UTC) if started else datetime.now(UTC)
        self.elapsed = 0.0

    def at(self) -> dict:
        return {"timestamp": self.start + timedelta(seconds=self.elapsed), "working_start": self.elapsed}


def stop_reason(finish_reason: str) -> str:
    return _STOP_REASONS.get(finish_reason, "unknown")


def _output(model: str, turn: Turn, step):
    from inspect_ai.model import ModelOutput, ModelUsage

    output = ModelOutput.from_message(turn.reply, stop_reason=stop_reason(step.finish_reason))
    output.model = model
    if step.prompt_tokens or step.completion_tokens:
        output.usage = ModelUsage(input_tokens=step.prompt_tokens, output_tokens=step.completion_tokens,
                                  total_tokens=step.prompt_tokens + step.completion_tokens)
    output.time = step.latency_s
    return output


def _model_events(facts: SampleFacts, turns: list[Turn], clock: _Clock, span: str) -> list:
    from inspect_ai.event import InfoEvent, ModelEvent, SpanBeginEvent, SpanEndEvent, ToolEvent

    events: list = []
    sent: list = []
    for index, (turn, step) in enumerate(zip(turns, facts.steps)):
        # The conversation the call was sent: a fresh one starts over; a continued one is the last
        # call's input, its reply, and what this step added (tool results, the next user turn).
        if index == 0:
            sent = [*facts.opening, *turn.added]
        else:
            sent = list(turn.added) if turn.fresh else [*sent, turns[index - 1].reply, *turn.added]
        at = clock.at()
        events.append(ModelEvent(
            uuid=_new_id(), span_id=span, **at, model=facts.model, input=list(sent), tools=facts.tools,
            tool_choice="auto" if facts.tools else "none", config=facts.config,
            output=_output(facts.model, turn, step), retries=max(0, step.attempts - 1),
            completed=at["timestamp"] + timedelta(seconds=step.latency_s), working_time=step.latency_s))
        clock.elapsed += step.latency_s
        if step.note:  # the task did not accept the reply, and said why
            events.append(InfoEvent(uuid=_new_id(), span_id=span, **clock.at(), source=SOURCE,
                                    data=f"reply not accepted: {step.note}"))
        for call, result in turn.results:
            tool_span = _new_id()
            events += [
                SpanBeginEvent(uuid=_new_id(), span_id=tool_span, **clock.at(), id=tool_span, parent_id=span,
                               type="tool", name=call.function),
                ToolEvent(uuid=_new_id(), span_id=tool_span, **clock.at(), id=call.id, function=call.function,
                          arguments=call.arguments, result=result.content, error=result.error,
                          failed=True if result.error else None, message_id=result.id),
                SpanEndEvent(uuid=_new_id(), span_id=tool_span, **clock.at(), id=tool_span)]
    return events


def sample_events(facts: SampleFacts, turns: list[Turn]) -> list:
    """The sample's transcript, as Inspect's runner would have written it."""
    from inspect_ai.event import ErrorEvent, SampleInitEvent, ScoreEvent, SpanBeginEvent, SpanEndEvent

    clock = _Clock(facts.started)

    def span(name: str, kind: str, parent: str | None = None) -> tuple[str, object]:
        span_id = _new_id()
        return span_id, SpanBeginEvent(uuid=_new_id(), span_id=span_id, **clock.at(), id=span_id, parent_id=parent,
                                       type=kind, name=name)

    def end(span_id: str):
        return SpanEndEvent(uuid=_new_id(), span_id=span_id, **clock.at(), id=span_id)

    init, begin = span("init", "init")
    events = [begin, SampleInitEvent(uuid=_new_id(), span_id=init, **clock.at(), sample=facts.inspect_sample),
              end(init)]
    solvers, begin = span("solvers", "solvers")
    solver, solver_begin = span(facts.task, "solver", solvers)
    events += [begin, solver_begin, *_model_events(facts, turns, clock, solver), end(solver), end(solvers)]
    if facts.scores:
        scorers, begin = span("scorers", "scorers")
        events.append(begin)
        for name, score in facts.scores.items():
            scorer, scorer_begin = span(name, "scorer", scorers)
            events += [scorer_begin, ScoreEvent(uuid=_new_id(), span_id=scorer, **clock.at(), score=score,
                                                target=facts.target, scorer=name), end(scorer)]
        events.append(end(scorers))
    if facts.error is not None:
        events.append(ErrorEvent(uuid=_new_id(), **clock.at(), error=facts.error))
    return events
