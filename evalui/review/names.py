"""Who a review is by: reviewer names, and the labels of reviews saved without one.

Reviews are kept one per reviewer, so a name is required: reviews pooled under a shared placeholder
would replace each other. Older versions saved unnamed reviews (as "anonymous", or with no reviewer
at all); they still count, each under its own label ("anonymous", "anonymous-2", …), and those
labels are reserved so that no new review can land on one of them, nor on a name that only looks
like one ("аnonymous" with a Cyrillic "а", "ＡＮＯＮＹＭＯＵＳ" in fullwidth letters).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from evalui.errors import InputError

MAX_NAME = 100
UNNAMED = "anonymous"
_UNNAMED_LABEL = re.compile(rf"{UNNAMED}(-\d+)?")

# Letters of other scripts drawn like Latin ones, which NFKC leaves as they are (it folds fullwidth,
# mathematical, circled and superscript letters itself). Written here rather than taken from a
# package: the one maintained PyPI package of Unicode's confusables (confusable_homoglyphs) tells
# whether a text mixes scripts but gives no skeleton to compare with a label, and the others have
# not been released for years. It only has to catch look-alikes of the few reserved labels, and
# mapping a letter too many costs nothing (it only reserves another name that looks like them),
# so it is generous. Digits (0 for o) are left: a reader tells "an0nym0us" from "anonymous".
_LOOKALIKES = str.maketrans({
    **dict.fromkeys("аАαΑɑᴀᎪ", "a"), **dict.fromkeys("ВΒʙᏴ", "b"), **dict.fromkeys("сСϲϹᴄᏟ", "c"),
    **dict.fromkeys("ԁԀᴅᎠ", "d"), **dict.fromkeys("еЕΕᴇᎬ", "e"), **dict.fromkeys("ɡɢցᏀ", "g"),
    **dict.fromkeys("һҺНΗʜհᎻ", "h"), **dict.fromkeys("іІιΙıɩɪ", "i"), **dict.fromkeys("јЈϳȷᴊᎫ", "j"),
    **dict.fromkeys("кКκΚᴋᏦ", "k"), **dict.fromkeys("ӏӀʟᏞ", "l"), **dict.fromkeys("мМΜᴍᎷ", "m"),
    **dict.fromkeys("пΝɴո", "n"), **dict.fromkeys("оОοΟᴏօՕ", "o"), **dict.fromkeys("рРρΡᴘᏢ", "p"),
    **dict.fromkeys("ԛԚզ", "q"), **dict.fromkeys("ʀ", "r"), **dict.fromkeys("ѕЅꜱՏᏚ", "s"),
    **dict.fromkeys("тТΤᴛᎢ", "t"), **dict.fromkeys("υᴜսՍ", "u"), **dict.fromkeys("νѵѴᴠᏙ", "v"),
    **dict.fromkeys("ԝԜᴡᎳ", "w"), **dict.fromkeys("хХχΧ", "x"), **dict.fromkeys("уУүҮγΥʏ", "y"),
    **dict.fromkeys("ΖᴢᏃ", "z"),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u02d7\u06d4\u2e3a\u30fc", "-"),
})


def _normal(name) -> str:
    return unicodedata.normalize("NFKC", str(name or "")).strip()


def reviewer_key(name) -> str:
    """Reviewers are the same person whatever the case, width or surrounding spaces of their name."""
    return _normal(name).casefold()


def _skeleton(name) -> str:
    """How the name looks: compatibility forms folded, accents and invisible characters dropped,
    look-alike letters and dashes replaced by the Latin ones, case folded."""
    decomposed = unicodedata.normalize("NFKD", str(name or ""))
    shown = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    # Before and after folding: a capital may look Latin where its small letter does not (Greek Ν, ν).
    return shown.translate(_LOOKALIKES).casefold().translate(_LOOKALIKES).strip()


def is_unnamed_label(name) -> bool:
    """True for "anonymous" and "anonymous-<n>", and for any name that looks like one: the labels of
    reviews saved without a name."""
    return _UNNAMED_LABEL.fullmatch(_skeleton(name)) is not None


def clean_name(name, *, what: str = "reviewer") -> str:
    name = _normal(name)
    if not name:
        raise InputError(f"{what} needs a name")
    if is_unnamed_label(name):
        raise InputError(f"{what} name {name!r} is reserved for reviews saved without a name; give your own name")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} name is longer than {MAX_NAME} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise InputError(f"{what} name contains control characters")
    return name


def saved_unnamed(review: dict) -> bool:
    """A stored review that an older version saved without a name."""
    return reviewer_key(review.get("reviewer")) in ("", UNNAMED)


def unnamed_labels(taken: set[str]):
    """"anonymous", "anonymous-2", "anonymous-3", … skipping the names in ``taken``."""
    for n in itertools.count(1):
        label = UNNAMED if n == 1 else f"{UNNAMED}-{n}"
        if label not in taken:
            yield label
