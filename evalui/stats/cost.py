"""What a run cost, from its tokens and a price per million tokens; and which runs are worth it.

Pure figures: the price comes in (evalui.run.pricing finds it), nothing is read or stored here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

PER_MILLION = 1_000_000


def tokens_cost(prompt_tokens: int, completion_tokens: int, input_per_m: float, output_per_m: float) -> float:
    """USD for these tokens at these prices (USD per million input and output tokens).

    A negative count costs nothing: replies are checked (evalui.endpoint.completion), but a store
    written before they were may hold one, and it must not make a run look cheaper than it was."""
    return (max(prompt_tokens, 0) * input_per_m + max(completion_tokens, 0) * output_per_m) / PER_MILLION


def cost_figures(samples: Iterable[tuple[int, int, bool]], input_per_m: float, output_per_m: float) -> dict:
    """A run's cost from its samples' (prompt tokens, completion tokens, correct): the total, per
    sample that was asked (tokens above zero) and per correct answer. Every token a sample spent
    counts, failed attempts included: they were billed too."""
    prompt = completion = asked = correct = 0
    for prompt_tokens, completion_tokens, is_correct in samples:
        prompt_tokens, completion_tokens = max(prompt_tokens, 0), max(completion_tokens, 0)  # as tokens_cost
        prompt += prompt_tokens
        completion += completion_tokens
        asked += 1 if prompt_tokens or completion_tokens else 0
        correct += 1 if is_correct else 0
    usd = tokens_cost(prompt, completion, input_per_m, output_per_m)
    return {"usd": usd, "per_sample_usd": usd / asked if asked else None,
            "per_correct_usd": usd / correct if correct else None,
            "input_tokens": prompt, "output_tokens": completion, "samples_billed": asked, "correct": correct}


def estimate_total(spent_usd: float, answered: int, total: int) -> float | None:
    """The whole run's cost if the samples not yet answered cost what the answered ones did on average."""
    if answered <= 0:
        return None
    return spent_usd / answered * total


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points (cost, accuracy) that no other point beats: none is at most as dear
    and at least as accurate while better in one of the two. Sorted by cost, cheapest first.
    Equal points are all on the front (neither beats the other)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front: list[int] = []
    best = float("-inf")
    for index in order:
        cost, accuracy = points[index]
        if accuracy > best:
            front.append(index)
            best = accuracy
        elif accuracy == best and front and points[front[-1]] == (cost, accuracy):
            front.append(index)
    return front
