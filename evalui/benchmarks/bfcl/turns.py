"""A multi-turn sample, turn by turn: the user's message, each step's calls and their results, the
gold calls of the turn, and where the state differs from the gold state."""

from __future__ import annotations

from evalui.benchmarks.bfcl.calls import TURN
from evalui.reports.markdown import inert, table

TEXT_LIMIT = 1_500


def _user_text(step: dict) -> str:
    return next((m.get("content") or "" for m in reversed(step.get("messages") or []) if m.get("role") == "user"), "")


def turns_of(sample, entry) -> list[dict]:
    """Per turn: ``{"index", "user", "steps": [{"text", "calls", "results", "note"}], "gold", "differences"}``."""
    response = sample.response if isinstance(sample.response, dict) else {}
    trajectory = sample.trajectory or []
    step_turns = response.get("step_turns") or []
    verdict = sample.verdict or {}
    turns = []
    for index, question in enumerate(entry.question):
        steps = [trajectory[i] for i, turn in enumerate(step_turns) if turn == index and i < len(trajectory)]
        user = _user_text(steps[0]) if steps else next(
            (m.get("content", "") for m in reversed(question) if m.get("role") == "user"), "")
        turns.append({
            "index": index,
            "user": user,
            "steps": [{"text": step.get("text") or "",
                       "calls": [f"{c.get('name', '')}({c.get('arguments', '')})" for c in step.get("tool_calls") or []],
                       "results": [{"call": r.get("name", ""), "content": r.get("content", ""), "error": r.get("error", "")}
                                   for r in step.get("tool_results") or []],
                       "note": step.get("note") or ""} for step in steps],
            "gold": list(entry.possible_answer[index]) if index < len(entry.possible_answer or []) else [],
            "differences": verdict.get("state_differences") or {} if verdict.get("failed_turn") == index else {},
        })
    return turns


def turns_markdown(sample, entry) -> str:
    """The per-turn view as Markdown; every piece of model or dataset text is escaped."""
    verdict = sample.verdict or {}
    head = "✅ correct" if sample.correct else f"❌ {inert(verdict.get('error_type') or sample.error or sample.stage)}"
    lines = [f"### {inert(sample.sample_id)} — {head}", ""]
    if verdict.get("error"):
        lines += [f"> {inert(verdict['error'], TEXT_LIMIT)}", ""]
    for turn in turns_of(sample, entry):
        failed = " (the check failed here)" if verdict.get("failed_turn") == turn["index"] else ""
        # Turns and steps from 1, as every other view numbers them (TURN).
        lines += [f"#### {TURN.format(n=turn['index'] + 1)}{failed}", "", f"**User:** {inert(turn['user'], TEXT_LIMIT)}",
                  ""]
        for number, step in enumerate(turn["steps"], start=1):
            lines.append(f"- **Step {number}**: " + (inert(step["text"], TEXT_LIMIT) if step["text"] else "")
                         + (f" · _{inert(step['note'])}_" if step["note"] else ""))
            for call in step["calls"]:
                lines.append(f"  - call: {inert(call, TEXT_LIMIT)}")
            for result in step["results"]:
                flag = " ⛔" if result["error"] == "refused" else ""
                lines.append(f"  - result{flag}: {inert(result['content'], TEXT_LIMIT)}")
        # Escaped text, not code spans: a code span would show the escapes themselves.
        gold = "; ".join(inert(call) for call in turn["gold"]) or "_no call: the model should ask or decline_"
        lines += ["", f"**Gold calls:** {gold}", ""]
        for class_name, attributes in turn["differences"].items():
            lines += [f"**State differs in {inert(class_name)}:**", "",
                      table(["attribute", "model", "gold"],
                            [[name, values["model"], values["ground_truth"]] for name, values in attributes.items()]), ""]
    return "\n".join(lines)


def stored_sample_turns(store, exp_id: str | None, sample_id: str | None) -> str:
    """The per-turn view of one stored sample, or a line saying why there is none."""
    from evalui.benchmarks.bfcl.data import stored_entry
    from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES

    sample_id = (sample_id or "").strip()
    if not exp_id or not sample_id:
        return "Choose a run, then a multi-turn sample by its id."
    sample = next((s for s in store.samples(exp_id) if s.sample_id == sample_id), None)
    if sample is None:
        return f"No sample {inert(sample_id)} in run {inert(exp_id)}."
    if sample.group not in MULTI_TURN_CATEGORIES:
        return f"{inert(sample_id)} is a single-turn sample: its call and verdict are in the viewer."
    entry = stored_entry(sample)
    if entry is None:
        return f"BFCL's {inert(sample.group)} data has no entry {inert(sample.sample_id)}."
    return turns_markdown(sample, entry)
