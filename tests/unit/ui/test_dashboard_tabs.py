"""The dashboard's tabs come from the registry (Benchmark.tabs): the benchmarks' own tabs first, in
the registry's order, then Verification, Runs and Score, then a generic tab per benchmark without
tabs of its own; the ids are those the page always had."""

from __future__ import annotations

import gradio as gr

from evalui.core import registry


def tab_ids(demo) -> list[str]:
    return [block.id for block in demo.blocks.values() if isinstance(block, gr.Tab)]


def test_tabs_keep_their_ids_and_order(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(registry, "_registered", {})
    monkeypatch.delenv("EVALUI_BENCHMARKS", raising=False)
    from evalui.store.run_store import RunStore
    from evalui.ui import build_demo

    store = RunStore()
    try:
        demo = build_demo(store)
    finally:
        store.close()
    extra = registry.extra_names()  # installed plugins get the generic tab, last
    assert tab_ids(demo) == ["bfcl", "gaia", "aime", "aime-results", "verify", "runs", "score", *extra]
    ids = {block.elem_id for block in demo.blocks.values() if isinstance(block, gr.Tab)}
    assert {"tab-bfcl", "tab-gaia", "tab-aime", "tab-aime-results", "tab-verify", "tab-runs", "tab-score"} <= ids


def test_every_named_tab_module_resolves_to_tabs():
    from evalui.ui import BenchmarkTab, own_tabs

    for name in registry.BUILT_IN:
        spec = registry.get(name)
        assert spec.tabs is not None, f"{name}: a built-in benchmark names its tabs (or '' for none)"
        assert all(isinstance(tab, BenchmarkTab) for tab in own_tabs(spec))
