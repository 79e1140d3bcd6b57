"""The answer-in-context scanner finds a long target as a whole word without a regular expression per
sample; it finds exactly what word_pattern's expression finds."""
from __future__ import annotations

import random

import pytest

from evalui.scanners.base import normalise, word_pattern
from evalui.scanners.context import WholeWord

CASES = [
    ("paris", "the capital is paris.", True),
    ("paris", "parisian food", False),
    ("paris", "paris", True),
    ("paris", "xparis", False),
    ("paris", "parisx paris", True),  # the first occurrence touches a letter, the second does not
    ("paris", "parisx 9paris", False),
    ("1234", "in 12345 and 1234", True),
    ("1234", "a1234b", False),
    ("get_weather(city='rome')", "call get_weather(city='rome') now", True),
    ("get_weather(city='rome')", "xget_weather(city='rome')", False),
    ("(a, b)", "f(a, b)", False),  # the sides are checked whatever the phrase starts with
    ("(a, b)", "= (a, b);", True),
    ("aaaa", "aaaaa", False),
    ("mile", "émile", True),  # [a-z0-9] only: an accented letter does not count as one
    ("Roma Termini", "ROMA TERMINI", False),  # the phrase is normalised, the text is the caller's
]


@pytest.mark.parametrize(("phrase", "text", "found"), CASES)
def test_a_whole_word_is_found_where_word_pattern_finds_it(phrase, text, found):
    assert WholeWord(phrase).search(text) is found
    assert bool(word_pattern(phrase).search(text)) is found


def test_random_texts_match_word_pattern():
    rng = random.Random(41)
    alphabet = "ab1 _-.(é"
    for _ in range(5_000):
        phrase = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 6)))
        if not normalise(phrase):
            continue
        plain = normalise(phrase)
        text = "".join(rng.choice([plain, *alphabet]) for _ in range(rng.randint(0, 12)))
        assert WholeWord(phrase).search(text) is bool(word_pattern(phrase).search(text)), (phrase, text)
