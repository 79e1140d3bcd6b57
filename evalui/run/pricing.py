"""A run's price and budget: which price per million tokens applies, what the run has spent, and
when it must stop asking.

The price of a run is found once, when it is prepared, and kept in its config (``pricing``):

1. prices given with the run (``--price-input/--price-output``, or the page's price fields), unless
   both are 0 or empty: that is no price, not a free model;
2. else the model's line in the file named by ``EVALUI_PRICES`` (``--prices FILE`` sets it);
3. else the model's line in the pinned, dated table shipped with evalui (``evalui/data/prices.json``);
4. else none: the run has no cost, and a budget is refused.

A budget (``max_cost_usd`` in the config) stops a run cleanly once its samples have spent it: no
new sample is started, the ones in flight finish and are stored, and the run's status is
``budget_spent``. It counts every sample of the run, from earlier sessions too, so a resume with a
higher budget goes on where the last one stopped.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from functools import cache
from pathlib import Path
from typing import Any

from evalui.core.run_config import RunConfig
from evalui.run.claims import Claims
from evalui.run.task import Task
from evalui.settings import read
from evalui.stats.cost import cost_figures, estimate_total, tokens_cost
from evalui.store.run_store import Sample

PRICES_ENV = "EVALUI_PRICES"
BUDGET_SPENT = "budget_spent"  # the status of a run its budget stopped
ESTIMATE_AFTER = 5  # answered samples before the whole run's cost is estimated
# The dearest price a run is costed at, USD per million tokens: thousands of times any list price,
# and low enough that with replies' counts bounded (evalui.endpoint.completion.MAX_REPLY_TOKENS) a
# reply costs at most 2e7 USD, so no run's cost comes near a float's infinity.
MAX_PRICE_PER_M = 1_000_000.0
_DATED = re.compile(r"[-@](\d{4}-\d{2}-\d{2}|\d{8})$")


def pinned_table() -> Path:
    return Path(__file__).resolve().parents[1] / "data" / "prices.json"


def model_key(model: str) -> str:
    """A model's name as price tables name it: no provider prefix (``openai/``), no dated snapshot
    suffix (``-2024-08-06``, ``-20250929``), lower case."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    return _DATED.sub("", name)


def load_prices(path: str | Path) -> dict:
    """A price file: ``{"as_of"?, "models": {name: {"input_per_m", "output_per_m", ...}}}`` (or
    the models mapping alone). ValueError says what is wrong with it."""
    path = Path(path)
    return _load(str(path.resolve()), path.stat().st_mtime_ns if path.exists() else 0)


