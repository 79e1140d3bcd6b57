"""A store damaged or tampered with by SQL (a part reference to nothing, an error_type that is an
object, an id the benchmark does not have): ``evalui scan``, ``rescore`` and ``export`` say so in
one line that names the run and the sample, and exit non-zero, instead of a traceback."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest
from peers import settings_for

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.run import lifecycle
from evalui.store.parts import references
from evalui.store.run_store import RunStore
from support.bfcl_multi_turn_oracle import MultiTurnOracle
from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

COMMANDS = (("scan", "t1"), ("rescore", "t1"), ("export", "inspect", "t1"))


def evalui(*args: str, data) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "EVALUI_DATA_DIR": str(data)}, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A finished BFCL run (two single-turn samples, one of them wrong, and two multi-turn), made once."""
    folder = tmp_path_factory.mktemp("stored") / "data"
    single, multi = BfclOracle(["simple_python"]), MultiTurnOracle(["multi_turn_base"], limit=2)

    def script(body, n):
        entry = single.entry_for(body)
        if entry is None:
            return multi.reply(body)
        return single.wrong_reply(body) if entry.id.endswith("_1") else single.gold_reply(body)

    with pytest.MonkeyPatch.context() as env, ScriptedPeer(script) as peer:
        env.setenv("EVALUI_DATA_DIR", str(folder))
        store = RunStore()
        settings = settings_for(peer, max_retries=0)
        options = BfclOptions(categories=["simple_python", "multi_turn_base"], limit=2, mode="fc")
        exp_id = lifecycle.prepare(store, BFCL, options, settings, exp_id="t1")
        lifecycle.execute(store, exp_id, settings, concurrency=2)
        assert {s.sample_id: s.stage for s in store.samples(exp_id)} == dict.fromkeys(
            ["simple_python_0", "simple_python_1", "multi_turn_base_0", "multi_turn_base_1"], "judged")
        store.close()
    return folder


def tampered(stored, tmp_path, sql: str, params: tuple = ()):
    """A copy of the stored run's data folder, changed by one SQL statement."""
    data = tmp_path / "data"
    shutil.copytree(stored, data)
    with sqlite3.connect(data / "evalui.sqlite") as db:
        assert db.execute(sql, params).rowcount == 1
    return data


def assert_one_line(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode != 0, done.stdout[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    said = [line for line in done.stderr.splitlines() if line.startswith("evalui:")]
    assert len(said) == 1 and said == done.stderr.strip().splitlines()[-1:], done.stderr[-3000:]
    for word in words:
        assert word in said[0], said[0]


def test_a_part_reference_to_nothing_is_one_line(stored, tmp_path):
    with sqlite3.connect(stored / "evalui.sqlite") as db:
        (request,) = db.execute("SELECT request FROM samples WHERE sample_id = 'simple_python_1'").fetchone()
    digest = references(request)[0]  # the sample's function docs, stored once as a part
    data = tampered(stored, tmp_path, "UPDATE samples SET request = replace(request, ?, ?) WHERE sample_id = ?",
                    (digest, "0" * 64, "simple_python_1"))
    for command in COMMANDS:
        assert_one_line(evalui(*command, data=data), "run 't1', sample 'simple_python_1'",
                        f"the part {'0' * 64} it refers to is missing from the store")


def test_an_error_type_that_is_an_object_is_one_line(stored, tmp_path):
    data = tampered(stored, tmp_path, "UPDATE samples SET verdict = json_set(verdict, '$.error_type', "
                    "json('{\"kind\": \"x\"}')) WHERE sample_id = 'simple_python_1'")
    for command in COMMANDS:
        assert_one_line(evalui(*command, data=data), "run 't1', sample 'simple_python_1'",
                        "its verdict's error_type is a JSON object, not text")


@pytest.mark.parametrize("sample_id", ["simple_python_1", "multi_turn_base_0"])
def test_an_id_the_benchmark_does_not_have_is_one_line_where_it_is_needed(stored, tmp_path, sample_id):
    category, _ = sample_id.rsplit("_", 1)
    data = tampered(stored, tmp_path, "UPDATE samples SET sample_id = ? WHERE sample_id = ?",
                    (f"{category}_999999", sample_id))
    # Judging needs the entry the sample was asked from.
    assert_one_line(evalui("rescore", "t1", data=data), f"run 't1', sample '{category}_999999'",
                    f"BFCL's {category} data has no entry '{category}_999999'")
    if sample_id == "simple_python_1":
        # Scanning and exporting read only what the store holds (the export leaves that sample's target
        # empty): a store written with other data still scans and exports.
        for command in (("scan", "t1"), ("export", "inspect", "t1", "--out", str(tmp_path / "t1.json"))):
            done = evalui(*command, data=data)
            assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
