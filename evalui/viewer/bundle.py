"""A stored run as a static, read-only copy of the viewer (``evalui view EXP --out DIR``): ``index.html``
holds the page, its script and the run's data (it opens from file://, where a page cannot fetch a
file beside it), and ``data.json`` the same data for other tools. No server, no network: the script
is inline, allowed by a per-bundle nonce in the page's Content-Security-Policy.

The transcript panes are the dashboard's own (viewer_transcript, every piece of model text escaped);
the page's script builds the list with textContent only."""

from __future__ import annotations

import json
import re
import secrets
import unicodedata
from pathlib import Path

from evalui.errors import InputError
from evalui.scanners.labels import finding_key, read_labels
from evalui.store.search import call_part, sample_part, verdict_part
from evalui.viewer import findings as labelling
from evalui.viewer import rows as rows_
from evalui.viewer.bundle_page import PAGE
from evalui.viewer.data import experiment_of
from evalui.viewer.style import LIST_CSS, TRANSCRIPT_CSS
from evalui.viewer.transcript import transcript_html

# The page's search matches as the store's index (SQLite FTS5, unicode61 with remove_diacritics 2): a
# word is a run of letters and digits (an underscore or any other sign ends it), lower-cased, a Latin
# letter without its accents. The page's script splits a query the same way (its `words`).
_WORD = re.compile(r"[^\W_]+")


def _plain(char: str) -> str:
    base = unicodedata.normalize("NFD", char)
    code = ord(base[0])
    # FTS5 takes the accents off Latin letters only (a kana's voicing mark stays).
    return base[0] if len(base) > 1 and (code < 0x250 or 0x1E00 <= code <= 0x1EFF) else char


def words_of(text: str) -> str:
    """``text`` as the index holds it: its words, folded, each after one space (so that a phrase is
    found by `" " + words`, its last word also as a prefix)."""
    return "".join(" " + "".join(_plain(c) for c in word) for word in _WORD.findall(text.lower()))


def search_parts(sample) -> list[str]:
    """The sample's documents as the store indexes them (evalui.store.search: its id and group, the
    call once asked or failed, the verdict once judged), each as ``words_of``. A sample matches a
    query when each piece of it is in one of these."""
    parts = [sample_part(sample.sample_id, sample.group)]
    if sample.request is not None or sample.error is not None:
        parts.append(call_part(sample.request, None if sample.error else sample.response, sample.trajectory,
                               sample.error))
    if sample.stage == "judged":
        parts.append(verdict_part(sample.prediction, sample.verdict))
    return [words_of(part) for part in parts]


def bundle_data(store, exp_id: str) -> dict:
    """Everything the static page shows: the run, its light rows, each sample's pane and, under ``text``,
    its documents as the store's search index holds them (``search_parts``), which the page searches."""
    experiment = experiment_of(store, exp_id)
    samples = store.samples(exp_id)
    found = labelling.run_findings(store, experiment, samples)
    try:
        labels = read_labels(labelling.folder_of(experiment))
    except InputError:
        labels = {}
    rows, panes, texts = [], {}, {}
    for number, sample in enumerate(samples):
        mine = [{**f, **{k: (labels.get(finding_key(sample.sample_id, f)) or {}).get(k, "") for k in ("label", "reviewer")}}
                for f in found.get(sample.sample_id) or []]
        row = rows_.light_row(sample, mine, number)
        rows.append(row)
        panes[sample.sample_id] = transcript_html(experiment["benchmark"], sample, exp_id, mine)
        texts[sample.sample_id] = search_parts(sample)
    summary = experiment.get("summary") or {}
    return {"exp_id": exp_id, "benchmark": experiment["benchmark"], "model": experiment.get("model", ""),
            "status": experiment.get("status", ""), "accuracy": summary.get("accuracy"),
            "columns": rows_.COLUMNS, "page_size": rows_.PAGE_SIZE, "choices": rows_.filter_choices(rows),
            "rows": rows, "panes": panes, "text": texts}


def _inline_json(data: dict) -> str:
    # Inside <script type="application/json">: no "<" may close the element early.
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace("\u2028", "\\u2028") \
        .replace("\u2029", "\\u2029")


def write_bundle(store, exp_id: str, out: str | Path) -> dict:
    """Write ``out``/index.html and ``out``/data.json; returns what was written."""
    data = bundle_data(store, exp_id)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    nonce = secrets.token_urlsafe(16)
    page = (PAGE.replace("__NONCE__", nonce).replace("__CSS__", LIST_CSS + TRANSCRIPT_CSS)
            .replace("__TITLE__", f"evalui · {exp_id}".replace("&", "&amp;").replace("<", "&lt;"))
            .replace("__DATA__", _inline_json(data)))
    (folder / "index.html").write_text(page, encoding="utf-8")
    (folder / "data.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return {"exp_id": exp_id, "samples": len(data["rows"]), "out": str(folder),
            "files": [str(folder / "index.html"), str(folder / "data.json")]}