@cache
def _load(path: str, _mtime: int) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"prices file {path}: {exc}") from None
    models = data.get("models", data) if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ValueError(f"prices file {path}: expected {{\"models\": {{name: {{input_per_m, output_per_m}}}}}}")
    table = {}
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ValueError(f"prices file {path}: {name!r} is not an object")
        for key in ("input_per_m", "output_per_m"):
            value = entry.get(key)
            # NaN and infinities (json reads both) fail the range too.
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_PRICE_PER_M:
                raise ValueError(f"prices file {path}: {name!r} needs {key}, a number of USD per million tokens "
                                 f"from 0 to {MAX_PRICE_PER_M:,.0f}")
        table[model_key(name)] = entry
    as_of = data.get("as_of") if isinstance(data, dict) and "models" in data else None
    return {"as_of": as_of, "models": table, "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest()}


def resolve(model: str, input_per_m: float | None = None, output_per_m: float | None = None) -> dict | None:
    """The price a run of ``model`` is costed at (see the module's doc), as stored in its config."""
    given = (_given_price(input_per_m, "input"), _given_price(output_per_m, "output"))
    # The page's price fields read 0 until typed in: a run costed at $0 would pass for free, sit at
    # the cheap end of every cost chart and never spend a budget. 0 beside a real price stays a price.
    if any(given):
        return {"input_per_m": given[0], "output_per_m": given[1], "priced_by": "run",
                "source": "prices given with the run"}
    key = model_key(model)
    named = read("prices")
    if named is not None:
        table = load_prices(named)
        if key in table["models"]:
            return _priced(table["models"][key], "file", key, file=named.name, file_sha256=table["sha256"],
                           table_as_of=table["as_of"])
    pinned = load_prices(pinned_table())
    if key in pinned["models"]:
        return _priced(pinned["models"][key], "table", key, table_as_of=pinned["as_of"])
    return None


def _given_price(value: float | None, side: str) -> float:
    """A price given with the run; ValueError for one no cost can be computed at (negative, NaN, …)."""
    price = float(value or 0.0)
    if not 0 <= price <= MAX_PRICE_PER_M:
        raise ValueError(f"the price per million {side} tokens must be from 0 to {MAX_PRICE_PER_M:,.0f} USD, "
                         f"not {value!r}")
    return price


def usable(price: dict | None) -> dict | None:
    """The run's price, or None when it has none. Runs prepared before 0 meant "no price" may hold
    the run's own price of 0 for both sides: they are unpriced too."""
    if not price or (price.get("priced_by") == "run" and not price.get("input_per_m")
                     and not price.get("output_per_m")):
        return None
    return price


def unpriced(cost: dict) -> bool:
    """Whether a summary's ``cost`` figures (run_cost's) are those of a run without a price,
    including a stored summary that costed the old $0 run price."""
    return cost.get("usd") is None or ("price" in cost and usable(cost["price"]) is None)


def _priced(entry: dict, how: str, key: str, **more) -> dict:
    found = {"input_per_m": float(entry["input_per_m"]), "output_per_m": float(entry["output_per_m"]),
             "priced_by": how, "model_key": key}
    found.update({k: entry[k] for k in ("source", "as_of", "vendor") if entry.get(k)})
    found.update({k: v for k, v in more.items() if v})
    return found


def sample_cost(pricing: dict | None, prompt_tokens: int, completion_tokens: int) -> float | None:
    pricing = usable(pricing)
    if not pricing:
        return None
    return tokens_cost(prompt_tokens, completion_tokens, pricing["input_per_m"], pricing["output_per_m"])


def run_cost(samples: list, pricing: dict | None) -> dict:
    """The summary's ``cost``: total, per sample, per correct answer, and the price used. Without
    a price every figure is null and ``priced_by`` says so."""
    pricing = usable(pricing)
    if not pricing:
        return {"usd": None, "per_sample_usd": None, "per_correct_usd": None, "priced_by": None}
    figures = cost_figures(((s.prompt_tokens, s.completion_tokens, s.stage == "judged" and bool(s.correct))
                            for s in samples), pricing["input_per_m"], pricing["output_per_m"])
    return {**figures, "priced_by": pricing["priced_by"], "price": pricing}


def set_budget(store, exp_id: str, max_cost_usd: float | None) -> float | None:
    """Give a prepared run a budget in USD (None keeps the one it has). Returns the run's budget.
    A budget needs a price: ValueError when the run has none."""
    config = RunConfig.of(store.experiment(exp_id))
    if max_cost_usd is None:
        return config.max_cost_usd
    if not max_cost_usd > 0:
        raise ValueError("--max-cost must be more than 0 USD")
    if not usable(config.pricing):
        model = (config.endpoint or {}).get("model") or "this model"
        raise ValueError(f"--max-cost needs a price, and {model} is not in evalui's price table: give "
                         "--price-input and --price-output (USD per million tokens, not both 0) or --prices FILE")
    if config.max_cost_usd != max_cost_usd:
        config.max_cost_usd = float(max_cost_usd)
        store.update_config(exp_id, config.dump())
    return float(max_cost_usd)


class CostMeter:
    """What one worker's run has spent so far (earlier sessions included), its budget, and the
    estimate of the whole run's cost. Adding is thread-safe: workers add as their calls return."""

    def __init__(self, pricing: dict, total: int, *, max_cost_usd: float | None = None, spent_usd: float = 0.0,
                 answered: int = 0):
        self.pricing, self.total, self.max_cost_usd = pricing, total, max_cost_usd
        self.spent_usd, self.answered = spent_usd, answered
        self._lock = threading.Lock()

    @classmethod
    def for_run(cls, samples: list, pricing: dict, max_cost_usd: float | None = None) -> CostMeter:
        figures = cost_figures(((s.prompt_tokens, s.completion_tokens, False) for s in samples),
                               pricing["input_per_m"], pricing["output_per_m"])
        return cls(pricing, len(samples), max_cost_usd=max_cost_usd, spent_usd=figures["usd"],
                   answered=figures["samples_billed"])

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        if not (prompt_tokens or completion_tokens):
            return
        # The meter's price is a usable one (lifecycle makes a meter only for a priced run).
        cost = tokens_cost(prompt_tokens, completion_tokens, self.pricing["input_per_m"], self.pricing["output_per_m"])
        with self._lock:
            self.spent_usd += cost
            self.answered += 1

    @property
    def spent_out(self) -> bool:
        return self.max_cost_usd is not None and self.spent_usd >= self.max_cost_usd

    def estimate_usd(self) -> float | None:
        """The whole run's cost at the mean cost so far, once ESTIMATE_AFTER samples were answered."""
        if self.answered < ESTIMATE_AFTER:
            return None
        return estimate_total(self.spent_usd, self.answered, self.total)

    def stop_message(self) -> str:
        return (f"{BUDGET_SPENT}: ${self.spent_usd:.4f} spent of the ${self.max_cost_usd:.4f} budget; "
                "resume it with a higher budget (--max-cost)")


class MeteredTask:
    """The run's task, with every model call's tokens added to the meter as the call returns."""

    def __init__(self, task: Task, meter: CostMeter):
        self._task, self._meter = task, meter

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._task, name)  # AttributeError when the task has no such hook, as the runner expects
        if name == "call" and callable(found):
            def call(*args: Any, **kwargs: Any) -> Any:
                try:
                    result = found(*args, **kwargs)
                except Exception as exc:  # a failed agent's steps were billed too
                    self._add_steps(exc)
                    raise
                self._meter.add(result.prompt_tokens, result.completion_tokens)
                return result
            return call
        if name == "acall" and callable(found):
            async def acall(*args: Any, **kwargs: Any) -> Any:
                try:
                    result = await found(*args, **kwargs)
                except Exception as exc:
                    self._add_steps(exc)
                    raise
                self._meter.add(result.prompt_tokens, result.completion_tokens)
                return result
            return acall
        return found

    def _add_steps(self, exc: Exception) -> None:
        steps = getattr(exc, "steps", None) or []
        self._meter.add(sum(_tokens(s, "prompt_tokens") for s in steps), sum(_tokens(s, "completion_tokens") for s in steps))


def _tokens(step, key: str) -> int:
    return int((step.get(key) if isinstance(step, dict) else getattr(step, key, 0)) or 0)


class BudgetGate:
    """The run's samples as its workers take them, until the budget is spent: then there are none
    left to take, and samples claimed but not started go back to the store (RunWorker.leave)."""

    def __init__(self, samples: Claims, meter: CostMeter):
        self._samples, self._meter = samples, meter

    def __iter__(self) -> BudgetGate:
        return self

    def __next__(self) -> Sample:
        if self._meter.spent_out:
            raise StopIteration
        return next(self._samples)

    async def take(self) -> Sample | None:
        if self._meter.spent_out:
            return None
        return await self._samples.take()

