"""GAIA answer matching.

``question_scorer`` follows the GAIA leaderboard's scorer to the letter (see
shared/notes/official-scorers.md). ``lenient_match`` is evalui's own, clearly separate,
"partial" figure: it drops articles and ignores list order, which the leaderboard never does.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata

from evalui.benchmarks.gaia.instructions import INSTRUCTIONS

_LIST_SEPARATORS = re.compile(r"[,;]")
_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _parses_as_float(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _number_or_inf(answer: str) -> float:
    for symbol in ("$", "%", ","):
        answer = answer.replace(symbol, "")
    try:
        return float(answer)
    except ValueError:
        return float("inf")


def _squash(text: str, *, drop_punctuation: bool) -> str:
    squashed = re.sub(r"\s", "", text).lower()
    return squashed.translate(_ASCII_PUNCTUATION) if drop_punctuation else squashed


def question_scorer(model_answer: str | None, ground_truth: str) -> bool:
    """True when ``model_answer`` matches ``ground_truth`` under the leaderboard's rules."""
    answer = "None" if model_answer is None else str(model_answer)
    truth = str(ground_truth)
    if _parses_as_float(truth):
        return _number_or_inf(answer) == float(truth)
    if _LIST_SEPARATORS.search(truth):
        truth_items = _LIST_SEPARATORS.split(truth)
        answer_items = _LIST_SEPARATORS.split(answer)
        if len(truth_items) != len(answer_items):
            return False
        for given, expected in zip(answer_items, truth_items):
            if _parses_as_float(expected):
                if _number_or_inf(given) != float(expected):
                    return False
            elif _squash(given, drop_punctuation=False) != _squash(expected, drop_punctuation=False):
                return False
        return True
    return _squash(answer, drop_punctuation=True) == _squash(truth, drop_punctuation=True)


_ARTICLES = re.compile(r"\b(a|an|the)\b", re.IGNORECASE)


def _lenient_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = _ARTICLES.sub(" ", text)
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return " ".join(text.split())


def _lenient_item(text: str) -> str:
    cleaned = text.strip()
    number = _number_or_inf(cleaned) if cleaned else float("inf")
    if number != float("inf"):
        return repr(number)
    return _lenient_text(cleaned)


def lenient_match(model_answer: str | None, ground_truth: str) -> bool:
    """A forgiving match for the "partial" figure: never the official score.

    Articles and all (Unicode) punctuation are dropped, and list items are compared as
    multisets, so "Beatles" matches "The Beatles" and "b, a" matches "a, b".
    """
    if question_scorer(model_answer, ground_truth):
        return True
    answer = "" if model_answer is None else str(model_answer)
    truth = str(ground_truth)
    if _LIST_SEPARATORS.search(truth) and not _parses_as_float(truth):
        return sorted(map(_lenient_item, _LIST_SEPARATORS.split(answer))) == sorted(
            map(_lenient_item, _LIST_SEPARATORS.split(truth))
        )
    return _lenient_item(answer) == _lenient_item(truth)


_FINAL_ANSWER = re.compile(r"FINAL\s+ANSWER\s*[:：]\s*", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
# Words of a placeholder standing for the answer: "[YOUR FINAL ANSWER]", "<your answer here>", "ANSWER".
_PLACEHOLDER_WORDS = frozenset({"your", "final", "answer", "answers", "the", "my", "here", "insert", "put",
                                "goes", "write"})
# An answer shares a word or two with the instruction ("a number", "percent sign"); a reply whose
# words nearly all sit in three-word runs of it is the instruction, reworded, reordered or numbered.
_RUN_WORDS = 3
_ECHO_SHARE = 0.8
# "42. YOUR FINAL ANSWER should be …": the model filled the slot and went on copying the template.
_PLACEHOLDER_INSIDE = re.compile(r"\byour\W+final\W+answer\b", re.IGNORECASE)
# "[YOUR FINAL ANSWER]: 42": the slot copied, then filled after it.
_PLACEHOLDER_FIRST = re.compile(
    r"[\W_]*?your\W+final\W+answer(?:\W+goes)?(?:\W+here)?[\s\]>})*_`'\"]*(?:[:=\-–—.]\s*)?", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


@functools.cache
def _instruction_runs() -> frozenset[tuple[str, ...]]:
    runs = set()
    for text in INSTRUCTIONS:
        words = _words(text)
        runs.update(tuple(words[i:i + _RUN_WORDS]) for i in range(len(words) - _RUN_WORDS + 1))
    return frozenset(runs)


@functools.cache
def _instruction_vocabulary() -> frozenset[str]:
    return frozenset(word for run in _instruction_runs() for word in run)


def _is_template_echo(text: str) -> bool:
    """True when ``text`` only repeats GAIA's answer template or its instruction, in any case or dress."""
    words = _words(text)
    lead = 0
    while lead < len(words) and words[lead] in _PLACEHOLDER_WORDS:
        lead += 1
    if "answer" in words[:lead] and set(words[lead:]) <= _instruction_vocabulary():
        return True  # the placeholder alone, or followed by the instruction's words in any order
    if len(words) < _RUN_WORDS:
        return False
    covered = [False] * len(words)
    for i in range(len(words) - _RUN_WORDS + 1):
        if tuple(words[i:i + _RUN_WORDS]) in _instruction_runs():
            covered[i:i + _RUN_WORDS] = [True] * _RUN_WORDS
    return sum(covered) >= _ECHO_SHARE * len(words)


def _tidy_answer(text: str) -> str:
    text = text.strip()
    line = text.splitlines()[0].strip() if text else ""
    # Markdown emphasis, code ticks and a closing period are presentation, not the answer.
    line = re.sub(r"^(\*\*|__|`)+|(\*\*|__|`)+$", "", line).strip()
    if line.endswith(".") and not _parses_as_float(line):
        line = line[:-1].rstrip()
    return line


def _committed(text: str) -> str | None:
    """The answer in ``text`` with any copied template cut off, or None when nothing else is left."""
    answer = _tidy_answer(text)
    first = _PLACEHOLDER_FIRST.match(answer)
    if first:
        answer = _tidy_answer(answer[first.end():])
    inside = _PLACEHOLDER_INSIDE.search(answer)
    if inside:
        before = _tidy_answer(answer[:inside.start()].rstrip(" \t.,;:!?*_`'\"([<{-–—"))
        if _words(before):
            answer = before
    if not answer or _is_template_echo(answer):
        return None
    return answer


def extract_final_answer(response: str | None) -> str | None:
    """The answer a GAIA-prompted response commits to, or None when it gives none.

    The last ``FINAL ANSWER:`` that is not an echo of the template wins. Without one, the
    last non-empty line is taken, because many models simply end with the answer, unless that
    line holds ``FINAL ANSWER`` or repeats the instructions.
    """
    if not response:
        return None
    candidates = []
    for match in _FINAL_ANSWER.finditer(response):
        answer = _committed(response[match.end():])
        if answer is not None:
            candidates.append(answer)
    if candidates:
        return candidates[-1]
    lines = [line for line in response.strip().splitlines() if line.strip()]
    if not lines or _FINAL_ANSWER.search(lines[-1]):
        return None  # nothing but an echo of the template
    return _committed(lines[-1])
