"""A stored run as a static, read-only copy of the viewer (``evalui view EXP --out DIR``): ``index.html``
holds the page, its script and the run's data (it opens from file://, where a page cannot fetch a
file beside it), and ``data.json`` the same data for other tools. No server, no network: the script
is inline, allowed by a per-bundle nonce in the page's Content-Security-Policy.

The transcript panes are the dashboard's own (viewer_transcript, every piece of model text escaped);
the page's script builds the list with textContent only."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from evalui.errors import InputError
from evalui.scanners.labels import finding_key, read_labels
from evalui.store.search import sample_text
from evalui.viewer import findings as labelling
from evalui.viewer import rows as rows_
from evalui.viewer.bundle_page import PAGE
from evalui.viewer.data import experiment_of
from evalui.viewer.style import LIST_CSS, TRANSCRIPT_CSS
from evalui.viewer.transcript import transcript_html

SEARCH_CHARS = 20_000  # of each sample's text searched in the page; a long agent transcript is searched in its head


def bundle_data(store, exp_id: str) -> dict:
    """Everything the static page shows: the run, its light rows, each sample's pane and searchable text."""
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
        texts[sample.sample_id] = sample_text(sample)[:SEARCH_CHARS].casefold()
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
