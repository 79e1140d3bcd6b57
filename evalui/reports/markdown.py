"""Small Markdown builders. Model output is escaped so a report never runs or renders it as HTML,
and never becomes an image or a link: a reader's browser fetches nothing a model wrote."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

# A bracket opens Markdown's images (![a](url)), links and reference definitions; ``://`` and
# ``www.`` are where GFM turns bare text into a link. As entities they read the same and do neither.
# A bracket after an odd run of backslashes is already escaped (and ``\[ … \]`` are LaTeX's
# display delimiters, which KaTeX must still see), so it is left as it is.
_OPEN_BRACKET = re.compile(r"(?<!\\)((?:\\\\)*)([\[\]])")
_AUTOLINK = re.compile(r"(?<=[A-Za-z]):(?=//)|(?<![A-Za-z0-9])(www)\.", re.IGNORECASE)
_ENTITY = {"[": "&#91;", "]": "&#93;"}


def defuse_links(text: str) -> str:
    """Markdown that shows ``text``'s brackets and URLs as text: no image is fetched, no link is made.
    Run it after HTML escaping: it writes entities, which an escape would double."""
    value = _OPEN_BRACKET.sub(lambda m: m.group(1) + _ENTITY[m.group(2)], text)
    return _AUTOLINK.sub(lambda m: f"{m.group(1)}&#46;" if m.group(1) else "&#58;", value)


def inert(text: object, limit: int | None = 300) -> str:
    """Text safe inside a Markdown table cell: HTML-escaped, one line, pipes and backticks neutralised,
    brackets and URLs inert (no image, no link)."""
    value = "" if text is None else str(text)
    if limit and len(value) > limit:
        value = value[: limit - 1] + "…"
    value = defuse_links(html.escape(value, quote=True))
    return value.replace("|", "&#124;").replace("`", "&#96;").replace("\r", " ").replace("\n", " ")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(inert(cell) for cell in row) + " |")
    return "\n".join(lines)


def percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.1f}%"


def text_bar(rate: float, width: int = 20) -> str:
    filled = round(max(0.0, min(1.0, rate)) * width)
    return "█" * filled + "░" * (width - filled)


def epoch_texts(figures: dict) -> tuple[str, str, str]:
    """(mean, standard error, ``pass@1 66.7% · pass@3 80.0% · pass^3 40.0%``) of a summary's ``epochs`` figures
    (pass^1 is pass@1, so it is not repeated)."""
    stderr = "–" if figures["stderr"] is None else percent(figures["stderr"])
    passes = " · ".join([f"pass@{k} {percent(v)}" for k, v in (figures.get("pass_at_k") or {}).items()]
                        + [f"pass^{k} {percent(v)}" for k, v in (figures.get("pass_hat_k") or {}).items() if k != "1"])
    return percent(figures["mean_accuracy"]), stderr, passes


def epoch_lines(summary: dict) -> list[str]:
    """The report's section on repeats, for a run that asked each sample more than once."""
    figures = summary.get("epochs")
    if not figures:
        return []
    mean, stderr, passes = epoch_texts(figures)
    return ["## Repeats", "",
            f"- {figures['epochs']} epochs over {figures['samples']} samples (errors count as wrong)",
            f"- Mean accuracy over epochs: **{mean}** ± {stderr} (standard error, clustered by sample)",
            f"- {passes or 'pass@k: –'} (unbiased estimators: pass@k at least one of k tries right, pass^k all k)",
            *([f"- Flaky samples (both passed and failed): {len(figures['flaky'])}; mean flip rate "
               f"{percent(figures.get('flip_rate'))}; correlation between a sample's epochs (ICC) "
               f"{'–' if figures.get('icc') is None else format(figures['icc'], '.2f')}"] if "flaky" in figures else []),
            ""]


def validity_lines(summary: dict) -> list[str]:
    """The report's section on validity: the valid-sample score beside the raw one, and what each
    scanner found (evalui.scanners). Never in the raw figures' place."""
    figures = summary.get("validity")
    if not figures:
        return []
    low, high = (figures.get("valid_ci95") or [None, None])[:2]
    interval = f" (95% CI {percent(low)}–{percent(high)})" if low is not None and high is not None else ""
    rows = [[name, counts.get("invalid", 0), counts.get("warning", 0), counts.get("info", 0)]
            for name, counts in figures.get("by_scanner", {}).items() if counts]
    return ["## Validity", "",
            f"- Valid-sample accuracy: **{percent(figures.get('valid_accuracy'))}**{interval} over "
            f"{figures.get('valid', 0)} samples; {figures.get('invalid', 0)} samples found invalid "
            f"({figures.get('invalid_judged', 0)} of them judged) are left out. The raw accuracy above counts them.",
            "- Invalid: the environment failed the sample (an endpoint error, an empty or truncated reply, a tool that "
            "crashed, the answer in the prompt). Warning: the verdict stands, but look (a refusal, a loop, the step "
            "limit, an item every other model fails). `evalui scan` runs the scanners again.",
            "",
            *([table(["scanner", "invalid", "warning", "info"], rows), ""] if rows else ["No scanner found anything.", ""])]
