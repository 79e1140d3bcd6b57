"""Clustered accuracy intervals: which stored samples share a cluster (checked against bfcl-eval's
own data files), the interval against Wilson's without clusters, and its design effect."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evalui.benchmarks.bfcl.clusters import cluster_of as bfcl_rule
from evalui.stats.clustered import (
    METHOD_CLUSTERED,
    METHOD_WILSON,
    by_sample,
    cluster_key,
    clustered_accuracy,
    clustered_accuracy_by,
    interval_from_cluster_sums,
)
from evalui.stats.metrics import wilson

pytestmark = pytest.mark.unit


def _bfcl_entries(name: str) -> list[dict]:
    bfcl_eval = pytest.importorskip("bfcl_eval")
    path = Path(bfcl_eval.__file__).parent / "data" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bfcl_multi_turn_variants_of_one_base_entry_share_a_cluster():
    variants = ("base", "miss_func", "miss_param", "long_context")
    entries = {v: {e["id"]: e for e in _bfcl_entries(f"BFCL_v4_multi_turn_{v}.json")} for v in variants}
    for index in (0, 12, 199):
        ids = [f"multi_turn_{v}_{index}" for v in variants]
        # The same base entry: one gold path and one set of classes in every variant.
        assert len({json.dumps(entries[v][i]["path"]) for v, i in zip(variants, ids)}) == 1
        assert {cluster_key(i, bfcl_rule) for i in ids} == {f"bfcl:multi_turn:{index}"}
        assert cluster_key(f"{ids[1]}#e3", bfcl_rule) == f"bfcl:multi_turn:{index}"
    assert cluster_key("multi_turn_base_1", bfcl_rule) != cluster_key("multi_turn_base_12", bfcl_rule)


def test_bfcl_memory_entries_cluster_by_scenario_on_every_backend():
    pytest.importorskip("bfcl_eval")
    from bfcl_eval.utils import load_dataset_entry  # bfcl-eval names each backend's entries itself

    clusters: dict[str, set[str]] = {}
    for category in ("memory_kv", "memory_vector", "memory_rec_sum"):
        for entry in load_dataset_entry(category, include_prereq=False):
            clusters.setdefault(entry["scenario"], set()).add(cluster_key(entry["id"], bfcl_rule))
    assert clusters == {s: {f"bfcl:memory:{s}"} for s in clusters} and len(clusters) == 5


def test_bfcl_web_search_variants_of_one_question_share_a_cluster():
    pytest.importorskip("bfcl_eval")
    from bfcl_eval.utils import load_dataset_entry

    base, no_snippet = (load_dataset_entry(c) for c in ("web_search_base", "web_search_no_snippet"))
    assert len(base) == len(no_snippet) > 0
    for a, b in zip(base, no_snippet):
        assert a["question"] == b["question"] and a["id"] != b["id"]
        assert cluster_key(a["id"], bfcl_rule) == cluster_key(b["id"], bfcl_rule) == \
            f"bfcl:web_search:{a['id'].rsplit('_', 1)[1]}"
    assert len({cluster_key(e["id"], bfcl_rule) for e in base}) == len(base)


def test_other_samples_are_their_own_cluster_but_their_epochs_join_them():
    assert cluster_key("simple_python_3", bfcl_rule) == "simple_python_3"
    assert cluster_key("c61d22de-5f6c-4958-a7f6-5e9707bd3466#e2", by_sample) == "c61d22de-5f6c-4958-a7f6-5e9707bd3466"
    # BFCL's patterns apply to BFCL only when its rule is passed.
    assert cluster_key("multi_turn_base_3", by_sample) == "multi_turn_base_3"


def test_the_spec_gives_its_rule_and_the_summary_clusters_by_it():
    from evalui.benchmarks.bfcl.spec import BENCHMARK
    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
    from evalui.run.experiment import summary_of
    from evalui.store.rows import Sample

    assert BENCHMARK.cluster_of is bfcl_rule and GAIA.cluster_of("t1") == "t1"
    # No rule is no benchmark's: each sample (with its epochs) is its own cluster.
    assert cluster_key("multi_turn_miss_func_4#e2") == "multi_turn_miss_func_4"
    assert cluster_key("c61d22de#e2") == "c61d22de"
    judged = [Sample(exp_id="r", sample_id=i, position=n, group="multi_turn", stage="judged", payload={}, correct=n % 2 == 0)
              for n, i in enumerate(["multi_turn_base_4", "multi_turn_miss_func_4", "multi_turn_base_5"])]
    assert summary_of("r", judged, BENCHMARK.cluster_of)["clusters"] == 2  # base_4 and miss_func_4 share entry 4
    assert summary_of("r", judged)["clusters"] == 3


def test_reports_read_the_stored_benchmark_s_rule():
    from evalui.reports.clusters import cluster_rule

    assert cluster_rule("bfcl") is bfcl_rule and cluster_rule("not-installed") is by_sample
    assert cluster_rule(None) is None


@pytest.mark.parametrize("successes, total", [(0, 10), (7, 10), (10, 10), (123, 200), (1, 1)])
def test_without_clusters_the_interval_is_wilson_exactly(successes, total):
    outcomes = [(f"s{i}", i < successes) for i in range(total)]
    interval = clustered_accuracy(outcomes)
    plain = wilson(successes, total)
    assert (interval.low, interval.rate, interval.high) == (plain.low, plain.rate, plain.high)
    assert interval.method == METHOD_WILSON and interval.design_effect == 1.0 and interval.clusters == total


def test_clusters_that_agree_within_widen_the_interval_by_their_design_effect():
    # 40 clusters of 5 answers, each cluster all right or all wrong: worth 40 answers, not 200.
    outcomes = [(f"c{c}", c % 4 != 0) for c in range(40) for _ in range(5)]
    interval = clustered_accuracy(outcomes)
    assert interval.rate == pytest.approx(0.75) and interval.clusters == 40 and interval.total == 200
    assert interval.method == METHOD_CLUSTERED
    # CR1 variance: 40/39 · Σ(y − p·m)² / n² over the binomial p(1−p)/n gives the design effect.
    robust = 40 / 39 * (10 * (0 - 3.75) ** 2 + 30 * (5 - 3.75) ** 2) / 200 ** 2
    assert interval.design_effect == pytest.approx(robust / (0.75 * 0.25 / 200))
    assert interval.design_effect == pytest.approx(5 * 40 / 39)
    from scipy.stats import t

    z, effective = t.ppf(0.975, 39), 200 / interval.design_effect
    centre = (0.75 + z * z / (2 * effective)) / (1 + z * z / effective)
    half = z * math.sqrt(0.75 * 0.25 / effective + z * z / (4 * effective ** 2)) / (1 + z * z / effective)
    assert (interval.low, interval.high) == pytest.approx((centre - half, centre + half))
    naive = wilson(150, 200)
    assert interval.high - interval.low > 2 * (naive.high - naive.low)


def test_all_right_in_clusters_counts_each_cluster_once():
    interval = interval_from_cluster_sums([4] * 10, [4] * 10)
    assert interval.rate == 1.0 and interval.high == 1.0 and interval.design_effect == 4
    # No better than ten independent answers, all right.
    assert interval.low < wilson(10, 10).low
    single = interval_from_cluster_sums([3], [5])
    assert single.low < 0.6 < single.high


def test_per_group_intervals_keep_accuracy_by_s_shape():
    rows = [("odd", f"x{i}", True) for i in range(6)] + [("even", f"y{i // 2}", i % 2 == 0) for i in range(8)]
    groups = clustered_accuracy_by(rows)
    assert list(groups) == ["odd", "even"]
    assert groups["odd"].as_dict() == wilson(6, 6).as_dict()
    assert set(groups["even"].as_dict()) == {"successes", "total", "rate", "low", "high"}
    assert groups["even"].rate == 0.5
