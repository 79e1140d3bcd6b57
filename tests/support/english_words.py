"""English words left in Chinese text: what the zh-CN tests (the catalog's and the rendered page's)
look for. A word is a run of Latin letters; what is not prose is left out first (placeholders,
code in backticks, addresses, file names), and the allow-list below keeps the technical tokens a
Chinese interface writes as they are."""

from __future__ import annotations

import re

# Product, format, protocol and method names, model names and units: written in Latin letters in
# Chinese too. Each is a proper name or an abbreviation, never a word a translator would translate.
ALLOWED = frozenset({
    # benchmarks, products and the people behind statistical methods
    "BFCL", "GAIA", "AIME", "evalui", "Gradio", "OpenAI", "Hugging", "Face", "Hub", "Gemma", "Qwen", "Inspect",
    "McNemar", "Newcombe", "Rogan", "Gladen", "PPI", "Krippendorff's", "Wilson", "Pareto", "Plotly",
    # formats, protocols and their abbreviations
    "JSON", "JSONL", "jsonl", "parquet", "CSV", "Markdown", "HTML", "LaTeX", "API", "URL", "HTTP", "HTTPS",
    "ID", "LLM", "HF", "UTF", "MB", "KB", "GB", "USD", "UTC", "CPU", "GPU", "AST",
    # a model's unit of text: Chinese interfaces write "token" as it is
    "token", "tokens", "Token",
    # keys on the keyboard
    "Alt", "Enter", "Esc", "Ctrl",
    # units
    "ms", "s",
    # names and symbols of statistics (Krippendorff's alpha, weighted kappa, McNemar p, n samples), as
    # the literature writes them
    "alpha", "kappa", "p", "n",
    # names a harness knows its choices by, shown as the choices themselves: agent tools and request modes
    "python", "web", "fc", "prompt",
})
# Not prose: {placeholders}, `code`, addresses, file names, and identifiers (a word holding an
# underscore or a digit: problem_id, EVALUI_WEB_BACKEND, Qwen3-8B, v4), and a call written as code
# (func(param=value)). One capital letter stands for a run (A, B), a key (Alt+S) or a unit (270M).
_NOT_PROSE = [re.compile(p) for p in (r"`[^`]*`", r"\{[^{}]*\}", r"https?://\S+",
                                      r"[\w./-]+\.(?:json|jsonl|csv|parquet|md|html|py|txt|zip|toml)\b",
                                      r"[\w.+/-]*(?:_|\d)[\w.+/-]*", r"\w+\([^()]*\)", r"(?<![A-Za-z])[A-Z](?![A-Za-z])")]
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")


def english_words(text: str, allowed: frozenset[str] = ALLOWED) -> list[str]:
    """The English words of ``text`` (Chinese text) that the allow-list does not keep."""
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return [word for word in _WORD.findall(text) if word not in allowed]
