"""How much the GAIA tool agent's model may ask for: calls and characters per step and per sample.

A reply is hostile input. Without caps, 3,000 calls in one step were each run and answered, and
forty calls of 45,000 characters grew one sample to a gigabyte in memory. Past a cap the sample
stops at that step with ``too_many_calls`` or ``too_large``; the step is stored as a short note and
a preview, never the flood. The variables are the engine's (evalui.run.step_limits) with
defaults sized for GAIA: its agents make one to three calls per step, each tool's result is cut
at about 20,000 characters, and a task has at most a few dozen steps.
"""

from __future__ import annotations

from evalui.run.step_limits import SampleBudget, StepLimits

CALLS_PER_STEP = 16  # each call may run a program for the tool timeout: 16 x 30 s is already 8 minutes
STEP_CHARS = 256 * 1024  # the model's reply: its text and its calls' names and arguments
SAMPLE_CHARS = 2 * 1024 * 1024  # every reply and every tool result of one sample
NOTE_CHARS = 200


def gaia_limits() -> StepLimits:
    return StepLimits.from_env(CALLS_PER_STEP, STEP_CHARS, SAMPLE_CHARS)


class AgentBudget(SampleBudget):
    """One sample's running total, checked at each reply and each step's tool results."""

    def __init__(self, limits: StepLimits | None = None):
        super().__init__(limits or gaia_limits())

    def check_reply(self, text: str | None, calls: list) -> None:
        """The reply's size (text and native calls), before anything in it is parsed or run."""
        self.check(text, calls)

    def add_results(self, results: list) -> None:
        self.add(sum(len(r.content or "") for r in results), "replies and tool results")


def shrink_results(step, message: str) -> None:
    """Keep a preview of each tool result of a step that went past the sample's cap."""
    step.tool_results = [{**r, "content": str(r.get("content", ""))[:NOTE_CHARS] + "… [not stored]"}
                         for r in step.tool_results]
    step.note = message
