"""Prompts for the generator, the judge and the blind pairwise comparison."""

from __future__ import annotations

TOPICS = ("algebra", "geometry", "number theory", "combinatorics", "probability")

GENERATION_SYSTEM = (
    "You write original competition mathematics problems in the style of the AIME "
    "(American Invitational Mathematics Examination)."
)

GENERATION_TEMPLATE = """Write one new AIME-style problem on the topic: {topic}.

AIME problems have a single answer that is an integer from 0 to 999, need several steps of
reasoning, and use no calculus or advanced theory. Aim at the difficulty of AIME problems 6 to 9.

Here are real AIME problems for style only. Do not copy or paraphrase them:
{examples}

Reply with a JSON object only:
{{"problem": "statement, with LaTeX in $...$",
  "answer": 123,
  "solution": "a complete, step-by-step solution",
  "topic": "{topic}"}}"""

JUDGE_SYSTEM = "You are a strict reviewer of competition mathematics problems. You answer with JSON only."

JUDGE_TEMPLATE = """Review this AIME-style problem.

Problem: {problem}
Stated answer: {answer}
Solution: {solution}

Score each dimension from 1 (poor) to 5 (excellent), with a short comment:
- correctness: the problem is well posed, and the solution and answer are mathematically right;
- clarity: the statement is unambiguous and well written;
- difficulty_match: the difficulty fits AIME problems 6 to 9;
- completeness: the solution is complete, with every step justified.

Reply with a JSON object only:
{{"correctness": {{"score": 1, "comment": "..."}},
  "clarity": {{"score": 1, "comment": "..."}},
  "difficulty_match": {{"score": 1, "comment": "..."}},
  "completeness": {{"score": 1, "comment": "..."}}}}"""

COMPARISON_SYSTEM = "You compare competition mathematics problems impartially. You answer with JSON only."

# Both problems are shown the same way, with no hint of where either came from.
COMPARISON_TEMPLATE = """Which of these two AIME-style problems is the better competition problem?
Judge mathematical soundness, clarity of the statement, and fit to AIME difficulty.

Problem 1:
{problem_1}
Answer: {answer_1}

Problem 2:
{problem_2}
Answer: {answer_2}

Reply with a JSON object only: {{"winner": "1" or "2" or "tie", "reason": "..."}}"""


def generation_messages(topic: str, examples: list[str], retry_note: str = "") -> list[dict]:
    listed = "\n".join(f"{i}. {text}" for i, text in enumerate(examples, start=1)) or "(none)"
    content = GENERATION_TEMPLATE.format(topic=topic, examples=listed)
    if retry_note:
        content += f"\n\nYour previous reply could not be used: {retry_note}. Follow the format exactly."
    return [{"role": "system", "content": GENERATION_SYSTEM}, {"role": "user", "content": content}]


def judge_messages(problem: dict, retry_note: str = "") -> list[dict]:
    content = JUDGE_TEMPLATE.format(problem=problem["problem"], answer=problem["answer"],
                                    solution=problem.get("solution") or "(none)")
    if retry_note:
        content += f"\n\nYour previous reply could not be used: {retry_note}."
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": content}]


def comparison_messages(first: dict, second: dict, retry_note: str = "") -> list[dict]:
    content = COMPARISON_TEMPLATE.format(problem_1=first["problem"], answer_1=first["answer"],
                                         problem_2=second["problem"], answer_2=second["answer"])
    if retry_note:
        content += f"\n\nYour previous reply could not be used: {retry_note}."
    return [{"role": "system", "content": COMPARISON_SYSTEM}, {"role": "user", "content": content}]

