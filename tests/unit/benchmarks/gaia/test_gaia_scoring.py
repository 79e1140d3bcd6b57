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


# The local model's own echo of GAIA's instruction (issue 36), then the shapes a model could give it.
LOCAL_MODEL_ECHO = "template: FINAL ANSWER: [YOUR FINAL ANSWER]. YOUR FINAL ANSWER should be a number"
INSTRUCTION_SENTENCE = ("YOUR FINAL ANSWER should be a number OR as few words as possible OR a comma separated "
                        "list of numbers and/or strings.")


@pytest.mark.parametrize(
    "response",
    [
        LOCAL_MODEL_ECHO,
        "Report your thoughts, and finish your answer with the following " + LOCAL_MODEL_ECHO,
        "FINAL ANSWER: [YOUR FINAL ANSWER]. " + INSTRUCTION_SENTENCE,
        "FINAL ANSWER: [YOUR FINAL ANSWER]. YOUR FINAL ANSWER should be a number OR as few words as possible "
        "OR a comma separated list…",
        "FINAL ANSWER: " + INSTRUCTION_SENTENCE,
        "FINAL ANSWER: [YOUR FINAL ANSWER].",
        "FINAL ANSWER: YOUR FINAL ANSWER",
        "FINAL ANSWER: your final answer",
        "FINAL ANSWER: [Your Final Answer]",
        "final answer: <your final answer>",
        "FINAL ANSWER: {final_answer}",
        "FINAL ANSWER: [YOUR_FINAL_ANSWER]",
        "FINAL ANSWER: [YOUR FINAL ANSWER HERE]",
        "FINAL ANSWER: [your final answer goes here]",
        "FINAL ANSWER: [ANSWER]",
        "FINAL ANSWER: <your answer here>",
        "FINAL ANSWER: **[YOUR FINAL ANSWER]**",
        "FINAL ANSWER: `[YOUR FINAL ANSWER]`",
        'FINAL ANSWER: "[YOUR FINAL ANSWER]"',
        "FINAL ANSWER：［ＹＯＵＲ　ＦＩＮＡＬ　ＡＮＳＷＥＲ］",
        "FINAL ANSWER:\n[YOUR FINAL ANSWER]",
        "FINAL ANSWER: [YOUR FINAL ANSWER] (a number or as few words as possible)",
        "FINAL ANSWER: Your final answer should be a number, or a few words, or a comma-separated list.",
        "FINAL ANSWER: as few words as possible",
        "FINAL ANSWER: a comma separated list of numbers and/or strings",
        # the instruction echoed line by line, numbered, or with its grammar mended: never the last line
        "Rules:\n" + INSTRUCTION_SENTENCE,
        "Rules:\nIf you are asked for a comma separated list, apply the above rules depending of whether the "
        "element to be put in the list is a number or a string.",
        "Rules:\n3. If you are asked for a comma-separated list, apply the above rules depending on whether the "
        "element to be put in the list is a number or a string.",
        "Noted.\nIf you are asked for a number, don't use comma to write your number neither use units such as $ "
        "or percent sign unless specified otherwise.",
        # the agent's note says it again
        "When you have it, reply without calling a tool and finish with the template above: "
        "FINAL ANSWER: [YOUR FINAL ANSWER].",
    ],
)
def test_an_echo_of_the_template_is_no_answer(response):
    assert extract_final_answer(response) is None


@pytest.mark.parametrize(
    "response, expected",
    [
        # a real answer anywhere wins over the echo, before or after it
        (LOCAL_MODEL_ECHO + "\nLet me work.\nFINAL ANSWER: Marseille", "Marseille"),
        ("FINAL ANSWER: 17\n" + LOCAL_MODEL_ECHO, "17"),
        # the slot filled and the template copied around it
        ("FINAL ANSWER: 42. YOUR FINAL ANSWER should be a number", "42"),
        ("FINAL ANSWER: [YOUR FINAL ANSWER]: 42", "42"),
        ("FINAL ANSWER: YOUR FINAL ANSWER = Paris", "Paris"),
        ("FINAL ANSWER: Paris (your final answer should be a city)", "Paris"),
        # answers that share a word or two with the instruction are still answers
        ("FINAL ANSWER: comma", "comma"),
        ("FINAL ANSWER: a number", "a number"),
        ("FINAL ANSWER: percent sign", "percent sign"),
        ("FINAL ANSWER: The answer is 42", "The answer is 42"),
        ("FINAL ANSWER: 3, 4, 5", "3, 4, 5"),
        ("FINAL ANSWER: The Beatles", "The Beatles"),
    ],
)
def test_a_real_answer_is_kept_beside_an_echo(response, expected):
    assert extract_final_answer(response) == expected


def test_a_whole_echoed_system_prompt_is_no_answer():
    from evalui.benchmarks.gaia.instructions import AGENT_NOTE, GAIA_SYSTEM_PROMPT

    for echo in (GAIA_SYSTEM_PROMPT, GAIA_SYSTEM_PROMPT.replace(". ", ".\n"), GAIA_SYSTEM_PROMPT.upper(),
                 f"{GAIA_SYSTEM_PROMPT}\n\n{AGENT_NOTE}"):
        assert extract_final_answer(echo) is None, echo[-80:]
