"""The viewer's list is filtered, searched, sorted and paged in SQL (store.sample_view through
evalui.viewer.data), on SQLite and PostgreSQL, and gives exactly the rows a straightforward Python filter
and sort over ``store.samples`` gives: every filter, the search, every column in both directions (empty
values last, ties in stored order), every page, and the page that holds a selected sample."""
from __future__ import annotations

import itertools

import pytest
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)
from unit.store.test_postgres_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)

from evalui.store.run_store import RunStore
from evalui.viewer import data, rows

pytestmark = pytest.mark.integration

COUNT = 45
WORDS = ("alpha", "beta", "gamma", "Ärger", "delta")
FILTERS = {
    "verdict": [rows.ALL, *rows.VERDICTS, "nonsense"],
    "group": [rows.ALL, "g1", "g2", "missing"],
    "error_type": [rows.ALL, "wrong_value", "wrong_format", "endpoint_error"],
    "finding": [rows.ALL, rows.ANY_INVALID, "truncated", "refusal"],
    "text": ["", "alpha", "ärger", "no call", "gam", "zzz"],
}
COLUMNS = ["position", *rows.COLUMNS, "unknown"]


def _id(i: int) -> str:
    # Ids whose order is not the stored one, with ties in every other column.
    return f"{'éx' if i % 11 == 0 else 's'}{(i * 17) % COUNT:02d}"


def stored_run(store: RunStore) -> dict[str, str]:
    """A run of every kind of sample; returns each sample's searchable text as this test wrote it."""
    store.create_or_get_experiment("v", "echo", "m", "h", {})
    groups = ["g1", "g2", ""]
    store.add_samples("v", [(_id(i), groups[i % 3], {}) for i in range(COUNT)])
    texts, errors = {}, {}
    for i in range(COUNT):
        sid, word = _id(i), WORDS[i % len(WORDS)]
        request = {"messages": [{"role": "user", "content": f"question {word} {i}"}]}
        texts[sid] = f"{sid} {groups[i % 3]}"
        if i % 7 == 1:
            continue  # pending: never asked, so only its id and group are searched
        texts[sid] += f" question {word} {i}"
        if i % 7 == 0:
            store.record_error("v", sid, request=request, error=f"HTTP 500 {i}", attempts=1)
            texts[sid] += f" HTTP 500 {i}"
            if i % 14 == 0:
                errors[sid] = [{"scanner": "endpoint_error", "severity": "invalid", "step": None, "message": "x"}]
            continue
        store.record_rollout("v", sid, request=request, response={"text": f"answer {i}"}, attempts=1,
                             latency_s=None if i % 9 == 0 else round(0.1 * (i % 4), 1), prompt_tokens=i % 3,
                             completion_tokens=1)
        texts[sid] += f" answer {i}"
        correct = i % 3 == 0
        verdict = {"scored": False} if i % 7 == 2 else {"error_type": None if correct else
                                                         ["wrong_value", "wrong_format", None][i % 3]}
        if i % 5 == 0:
            verdict["reason"] = "no call found"
            texts[sid] += " no call found"
        verdict["findings"] = [[], [{"scanner": "truncated", "severity": "warning"}],
                               [{"scanner": "refusal", "severity": "invalid"}]][i % 3] if i % 4 else None
        if verdict["findings"] is None:
            del verdict["findings"]
        store.record_judgement("v", sid, prediction=f"pred {i}", correct=correct, verdict=verdict)
    store.record_findings("v", {}, errors)
    return texts


def expected(store: RunStore, texts: dict[str, str], *, verdict, group, error_type, finding, text, column,
             descending) -> list[dict]:
    """The list as Python filters and sorts it (evalui.viewer.rows) over every stored sample."""
    every = []
    for sample in store.samples("v"):
        found = (sample.verdict or {}).get("findings") if sample.stage == "judged" else sample.findings
        every.append(rows.light_row(sample, found or [], sample.position))
    ids = None
    if text:
        word = text.lower()
        ids = {sid for sid, body in texts.items()
               if word in body.lower() and all(any(w.startswith(q) for w in body.lower().split())
                                               for q in word.split())}
    shown = rows.filtered(every, verdict=verdict, group=group, error_type=error_type, finding=finding, ids=ids)
    return rows.sorted_rows(shown, column, descending)


def cases():
    """Each filter alone, with every sort, and a few filters together."""
    for key, values in FILTERS.items():
        for value in values[1:]:
            yield {key: value}
    yield {}
    for verdict, finding, text in itertools.product(["wrong", "error"], [rows.ALL, rows.ANY_INVALID], ["", "question"]):
        yield {"verdict": verdict, "finding": finding, "text": text, "group": "g2"}


def test_sql_lists_match_python_over_every_filter_sort_and_page(store_url):
    store = RunStore(url=store_url)
    texts = stored_run(store)
    checked = 0
    for case in cases():
        filters = {"verdict": rows.ALL, "group": rows.ALL, "error_type": rows.ALL, "finding": rows.ALL, "text": "",
                   **case}
        for column, descending in itertools.product(COLUMNS, (False, True)):
            want = expected(store, texts, **filters, column=column, descending=descending)
            _, shown = data.listing(store, "v", **filters, column=column, descending=descending)
            assert shown == want, (str(filters), column, descending)
            size = 7
            pages = [data.page(store, "v", **filters, column=column, descending=descending, number=n, size=size)
                     for n in range(rows.page_count(len(want), size))]
            assert [r for p in pages for r in p.rows] == want and {p.total for p in pages} == {len(want)}
            assert [p.page for p in pages] == list(range(len(pages)))
            if want:
                chosen = want[len(want) // 2]["id"]
                holding = data.page(store, "v", **filters, column=column, descending=descending, number=None,
                                    selected=chosen, size=size)
                assert holding.selected == len(want) // 2 and holding.page == len(want) // 2 // size
                assert chosen in [r["id"] for r in holding.rows]
            checked += 1
    past = data.page(store, "v", number=99, size=10)  # past the last page: the last one
    assert (past.page, [r["id"] for r in past.rows]) == (4, [r["id"] for r in data.run_rows(store, "v")][40:])
    assert data.page(store, "v", selected="no-such-sample", number=None).selected is None
    assert checked > 300
    store.close()


def test_filter_choices_counted_in_sql_are_the_ones_the_rows_offer(store_url):
    store = RunStore(url=store_url)
    stored_run(store)
    assert data.choices(store, "v") == rows.filter_choices(data.run_rows(store, "v"))
    assert data.choices(store, "v")["finding"] == [rows.ALL, rows.ANY_INVALID, "endpoint_error", "refusal", "truncated"]
    store.close()
