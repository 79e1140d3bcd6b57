"""GAIA leaderboard semantics, the lenient "partial" match, and answer extraction."""

import pytest

from evalui.benchmarks.gaia.scoring import (
    extract_final_answer,
    lenient_match,
    question_scorer,
)


@pytest.mark.parametrize(
    "answer, truth, expected",
    [
        # numbers: $ % , removed, compared as floats
        ("17.0", "17", True),
        (" $1,000 ", "1000", True),
        ("3,4", "34", True),
        ("17 km", "17", False),
        ("1e1", "10", True),
        ("+5", "5", True),
        ("10.", "10", True),
        ("1_000", "1000", True),
        ("50%", "50", True),
        ("0.1", "0.10", True),
        ("seventeen", "17", False),
        # lists: split on , and ; and compared in order
        ("a, b, c", "a, b, c", True),
        ("a;b;c", "a, b, c", True),
        ("c, b, a", "a, b, c", False),
        ("a, b", "a, b, c", False),
        ("1000", "1,000", False),
        ("1, 2.0, x", "1, 2, x", True),
        ("St. Petersburg, Rome", "St Petersburg, Rome", False),
        ("New York, Rome", "newyork, rome", True),
        # strings: whitespace and ASCII punctuation removed, lowercased
        ("St Petersburg", "St. Petersburg", True),
        ("  THE  beatles!", "The Beatles", True),
        ("Beatles", "The Beatles", False),
        ("O’Brien", "O'Brien", False),
        ("OBrien", "O'Brien", True),
        ("Zürich", "zürich", True),
        ("Zurich", "Zürich", False),
        ("東京", "東京", True),
        ("東京。", "東京", False),
        # a missing answer is the string "None"
        (None, "None", True),
        (None, "17", False),
        (None, "a, b", False),
    ],
)
def test_question_scorer_matches_leaderboard_semantics(answer, truth, expected):
    assert question_scorer(answer, truth) is expected


@pytest.mark.parametrize(
    "answer, truth, expected",
    [
        ("Beatles", "The Beatles", True),
        ("c, b, a", "a, b, c", True),
        ("O’Brien", "O'Brien", True),
        ("an apple", "apple", True),
        ("pear", "apple", False),
        ("b, b, a", "a, b, c", False),
        ("17.0", "17", True),
    ],
)
def test_lenient_match_is_more_forgiving(answer, truth, expected):
    assert lenient_match(answer, truth) is expected


def test_lenient_never_stricter_than_official():
    pairs = [("17", "17.0"), ("a,b", "a, b"), ("Rome", "rome"), ("$5", "5")]
    for answer, truth in pairs:
        if question_scorer(answer, truth):
            assert lenient_match(answer, truth)


@pytest.mark.parametrize(
    "response, expected",
    [
        ("Thinking...\nFINAL ANSWER: Paris", "Paris"),
        ("Report with: FINAL ANSWER: [YOUR FINAL ANSWER].\n...\nFINAL ANSWER: 42", "42"),
        ("FINAL ANSWER: 3\nwait, recheck\nFINAL ANSWER: 4", "4"),
        ("final answer: **Rome**", "Rome"),
        ("FINAL ANSWER: St. Petersburg.", "St. Petersburg"),
        ("FINAL ANSWER: [YOUR FINAL ANSWER]", None),
        ("The capital is\nParis", "Paris"),
        ("FINAL ANSWER: 3.5", "3.5"),
        ("", None),
        (None, None),
    ],
)
def test_extract_final_answer(response, expected):
    assert extract_final_answer(response) == expected


def test_template_echo_is_not_taken_when_a_real_answer_follows():
    response = "I will answer as FINAL ANSWER: [YOUR FINAL ANSWER]\nSo the result: 12"
    assert extract_final_answer(response) == "So the result: 12"
