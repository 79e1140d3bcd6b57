"""Light reads (evalui.store.light): a sample page, its filters and facets, one sample, and
``compare_runs`` agree with what the full samples say, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
from peers import settings_for
from pg_server import pg_url, postgres_server  # noqa: F401  (fixtures)

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.reports.comparison import compare_runs, outcome
from evalui.reports.verdicts import verdict_of
from evalui.run import lifecycle
from evalui.run.findings import scan, stored_findings
from evalui.scanners.validity import is_invalid
from evalui.stats.paired import compare_outcomes, flipped
from evalui.store.light import ANY_INVALID
from evalui.store.run_store import RunStore
from evalui.viewer.inspector_data import error_type_of
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer, completion, error


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'light.sqlite'}"
    return request.getfixturevalue("pg_url")


def _script(oracle: BfclOracle, wrong: tuple[str, ...]):
    def script(body, n):
        entry = oracle.entry_for(body)
        if entry.id.endswith("_4"):
            return error(400, "scripted refusal")  # an endpoint error: invalid, never judged
        if entry.id.endswith("_6"):
            return completion("")  # an empty reply: judged wrong, and found invalid
        if entry.id.endswith(wrong):
            return oracle.wrong_reply(body)
        return oracle.gold_reply(body)
    return script


def _two_runs(store: RunStore, tmp_path) -> tuple[str, str]:
    oracle = BfclOracle(["simple_python"])
    ids = []
    for name, wrong in (("a", ("_1", "_3")), ("b", ("_3", "_5", "_8"))):
        with ScriptedPeer(_script(oracle, wrong)) as peer:
            settings = settings_for(peer, max_retries=0)
            exp_id = lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=12, mode="fc"),
                                       settings, exp_id=f"light-{name}", out=tmp_path / name)
            lifecycle.execute(store, exp_id, settings, concurrency=4)
        ids.append(exp_id)
    return ids[0], ids[1]


def test_light_rows_filters_pages_and_compare_agree_with_the_full_samples(store_url, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore(url=store_url)
    a, b = _two_runs(store, tmp_path)
    full = {s.sample_id: s for s in store.samples(b)}
    rows = store.sample_rows(b)
    assert [r.sample_id for r in rows] == list(full)  # run order
    for row in rows:
        sample = full[row.sample_id]
        assert row.verdict == verdict_of(sample) and row.error_type == error_type_of(sample)
        assert row.group == sample.group and row.stage == sample.stage and row.latency_s == sample.latency_s
        assert row.tokens == sample.prompt_tokens + sample.completion_tokens
        # A never-judged sample's findings are kept in its row (the summary's scan stored them).
        found = stored_findings(sample) if sample.stage == "judged" else sample.findings
        assert row.findings == (None if found is None else sorted({(f["scanner"], f["severity"]) for f in found}))
    assert {r.verdict for r in rows} == {"correct", "wrong", "error"}
    assert any(r.invalid for r in rows if r.stage == "judged")  # the empty reply

    # Filters: each equals the same filter over the full samples.
    for verdict in ("correct", "wrong", "error", "pending", "unscored"):
        assert [r.sample_id for r in store.sample_rows(b, verdict=verdict)] == \
            [i for i, s in full.items() if verdict_of(s) == verdict]
    for kind in {error_type_of(s) for s in full.values()}:
        assert [r.sample_id for r in store.sample_rows(b, error_type=kind)] == \
            [i for i, s in full.items() if error_type_of(s) == kind]
    invalid = [r.sample_id for r in store.sample_page(b, 0, 100, finding=ANY_INVALID).rows]
    assert invalid and all(r.invalid for r in rows if r.sample_id in invalid)
    facets = store.sample_facets(b)
    assert facets["group"] == {"simple_python": 12} and sum(facets["verdict"].values()) == 12
    assert facets["finding"][ANY_INVALID] == sum(1 for r in rows if r.invalid)
    for scanner in (name for name in facets["finding"] if name != ANY_INVALID):
        assert [r.sample_id for r in store.sample_rows(b, finding=scanner)] == \
            [r.sample_id for r in rows if scanner in r.scanners]

    # Pages: in order, with the count of all that pass; other orders hold the same rows.
    pages = [store.sample_page(b, offset, 5) for offset in (0, 5, 10)]
    assert [p.total for p in pages] == [12, 12, 12] and [len(p.rows) for p in pages] == [5, 5, 2]
    assert [r.sample_id for p in pages for r in p.rows] == list(full)
    assert store.sample_page(b, 0, 3, verdict="correct").total == sum(1 for r in rows if r.verdict == "correct")
    slowest = store.sample_page(b, 0, 12, order_by="latency", descending=True).rows
    latencies = [r.latency_s for r in slowest if r.latency_s is not None]
    assert latencies == sorted(latencies, reverse=True)
    by_tokens = [r.tokens for r in store.sample_rows(b, order_by="tokens")]
    assert by_tokens == sorted(by_tokens)
    with pytest.raises(ValueError):
        store.sample_page(b, 0, 5, order_by="payload; DROP TABLE samples")

    # One sample: exactly what samples() reads; an unknown one is None.
    some = rows[3].sample_id
    assert store.sample(b, some) == full[some] and store.sample(b, "nope") is None
    assert list(store.samples_by_id(b, [some, rows[0].sample_id, "nope"])) == [some, rows[0].sample_id]

    # compare_runs from light rows gives what the full samples (scanned afresh) give.
    record = compare_runs(store, a, b)
    samples_a, samples_b = store.samples(a), store.samples(b)
    outcomes_a = {s.sample_id: outcome(s) for s in samples_a}
    outcomes_b = {s.sample_id: outcome(s) for s in samples_b}
    reference = compare_outcomes(outcomes_a, outcomes_b, {s.sample_id: s.group for s in samples_a}).as_dict()
    assert {k: record[k] for k in reference} == reference
    assert {d: [f["id"] for f in record["flipped"][d]] for d in record["flipped"]} == flipped(outcomes_a, outcomes_b)
    for run, samples in ((a, samples_a), (b, samples_b)):
        scan(store, store.experiment(run), samples)
    invalid_ids = {s.sample_id for s in samples_a + samples_b if is_invalid(s.findings)}
    paired = [i for i in outcomes_a if outcomes_a[i] is not None and outcomes_b.get(i) is not None]
    assert record["valid"]["invalid_pairs"] == sum(1 for i in paired if i in invalid_ids) > 0
    store.close()
