"""A toy benchmark, added the way any benchmark is: this one package plus one registry line
(``EVALUI_BENCHMARKS=toy=toy_benchmark:BENCHMARK``). It asks for sums of two numbers."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from evalui.core.benchmark import Benchmark, Options


class ToyOptions(Options):
    n: int = 6
    seed: int = 0


def samples(options: ToyOptions):
    rng = random.Random(options.seed)
    pairs = [(rng.randint(1, 50), rng.randint(1, 50)) for _ in range(options.n)]
    return [(f"sum-{i}", "even" if (a + b) % 2 == 0 else "odd", {"a": a, "b": b}) for i, (a, b) in enumerate(pairs)]


@dataclass
class SumTask:
    benchmark: str = "toy"

    def build_request(self, sample):
        return {"messages": [{"role": "user", "content": f"What is {sample.payload['a']} + {sample.payload['b']}?"}]}

    def call(self, client, sample, request):
        return client.chat(request["messages"])

    def judge(self, sample, response):
        found = re.findall(r"-?\d+", response["text"])
        answer = int(found[-1]) if found else None
        return answer, answer == sample.payload["a"] + sample.payload["b"], {"error_type": None}


def ask(question: str) -> str:
    """How the scripted endpoint in the tests answers: right, except for sums that end in 7."""
    numbers = re.findall(r"\d+", question)
    if len(numbers) < 2:  # the dashboard's check of the endpoint, say
        return "OK"
    a, b = map(int, numbers[:2])
    return f"The answer is {a + b + 1 if (a + b) % 10 == 7 else a + b}"


BENCHMARK = Benchmark(name="toy", title="Toy sums", options=ToyOptions, samples=samples,
                      task=lambda options, store, exp_id: SumTask(), fixed=("seed",), group_name="parity")
