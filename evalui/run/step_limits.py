"""How much one model step, and one sample, may ask for: a reply is hostile input too.

A reply of 3,000 tool calls would otherwise have each run and answered (60,000 messages), and
forty calls of 45,000 characters each would grow a sample to a gigabyte. Past these caps the step
fails with ``too_many_calls`` or ``too_large``; it is stored as a short note and a preview, never
the flood itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalui.settings import read

PREVIEW_CHARS = 2_000


@dataclass(frozen=True)
class StepLimits:
    calls_per_step: int
    bytes_per_step: int
    bytes_per_sample: int

    @classmethod
    def from_env(cls, calls_per_step: int = 64, bytes_per_step: int = 256 * 1024,
                 bytes_per_sample: int = 4 * 1024 * 1024) -> StepLimits:
        """The operator's EVALUI_MAX_* values, else the benchmark's own defaults (BFCL's here)."""
        return cls(read("max_calls_per_step") or calls_per_step,
                   read("max_step_bytes") or bytes_per_step,
                   read("max_sample_bytes") or bytes_per_sample)


class StepLimitExceeded(ValueError):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def reply_size(text: str | None, calls: list) -> int:
    """Characters of a reply: its text, and each call's name and arguments."""
    size = len(text or "")
    for call in calls:
        size += len(str(getattr(call, "name", "") or "")) + len(str(getattr(call, "arguments", "") or ""))
    return size


class SampleBudget:
    """The running total of one sample's replies (and tool results), checked step by step."""

    def __init__(self, limits: StepLimits | None = None):
        self.limits = limits or StepLimits.from_env()
        self.used = 0

    def check(self, text: str | None, calls: list) -> None:
        """A reply's call count and size, before anything in it is parsed or run."""
        self.check_count(calls)
        size = reply_size(text, calls)
        if size > self.limits.bytes_per_step:
            raise StepLimitExceeded("too_large", f"too_large: the step's reply has {size:,} characters, more than "
                                                 f"the {self.limits.bytes_per_step:,} allowed; none of its calls was run")
        self.add(size, "replies")

    def check_count(self, calls: list) -> None:
        if len(calls) > self.limits.calls_per_step:
            raise StepLimitExceeded("too_many_calls", f"too_many_calls: the step has {len(calls):,} calls, more than "
                                                      f"the {self.limits.calls_per_step} allowed; none was run")

    def add(self, size: int, what: str = "replies") -> None:
        self.used += size
        if self.used > self.limits.bytes_per_sample:
            raise StepLimitExceeded("too_large", f"too_large: the sample's {what} reach {self.used:,} characters, "
                                                 f"more than the {self.limits.bytes_per_sample:,} allowed")


def shrink_step(step, message: str) -> None:
    """Keep a preview of an oversized step and say why, instead of the step itself."""
    text = step.text or ""
    step.text = text[:PREVIEW_CHARS] + (f"… [{len(text) - PREVIEW_CHARS:,} more characters not stored]"
                                        if len(text) > PREVIEW_CHARS else "")
    count = len(step.tool_calls)
    step.tool_calls = [{"name": str(c.get("name", ""))[:200], "arguments": str(c.get("arguments", ""))[:200]}
                       for c in step.tool_calls[:3]]
    if count > 3:
        step.tool_calls.append({"name": f"[{count - 3:,} more calls not stored]", "arguments": ""})
    step.note = message
