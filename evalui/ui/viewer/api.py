"""The viewer from outside the page: deep links (``?run=EXP&sample=ID`` opens that run and sample in
the Runs tab's viewer on load) and named endpoints for API callers, which take any stored id and
refuse an unknown one with a clear error."""

from __future__ import annotations

import html

import gradio as gr

from evalui.errors import InputError
from evalui.ui.viewer import page as viewer
from evalui.viewer import data, rows

# The Runs tab is where a deep link's run opens; its tab button is found by the Tab's elem_id.
SELECT_RUNS_TAB_JS = """() => {
  const wanted = new URLSearchParams(window.location.search).get('run');
  if (!wanted) return;
  const button = document.querySelector('#tab-runs-button')
    || [...document.querySelectorAll('button[role="tab"]')].find((b) => (b.getAttribute('aria-controls') || '') === 'tab-runs');
  if (button) button.click();
}"""


def _known(store, exp_id) -> str:
    if not exp_id or store.experiment(str(exp_id)) is None:
        raise gr.Error(f"No stored run named {str(exp_id or '')[:200]!r}.")
    return str(exp_id)


def _said(call, *args, **kwargs):
    """``call``'s result; its InputError (a search over the caps or past its deadline) as a gr.Error,
    whose message an API caller reads (any other exception reaches it as a bare "Error")."""
    try:
        return call(*args, **kwargs)
    except InputError as exc:
        raise gr.Error(str(exc)) from None


def deep_link(demo, store, parts: viewer.ViewerParts) -> None:
    """Open the run and sample the page's URL names, pinned against the page's restoring of its dropdown."""
    skip = tuple(gr.skip() for _ in parts.whole())

    def open_link(request: gr.Request):
        params = dict(request.query_params) if request is not None else {}
        exp_id, sample_id = params.get("run"), params.get("sample")
        if not exp_id:
            return skip
        if store.experiment(exp_id) is None:
            gr.Warning(html.escape(f"No stored run named {exp_id[:200]!r}."))
            return skip
        return viewer.open_run(store, exp_id, sample_id or None, pinned=True)

    demo.load(open_link, None, parts.whole(), api_visibility="private")
    demo.load(None, None, None, js=SELECT_RUNS_TAB_JS, api_visibility="private")


def register_endpoints(store) -> None:
    """Named endpoints of the viewer (inside the Blocks being built)."""

    def viewer_samples(exp_id: str, verdict: str = rows.ALL, group: str = rows.ALL, error_type: str = rows.ALL,
                       finding: str = rows.ALL, search: str = "", sort: str = "position", descending: bool = False,
                       page: int = 0) -> dict:
        """One page (50 rows) of a run's samples: filtered, searched (full text), sorted by id, group,
        verdict, error_type, latency_s or tokens."""
        exp_id = _known(store, exp_id)
        _, shown = _said(data.listing, store, exp_id, verdict=verdict, group=group, error_type=error_type,
                         finding=finding, text=search, column=sort, descending=bool(descending))
        page_rows, number = rows.page_of(shown, int(page or 0))
        return {"exp_id": exp_id, "total": len(shown), "page": number, "pages": rows.page_count(len(shown)),
                "rows": [{k: v for k, v in r.items() if k != "position"} for r in page_rows]}

    def viewer_sample(exp_id: str, sample_id: str) -> str:
        """One sample's transcript pane as inert HTML (every piece of model text escaped)."""
        exp_id = _known(store, exp_id)
        if data.sample_of(store, exp_id, str(sample_id or "")) is None:
            raise gr.Error(f"No sample {str(sample_id)[:200]!r} in {exp_id!r}.")
        return data.pane(store, exp_id, str(sample_id))[0]

    def viewer_search(exp_id: str, text: str) -> list:
        """The ids of a run's samples holding every word of ``text`` (prompts, replies, tool calls and output)."""
        return _said(data.search_ids, store, _known(store, exp_id), text or "")

    gr.api(viewer_samples, api_name="viewer_samples")
    gr.api(viewer_sample, api_name="viewer_sample")
    gr.api(viewer_search, api_name="viewer_search")
