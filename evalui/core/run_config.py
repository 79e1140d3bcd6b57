"""A run's stored configuration, typed: what ``prepare`` registered and a resume reuses.

The store keeps it as JSON in the run's row (``experiments.config``); code reads it through this
model rather than by key, so a misspelt key is an error and not a silent None. Keys a benchmark adds
of its own (its ``check``'s notes, such as AIME's reference label) are kept as extra fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    options: dict[str, Any] = Field(default_factory=dict, description="the benchmark's options, as stored values")
    endpoint: dict[str, Any] | None = Field(None, description="the endpoint's public settings (never its key)")
    concurrency: int | None = None
    requests_per_minute: float | None = None
    out: str | None = Field(None, description="the folder the run's files go to; None: its own folder under runs/")
    pricing: dict[str, Any] | None = Field(None, description="the price the run is costed at (evalui.run.pricing)")
    max_cost_usd: float | None = Field(None, description="the budget: the run stops once its cost reaches it")
    epochs: int | None = Field(None, description="how many times each sample is asked (None: once)")

    @classmethod
    def of(cls, experiment: dict | None) -> RunConfig:
        """The config of a stored run (the store's experiment row), or of none."""
        return cls.model_validate((experiment or {}).get("config") or {})

    def extra(self, key: str, default: Any = None) -> Any:
        """A key the benchmark added (its check's notes)."""
        return (self.model_extra or {}).get(key, default)

    def dump(self) -> dict[str, Any]:
        """As the store keeps it: the keys that were set, the benchmark's own too."""
        return self.model_dump(exclude_unset=True)
