"""Reading model output that is meant to be JSON but carries LaTeX.

Models write ``"\\frac{1}{2}"`` with a single backslash, which JSON reads as a form feed followed
by "rac". Every single backslash that starts a LaTeX command, or that JSON would reject, is
doubled before parsing, so ``\\frac``, ``\\binom``, ``\\times``, ``\\neq`` and ``\\underline``
survive intact while real JSON escapes (``\\n``, ``\\"``, ``\\u00e9``) keep their meaning.
"""

from __future__ import annotations

import json
import re

from evalui.benchmarks.aime.scoring import to_aime_integer
from evalui.stats.metrics import JUDGE_DIMENSIONS

# LaTeX commands that begin with a letter JSON also uses as an escape (b f n r t u).
LATEX_COMMANDS_ON_JSON_ESCAPES = frozenset("""
    bar beta bf big bigg bigl bigr binom bmod boldsymbol bot bowtie boxed breve bullet
    flat forall frac frak frown
    nabla natural ne nearrow neg neq nexists ngeq ni nleq nmid not notin nparallel nsubseteq nu nwarrow
    rangle rbrace rceil rfloor rho right rightarrow Rightarrow rm rVert rvert
    tan tanh tau tbinom text textbf textit textrm tfrac th theta therefore tilde times to top triangle
    triangleleft triangleright tt
    ulcorner underbrace underline underset unlhd unrhd uparrow Uparrow updownarrow uplus upsilon
""".split())

_BACKSLASH_RUN = re.compile(r"(\\+)([A-Za-z]*)")


class InvalidOutput(ValueError):
    """The model's output cannot be used; the message says why, for the retry and the log."""


def _fix_backslashes(text: str) -> str:
    def repair(match: re.Match) -> str:
        slashes, letters = match.group(1), match.group(2)
        if len(slashes) % 2 == 0:
            return match.group(0)  # already escaped pairs
        end = match.end()
        following = text[end] if end < len(text) else ""
        if letters:
            if letters in LATEX_COMMANDS_ON_JSON_ESCAPES or letters[0] not in "bfnrtu":
                return "\\" + slashes + letters
            if letters[0] == "u" and not re.fullmatch(r"[0-9a-fA-F]{4}", (letters + text[end:end + 4])[1:5]):
                return "\\" + slashes + letters
            return match.group(0)
        if following in ('"', "\\", "/"):
            return match.group(0)
        return "\\" + slashes  # \( \[ \{ \, \! \; \$ … are not JSON escapes
    return _BACKSLASH_RUN.sub(repair, text)


def _json_object_text(text: str) -> str:
    fenced = re.search(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise InvalidOutput("no JSON object in the output")
    return text[start:end + 1]


def parse_json_with_latex(text: str | None) -> dict:
    """The JSON object in ``text`` (code fences and chatter around it are allowed)."""
    if not text or not text.strip():
        raise InvalidOutput("empty output")
    candidate = _json_object_text(text)
    try:
        value = json.loads(_fix_backslashes(candidate), strict=False)
    except json.JSONDecodeError as exc:
        raise InvalidOutput(f"malformed JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(value, dict):
        raise InvalidOutput("the JSON is not an object")
    return value


def parse_generated_problem(text: str | None) -> dict:
    """``{"problem", "answer" (0–999), "solution", "topic"}`` from a generator's output."""
    data = parse_json_with_latex(text)
    problem = data.get("problem")
    if not isinstance(problem, str) or len(problem.strip()) < 20:
        raise InvalidOutput("missing or too short \"problem\"")
    answer = to_aime_integer(data.get("answer"))
    if answer is None:
        raise InvalidOutput(f"\"answer\" must be an integer from 0 to 999, got {data.get('answer')!r}")
    solution = data.get("solution")
    if not isinstance(solution, str) or not solution.strip():
        raise InvalidOutput("missing \"solution\"")
    topic = data.get("topic")
    return {"problem": problem.strip(), "answer": answer, "solution": solution.strip(),
            "topic": topic.strip() if isinstance(topic, str) and topic.strip() else "unspecified"}


def parse_judgement(text: str | None) -> dict:
    """``{dimension: {"score": 1–5, "comment": str}}`` for the four judge dimensions."""
    data = parse_json_with_latex(text)
    scores = {}
    for dimension in JUDGE_DIMENSIONS:
        entry = data.get(dimension)
        if isinstance(entry, dict):
            score, comment = entry.get("score"), entry.get("comment", "")
        else:
            score, comment = entry, data.get(f"{dimension}_comment", "")
        if isinstance(score, str) and score.strip().isdigit():
            score = int(score.strip())
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 1 <= score <= 5:
            raise InvalidOutput(f"{dimension}: score must be a number from 1 to 5, got {score!r}")
        scores[dimension] = {"score": float(score), "comment": str(comment or "")}
    return scores


def parse_preference(text: str | None) -> str:
    """'1', '2' or 'tie' from a pairwise verdict ``{"winner": "1" | "2" | "tie", "reason": …}``."""
    data = parse_json_with_latex(text)
    winner = str(data.get("winner", "")).strip().lower().replace("problem", "").strip()
    if winner in ("1", "2"):
        return winner
    if winner in ("tie", "equal", "draw", "0"):
        return "tie"
    raise InvalidOutput(f"\"winner\" must be 1, 2 or tie, got {data.get('winner')!r}")
