"""A scripted AIME generator and judge for the scripted peer: LaTeX, fences, bad JSON, bad answers."""

from __future__ import annotations

import itertools
import threading

from support.openai_peer import completion

# Written as a model writes them: single backslashes inside JSON strings.
SCENARIOS = [
    "A farmer plants rows of apple trees along a river bank",
    "Seven knights sit around a round table sharing bread",
    "A robot walks on lattice points of the coordinate plane",
    "Marbles of three colours are drawn from an urn",
    "A spider crawls along the edges of a cube made of wire",
    "Digits are written on cards and shuffled into a deck",
    "A clock tower chimes at irregular but periodic moments",
    "Polygons are inscribed in a circle of radius twelve",
    "Coins are flipped until two heads appear in a row",
    "A staircase is climbed taking one or two steps",
    "Sequences of letters are formed from the word ALGEBRA",
    "Tiles of dominoes cover a checkerboard with holes",
]

PROBLEM_TEMPLATE = (
    '{{"problem": "{scenario}. Problem {k}: let $x = \\frac{{{k}}}{{2}}$ and $\\binom{{{k}}}{{2}} \\times 3 \\neq 0$; '
    'find \\underline{{the}} value of $2x + {k}$.", "answer": {answer}, '
    '"solution": "Since $x = \\frac{{{k}}}{{2}}$, we get $2x + {k} = {answer}$.", "topic": "{topic}"}}'
)


class AimeScript:
    """Generator replies cycle through: fenced valid, malformed, out of range, plain valid."""

    def __init__(self, *, bad_judge_for: str | None = None, prefers: str = "generated"):
        self.counter = itertools.count(1)
        self.lock = threading.Lock()
        self.generation_replies = 0
        self.bad_judge_for = bad_judge_for
        self.prefers = prefers  # "generated", "real", "first" (position-biased) or "tie"

    def __call__(self, body, n):
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if "original competition mathematics problems" in system:
            return self.generation(user)
        if "strict reviewer" in system:
            return self.judgement(user)
        return self.comparison(user)

    def generation(self, user):
        with self.lock:
            step = next(self.counter)
        topic = user.split("on the topic: ", 1)[1].split(".", 1)[0]
        k = 100 + step
        scenario = SCENARIOS[step % len(SCENARIOS)]
        valid = PROBLEM_TEMPLATE.format(k=k, answer=2 * k if 2 * k < 1000 else 7, topic=topic, scenario=scenario)
        kind = step % 4
        if kind == 1:
            return completion(f"Here is the problem:\n```json\n{valid}\n```\nEnjoy!")
        if kind == 2:
            return completion('{"problem": "Problem: unterminated, "answer": 5')  # malformed JSON
        if kind == 3:
            return completion(PROBLEM_TEMPLATE.format(k=k, answer=1234, topic=topic, scenario=scenario))  # out of range
        return completion(valid)

    def judgement(self, user):
        if self.bad_judge_for and self.bad_judge_for in user:
            return completion("I think it is a fine problem, maybe a 4?")
        return completion('```json\n{"correctness": {"score": 5, "comment": "right: \\frac{a}{b} checks"}, '
                          '"clarity": {"score": 4, "comment": "clear"}, '
                          '"difficulty_match": {"score": 3, "comment": "easy"}, '
                          '"completeness": {"score": 4, "comment": "ok"}}\n```')

    def comparison(self, user):
        first = user.split("Problem 1:", 1)[1].split("Problem 2:", 1)[0]
        generated_first = "Problem " in first and "find \\underline" in first
        if self.prefers == "first":
            winner = "1"
        elif self.prefers == "tie":
            winner = "tie"
        else:
            wants_generated = self.prefers == "generated"
            winner = "1" if generated_first == wants_generated else "2"
        return completion(f'{{"winner": "{winner}", "reason": "because"}}')
