"""The generic runner: a task that fails on one sample's data does not stop the run."""
from __future__ import annotations

from evalui.store.run_store import RunStore


def test_a_runs_charts_link_the_one_plotly_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    from evalui.reports.charts import count_bars, write_html

    folders = [tmp_path / "data" / "runs" / name for name in ("a", "b")]
    for folder in folders:
        folder.mkdir(parents=True)
        write_html(count_bars({"x": 1}, "one"), folder / "one.html")
        write_html(count_bars({"x": 2}, "two"), folder / "two.html")
    scripts = [folder / "plotly.min.js" for folder in folders]
    assert scripts[0].stat().st_size > 1_000_000
    assert scripts[0].stat().st_ino == scripts[1].stat().st_ino  # one copy on disk, however many runs
    assert 'src="plotly.min.js"' in (folders[1] / "two.html").read_text()  # found offline, beside the page


def test_the_bfcl_run_task_prepares_its_single_turn_requests_up_front(tmp_path):
    """The dispatching BFCL task forwards prepare: otherwise every request is built on the hot path."""
    from evalui.benchmarks.bfcl import request
    from evalui.benchmarks.bfcl.spec import BfclRunTask

    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("b", "bfcl", "m", "h", {})
    store.add_samples("b", [("simple_python_7", "simple_python", {}), ("multi_turn_base_0", "multi_turn_base", {})])
    request._first_request.cache_clear()
    BfclRunTask(mode="fc").prepare(store.samples("b"))
    assert request._first_request.cache_info().currsize == 1  # the single-turn sample's request, built ahead
    store.close()


def test_only_single_turn_bfcl_requests_are_fixed_before_their_call(tmp_path):
    """A multi-turn or agentic conversation grows as it goes: the runner must build it on its turn."""
    from evalui.benchmarks.bfcl.spec import BfclRunTask

    store = RunStore(tmp_path / "runs.sqlite")
    store.create_or_get_experiment("b", "bfcl", "m", "h", {})
    store.add_samples("b", [("simple_python_7", "simple_python", {}), ("multi_turn_base_0", "multi_turn_base", {}),
                            ("memory_kv_0-customer-0", "memory_kv", {})])
    task = BfclRunTask(mode="fc")
    try:
        assert {s.sample_id: task.fixed_request(s) for s in store.samples("b")} == {
            "simple_python_7": True, "multi_turn_base_0": False, "memory_kv_0-customer-0": False}
    finally:
        task.close()
        store.close()
