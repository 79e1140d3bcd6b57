"""A benchmark's render_verdict hook in the viewer's transcript: what it gives is shown under the
answers (its words in the visitor's language, the run's text escaped and marked as the run's), a
restated field replaces the stored one in the checker's record only, a key the catalog lacks is shown
as the key, and a benchmark without the hook, or whose data cannot be read, adds nothing."""

from __future__ import annotations

import sys
import types

import pytest

from evalui.core import registry
from evalui.core.benchmark import Benchmark, Options, Said, VerdictTable, VerdictView
from evalui.store.rows import Sample
from evalui.viewer import transcript
from evalui.viewer.texts import TRANSCRIPT_STRINGS

pytestmark = pytest.mark.unit

HOSTILE = '<img src=x onerror="window.__pwned=1">'


class NoOptions(Options):
    pass


def _view(sample) -> VerdictView:
    if sample.sample_id == "unreadable":
        raise KeyError("no such entry in this installation's data")
    return VerdictView(record={"failed_step": Said("viewer.turn", {"n": sample.verdict["failed_step"] + 1})},
                       tables=(VerdictTable(Said("viewer.state_differs", {"turn": 3}),
                                            (Said("viewer.state.attribute"), Said("toy.not_in_the_catalog")),
                                            ((HOSTILE, "</pre></td>"),), subject=HOSTILE),))


WITH_HOOK = Benchmark(name="verdicttoy", title="Verdict toy", options=NoOptions, samples=lambda o: [],
                      task=lambda *a: None, render_verdict=_view)
WITHOUT_HOOK = Benchmark(name="plaintoy", title="Plain toy", options=NoOptions, samples=lambda o: [],
                         task=lambda *a: None)


@pytest.fixture(autouse=True)
def toys(monkeypatch):
    module = types.ModuleType("verdicttoy_spec")
    module.WITH_HOOK, module.WITHOUT_HOOK = WITH_HOOK, WITHOUT_HOOK
    monkeypatch.setitem(sys.modules, "verdicttoy_spec", module)
    monkeypatch.setattr(registry, "_registered", {"verdicttoy": "verdicttoy_spec:WITH_HOOK",
                                                  "plaintoy": "verdicttoy_spec:WITHOUT_HOOK"})


def chinese(key: str, **fields) -> str:
    return TRANSCRIPT_STRINGS[key][1].format(**fields)


def sample(sample_id: str = "s1") -> Sample:
    return Sample(exp_id="run", sample_id=sample_id, position=1, group="g", stage="judged", payload={},
                  prediction="x", correct=False, verdict={"error_type": "mismatch", "failed_step": 0, "kept": 7})


def test_the_hook_s_tables_and_record_in_the_pane():
    pane = transcript.transcript_html("verdicttoy", sample(), "run")
    assert ('<h4 class="evalui-verdict-heading" data-key="viewer.state_differs">State after turn 3 differs from the '
            'gold&#x27;s: <span class="evalui-data">&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;</span></h4>'
            ) in pane
    assert "<th>attribute</th><th>toy.not_in_the_catalog</th>" in pane
    assert "<img" not in pane and "&lt;/pre&gt;&lt;/td&gt;</pre></td>" in pane
    assert pane.index('data-role="gold"') < pane.index("evalui-verdict-table") < pane.index('data-kind="checker"')
    record = pane.split('data-role="checker">', 1)[1].split("</pre>", 1)[0].splitlines()
    assert "failed_step: turn 1" in record and "kept: 7" in record  # the rest as stored
    assert "failed_step: 第 1 轮" in transcript.transcript_html("verdicttoy", sample(), "run", words=chinese)
    assert "第 3 轮后的状态与标准答案不同：" in transcript.transcript_html("verdicttoy", sample(), "run", words=chinese)


def test_the_hook_s_cells_are_searched_as_the_pane_s_other_texts():
    pane, hits = transcript.highlighted(transcript.transcript_html("verdicttoy", sample(), "run"), [["pwned"]])
    # the cell's <pre>; the heading's subject is a line of the page's words, as the head line's ids are
    assert hits == 1 and '<pre class="evalui-inspector-text" data-role="verdict-table">&lt;img src=x onerror=&quot;window.__' \
        '<mark class="evalui-hit">pwned</mark>' in pane


@pytest.mark.parametrize("benchmark,sample_id", [("plaintoy", "s1"), ("verdicttoy", "unreadable"),
                                                 ("not-installed-here", "s1")])
def test_nothing_is_added_without_a_view(benchmark, sample_id):
    pane = transcript.transcript_html(benchmark, sample(sample_id), "run")
    assert "evalui-verdict" not in pane and "failed_step: 0" in pane
