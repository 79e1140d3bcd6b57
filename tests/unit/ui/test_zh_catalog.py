"""The merged catalog is complete in Chinese: every key has a zh-CN text, and no zh-CN text holds an
English word but the technical tokens of tests/support/english_words.py's allow-list (product, format
and method names, units, placeholders, code)."""

from __future__ import annotations

import re

from evalui.ui.i18n.strings import STRINGS
from support.english_words import english_words


def untranslated(catalog: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    """key -> what is wrong with its Chinese text: missing, or the English words it holds."""
    found = {}
    for key, (english, chinese) in catalog.items():
        if not chinese.strip():
            found[key] = ["(no zh-CN text)"] if english.strip() else []
        elif words := english_words(chinese):
            found[key] = words
    return {key: words for key, words in found.items() if words}


def test_every_key_has_a_chinese_text_without_english_words():
    assert len(STRINGS) > 300  # the merged catalog: the general texts, every module's and every benchmark's
    assert untranslated(STRINGS) == {}


def test_a_planted_english_word_or_a_missing_text_is_found():
    planted = {"plant.word": ("Save the review", "保存 review"), "plant.empty": ("Save", ""),
               "plant.allowed": ("Export as JSON to {path}", "导出为 JSON 到 {path}（`evalui view`，Alt+S）"),
               "plant.sentence": ("Final answer", "Final answer")}
    assert untranslated(planted) == {"plant.word": ["review"], "plant.empty": ["(no zh-CN text)"],
                                     "plant.sentence": ["Final", "answer"]}


def test_every_cause_of_an_uncorrected_figure_is_in_the_catalog_with_the_statistics_english():
    """The AIME results tab says why a figure was not corrected from its causes' codes: each code of
    the statistics has a catalog entry, whose English is the statistics' own text."""
    from evalui.stats.estimate import CAUSE_TEXTS

    for code, english in CAUSE_TEXTS.items():
        assert STRINGS[f"calib.cause.{code}"][0] == english, code
        assert re.findall(r"\{\w+\}", STRINGS[f"calib.cause.{code}"][1]) == re.findall(r"\{\w+\}", english), code
