"""The vocabulary of the corrected judge figures (``evalui.stats.calibration``): an ``Estimate``
with its interval, a ``Figure`` that gives one quantity three ways, the flags that say why a figure
has no value, and the checks of the values every estimator takes. Pure, no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

MIN_LABELS = 10
BOOTSTRAP_RESAMPLES = 2000

TOO_FEW_LABELS = "too_few_labels"
UNINFORMATIVE_JUDGE = "uninformative_judge"
NO_POSITIVE_LABELS = "no_positive_labels"
NO_NEGATIVE_LABELS = "no_negative_labels"
JUDGE_CONSTANT = "judge_constant"
JUDGE_IGNORED = "judge_ignored"
CLIPPED = "clipped"
NO_ITEMS = "no_items"

# Why a figure cannot be given: each cause is a code with its fields ({"code": ..., **fields}), kept in
# the estimate's details as "causes" so that a front end can say it in its own language, and said here
# in English as the estimate's reason.
CAUSE_TEXTS: dict[str, str] = {
    "too_few_labels": "{n} labelled items; the correction needs at least {needed}",
    "no_positive_labels": "no labelled item passes by the human verdict, so the judge's sensitivity is unknown",
    "no_negative_labels": "no labelled item fails by the human verdict, so the judge's specificity is unknown",
    "uninformative_judge": ("the judge's sensitivity + specificity is {sum}, not above 1: its verdicts say nothing "
                            "about the human verdict, so they cannot be corrected"),
    "no_usable_resample": "no bootstrap resample had a usable judge",
    "no_unlabelled_items": "no unlabelled items: the human-only figure is the whole answer",
    "no_items": "no items",
    "no_judged_items": "no judged items",
    "no_labelled_items": "no labelled items",
}


def cause(code: str, **fields) -> dict:
    """One reason a figure cannot be given (a code of CAUSE_TEXTS and the fields its text names)."""
    return {"code": code, **fields}


# What the functions take as values: a sequence of numbers, or an array of them.
Values = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Estimate:
    """One figure with its 95 % interval. ``value`` is None when it cannot be given; ``reason`` says why."""

    method: str  # judge_only, human_only, rogan_gladen or ppi++
    value: float | None
    low: float | None
    high: float | None
    se: float | None
    n_labelled: int
    n_unlabelled: int
    interval: str = ""  # how the interval was made: wilson, normal, delta or bootstrap
    flags: tuple[str, ...] = ()
    reason: str | None = None
    details: dict = field(default_factory=dict)

    @property
    def width(self) -> float | None:
        return None if self.low is None or self.high is None else self.high - self.low

    def as_dict(self) -> dict:
        return {**asdict(self), "flags": list(self.flags), "width": self.width}


@dataclass(frozen=True)
class Figure:
    """A quantity three ways, side by side; ``estimate`` names the one to report."""

    naive: Estimate
    human_only: Estimate
    corrected: Estimate
    estimate: str  # corrected, human_only or naive

    @property
    def chosen(self) -> Estimate:
        return getattr(self, self.estimate)

    @property
    def flags(self) -> tuple[str, ...]:
        return self.corrected.flags

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "naive": self.naive.as_dict(), "human_only": self.human_only.as_dict(),
                "corrected": self.corrected.as_dict(), "flags": list(self.flags)}


def as_values(values: Values, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be finite numbers")
    return array


def as_binary(values: Values, what: str) -> np.ndarray:
    array = as_values(values, what)
    if not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{what} must be 0 or 1 (fail or pass)")
    return array


def paired(human: np.ndarray, judge: np.ndarray) -> None:
    if len(human) != len(judge):
        raise ValueError(f"human and judge must label the same items: {len(human)} and {len(judge)} values")


def scaled_weights(weights: Values | None, n: int, what: str = "weights") -> np.ndarray:
    """Weights scaled to a mean of 1 (ones without weights): only their ratios mean anything."""
    if weights is None:
        return np.ones(n)
    array = as_values(weights, what)
    if len(array) != n:
        raise ValueError(f"{what} needs one value per item: {len(array)} for {n}")
    if n and (np.any(array <= 0)):
        raise ValueError(f"{what} must be positive")
    return array / array.mean() if n else array


def normal_interval(value: float, se: float, z: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    low, high = value - z * se, value + z * se
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return low, high


def empty(method: str, n: int, nu: int, causes: list[dict], flags: tuple[str, ...], details: dict | None = None,
           interval: str = "") -> Estimate:
    """A figure that cannot be given, for ``causes`` (each made by ``cause``)."""
    reason = "; ".join(CAUSE_TEXTS[c["code"]].format(**c) for c in causes)
    return Estimate(method, None, None, None, None, n, nu, interval, flags, reason, {**(details or {}), "causes": causes})


def coverage(z: float) -> float:
    """The two-sided coverage of a normal interval of ``z`` standard errors (0.95 for 1.96)."""
    return math.erf(z / math.sqrt(2))
