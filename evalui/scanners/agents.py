"""Scanners of what an agent did: tools that failed for the environment, loops, the step limit."""

from __future__ import annotations

from collections import Counter

from evalui.scanners.base import (
    INVALID,
    WARNING,
    ScanContext,
    canonical_arguments,
    excerpt,
    failed,
    finding,
    judged,
    steps_of,
    verdict_of,
)

# Tool errors that are the environment's: a call or its worker past the deadline or dead (BFCL's
# isolated backends), the web that did not answer, the task's attachment missing. Errors the
# model caused (bad arguments, an unknown tool, a refused call, its program's own exit code or a
# backend's exception at its arguments) are its answer, and are not reported here.
ENVIRONMENT_TOOL_ERRORS = frozenset({"call_timeout", "execution_failed", "web_unavailable"})
# GAIA's files tool says no_file both for a task without an attachment (the model asked for nothing
# there) and for an attachment that is missing (the environment's): only the second counts.
# The sandbox stopped or timed out the model's program: its code may loop forever, or the machine
# may have been too busy. Reported as a warning, never as invalid.
PROGRAM_STOPPED = frozenset({"timeout", "stopped"})
WEB_TOOLS = ("web_", "fetch", "search")


def _tool_errors(sample) -> list[tuple[int, str, str]]:
    """(step, tool, error) of every tool result that carries an error."""
    found = []
    for index, step in enumerate(steps_of(sample)):
        for result in step.get("tool_results") or []:
            if isinstance(result, dict) and result.get("error"):
                found.append((index, str(result.get("name") or "?"), str(result["error"])))
    return found


def tool_error(sample, context: ScanContext) -> list[dict]:
    """A tool that crashed or timed out. ``invalid`` when the environment failed (the call's worker
    timed out or died, the web was unavailable or a page timed out, the attachment was missing) and the
    sample then failed: the model was denied what the task promised. ``warning`` when the sandbox
    stopped the model's own program (its code may be at fault), or when the sample passed anyway."""
    if not judged(sample):
        return []
    environment, stopped = [], []
    has_attachment = bool((getattr(sample, "payload", None) or {}).get("file_name"))
    for index, tool, error in _tool_errors(sample):
        if error in ENVIRONMENT_TOOL_ERRORS or (error == "timeout" and tool.startswith(WEB_TOOLS)) \
                or (error == "no_file" and has_attachment):
            environment.append((index, tool, error))
        elif error in PROGRAM_STOPPED:
            stopped.append((index, tool, error))
    if environment:
        index, tool, error = environment[0]
        severity = INVALID if failed(sample) else WARNING
        more = f" (and {len(environment) - 1} more)" if len(environment) > 1 else ""
        return [finding(severity, f"the tool {excerpt(tool, 60)} failed: {error}{more}", index)]
    if stopped:
        index, tool, error = stopped[0]
        return [finding(WARNING, f"the sandbox stopped the model's program in {excerpt(tool, 60)}: {error}", index)]
    return []


LOOP_REPEATS = 3  # the same failing call this many times is a loop, not a retry


def _call_identity(step: dict, position: int, result: dict) -> str:
    calls = step.get("tool_calls") or []
    if position < len(calls) and isinstance(calls[position], dict):
        call = calls[position]
        return f"{call.get('name')}({canonical_arguments(call.get('arguments'))})"
    return str(result.get("name") or "?")  # prompt mode: the result names the decoded call with its arguments


def _failing(result: dict) -> bool:
    content = result.get("content")
    return bool(result.get("error")) or (isinstance(content, str) and content.lstrip().lower().startswith("error"))


def loop(sample, context: ScanContext) -> list[dict]:
    """``warning``: the same call (same tool, same arguments) failed three times or more in one sample.
    Repeating what just failed is the model's own loop, so the verdict stands; it explains a failure
    (and the step limit it often runs into) without saying the sample is broken."""
    if not judged(sample):
        return []
    seen: Counter = Counter()
    for index, step in enumerate(steps_of(sample)):
        for position, result in enumerate(step.get("tool_results") or []):
            if not isinstance(result, dict) or not _failing(result):
                continue
            identity = _call_identity(step, position, result)
            seen[identity] += 1
            if seen[identity] == LOOP_REPEATS:
                return [finding(WARNING, f"the same failing call {LOOP_REPEATS} times: {excerpt(identity, 100)}",
                                index)]
    return []


# Verdicts that mean the run stopped the sample: BFCL's official step limit (force_terminated) and
# evalui's caps on one step or one sample (too_many_calls, too_large, too_slow).
STOPPED_VERDICTS = ("force_terminated", "too_many_calls", "too_large", "too_slow")
STEP_LIMIT_NOTES = ("step limit", "force-terminated")


def step_limit(sample, context: ScanContext) -> list[dict]:
    """``warning``: the sample was stopped by a limit: BFCL's official step limit per turn
    (force-terminated), the GAIA agent's max_steps, or evalui's caps on calls and characters. The
    limit is a stated rule of the run, the same for every model, and reaching it almost always
    means the model looped or flooded; the official scorers count it as a failure, so it stands."""
    if not judged(sample):
        return []
    verdict = verdict_of(sample)
    response = getattr(sample, "response", None)
    response = response if isinstance(response, dict) else {}
    steps = steps_of(sample)
    kind = next((k for k in STOPPED_VERDICTS if verdict.get("error_type") == k), None)
    if kind is None and (verdict.get("force_terminated") or response.get("force_terminated")):
        kind = "force_terminated"
    if kind is None and response.get("limit_exceeded"):
        kind = str(response["limit_exceeded"])
    noted = next((i for i in range(len(steps) - 1, -1, -1)
                  if any(n in str(steps[i].get("note") or "").lower() for n in STEP_LIMIT_NOTES)), None)
    if kind is None and noted is None:
        return []
    step = noted if noted is not None else (len(steps) - 1 if steps else None)
    what = kind or "the step limit"
    note = excerpt(steps[step].get("note") or "", 100) if step is not None else ""
    return [finding(WARNING, f"stopped by {what}" + (f": {note}" if note else ""), step)]
