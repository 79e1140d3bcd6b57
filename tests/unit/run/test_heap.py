"""The evalui command makes fewer young and full collections while it works, and leaves Python's
defaults in place before it returns, also after an error (its shutdown is then Python's usual one)."""
from __future__ import annotations

import gc

import pytest

from evalui.run import heap


def test_collections_are_rarer_inside_and_the_defaults_return_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with heap.fewer_collections():
            assert gc.get_threshold() == (heap.YOUNG_THRESHOLD, before[1], before[2] * heap.FEWER_FULL_COLLECTIONS)
            raise RuntimeError("the run failed")
    assert gc.get_threshold() == before
    assert before[0] < heap.YOUNG_THRESHOLD  # Python's default (700) is what the context raises


def test_a_young_threshold_set_higher_already_is_kept():
    before = gc.get_threshold()
    gc.set_threshold(50_000, before[1], before[2])
    try:
        with heap.fewer_collections():
            assert gc.get_threshold()[0] == 50_000
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.set_threshold(*before)


def test_the_command_freezes_what_is_alive_at_exit_and_its_files_are_written(tmp_path):
    """The exit's collections walk nothing the process held (the objects are frozen first), and what
    the process wrote before exiting is on disk: freezing skips collections, not flushes."""
    import subprocess
    import sys
    import textwrap

    out = tmp_path / "written.txt"
    script = textwrap.dedent(f"""
        import atexit, gc, sys
        def report():  # registered first, so it runs after the freeze
            print(gc.get_freeze_count(), file=sys.stderr)
        atexit.register(report)
        from evalui.run import heap
        cycles = [[[]] for _ in range(10_000)]
        for c in cycles:
            c[0].append(c)
        heap.freeze_at_exit()
        heap.freeze_at_exit()
        handle = open({str(out)!r}, "w")
        handle.write("kept")
        print("done")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert int(done.stderr.strip()) >= 20_000
    assert out.read_text() == "kept"


def test_the_command_freezes_what_the_preparation_left_and_gives_it_back_after_the_run():
    assert gc.get_freeze_count() == 0
    heap.settle_before_run_phase()  # outside the command (the dashboard's runs): nothing frozen
    assert gc.get_freeze_count() == 0
    prepared = [[index] for index in range(1000)]  # what a run's preparation leaves alive
    with pytest.raises(RuntimeError):
        with heap.fewer_collections():
            heap.settle_before_run_phase()
            frozen = gc.get_freeze_count()
            assert frozen >= len(prepared)  # out of the run phase's collections
            raise RuntimeError("the run failed")
    assert gc.get_freeze_count() == 0  # the collector's again, also after an error


def test_a_process_that_froze_objects_itself_keeps_its_freeze():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with heap.fewer_collections():
            heap.settle_before_run_phase()
            assert gc.get_freeze_count() == frozen  # not frozen again on top of the caller's
        assert gc.get_freeze_count() == frozen  # nor unfrozen behind its back
    finally:
        gc.unfreeze()
