"""A second toy benchmark, added as any benchmark is: this one module plus one registry line
(``EVALUI_BENCHMARKS=products=toy_benchmark.products:BENCHMARK``). It asks for products of two numbers,
and declares what the first toy leaves to the defaults:

- a target (``target_of``): the product as its scorer holds it ("51") and as a person reads it ("3 × 17 = 51");
- the question as the task states it (``question_of``): the user message the model is sent;
- a cluster rule (``cluster_of``): products that share their first factor form one cluster, since a model
  that cannot multiply by 3 fails all of them;
- how an answer is shown (``render_prediction``): "= 52", or "(no number)";
- a scorer whose ``score`` judges a stored reply with no task (``evalui rescore`` builds none).

Its first ``hinted`` items state their own answer in the question (a flawed item, for the scanners).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from evalui.core.benchmark import Benchmark, Options, Scorer, Target, option

FACTORS = (2, 3, 4, 5)
SYSTEM = "Reply with the product alone."
SCORER_VERSION = "toy products scorer 1"


class ProductOptions(Options):
    n: int = option(8, help="how many products to ask for")
    seed: int = option(0, help="seed of the second factors")
    hinted: int = option(1, help="how many of the first items state their own answer (a flawed item)")


def sample_id(index: int, a: int, b: int) -> str:
    return f"{a}x{b}-{index}"


def samples(options: ProductOptions):
    rng = random.Random(options.seed)
    specs = []
    for index in range(options.n):
        a, b = FACTORS[index % len(FACTORS)], rng.randint(6, 29)
        payload = {"a": a, "b": b, "hinted": index < options.hinted}
        specs.append((sample_id(index, a, b), "small" if a * b < 50 else "large", payload))
    return specs


def question(payload: dict) -> str:
    text = f"What is {payload['a']} × {payload['b']}?"
    return f"{text} (The answer is {payload['a'] * payload['b']}.)" if payload.get("hinted") else text


def question_of(sample) -> str:
    return question(sample.payload)


def target_of(sample) -> Target:
    a, b = sample.payload["a"], sample.payload["b"]
    return Target(str(a * b), f"{a} × {b} = {a * b}")


def cluster_of(own_id: str) -> str:
    """``3x17-5`` and ``3x9-1`` share the first factor 3, and so one cluster."""
    return "factor " + own_id.split("x", 1)[0]


def render_prediction(prediction) -> str:
    return "(no number)" if prediction is None else f"= {prediction}"


def score(sample, reply, options) -> tuple[object, bool, dict]:
    """The last number of the reply against a × b."""
    found = re.findall(r"-?\d+", (reply or {}).get("text") or "")
    answer = int(found[-1]) if found else None
    expected = sample.payload["a"] * sample.payload["b"]
    if answer is None:
        return None, False, {"error_type": "no_number", "reason": "the reply holds no number"}
    if answer != expected:
        return answer, False, {"error_type": "wrong_product", "reason": f"{answer} is not {expected}"}
    return answer, True, {"error_type": None}


PRODUCT = Scorer("product", "the reply's last number against the product", score=score,
                 version=lambda: SCORER_VERSION)


@dataclass
class ProductTask:
    options: ProductOptions
    benchmark: str = "products"

    def build_request(self, sample):
        return {"messages": [{"role": "system", "content": SYSTEM},
                             {"role": "user", "content": question(sample.payload)}]}

    def call(self, client, sample, request):
        return client.chat(request["messages"])

    def judge(self, sample, response):
        return PRODUCT.score(sample, response, self.options)


BENCHMARK = Benchmark(name="products", title="Toy products", options=ProductOptions, samples=samples,
                      task=lambda options, store, exp_id: ProductTask(options), fixed=("seed", "hinted"),
                      group_name="size", scorers=(PRODUCT,), question_of=question_of, target_of=target_of,
                      cluster_of=cluster_of, render_prediction=render_prediction)
