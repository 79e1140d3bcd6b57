"""The real transcripts bench/scanner_precision.py measures beside the planted ones.

Scripted peers: the runs the integration tests make of all three benchmarks, each sample labelled by
what its script did (evalui's own runs, as stored; nothing planted for a scanner except the GAIA
search task's answer sheet and leaked question, which are that test's own cases):

- GAIA, the bundled sample (six tasks, attachments among them), answered inline and through the files
  tool, with one wrong answer (task 0005, whose cities.json holds the gold answer); and the search task
  of tests/integration/scanners/test_scan_material.py (pages, a search, an answer sheet, a leaked question).
- BFCL: four single-turn categories in FC and prompt mode (gold calls, a wrong call for one entry in
  four), multi_turn_base (gold turns), memory_kv (gold, a wrong answer, one that never stops calling)
  and web_search_base on a local web (pages, a page that is gone, a redirect, one that never stops
  searching), as in their tests.
- AIME: generation (with the malformed replies the script interleaves), the judge and the win rate.

The local model (Gemma 3 270M through llama.cpp, evalui.endpoint.local.model): the bundled GAIA sample
inline and with the python and files tools, BFCL simple_python in prompt mode, and the AIME judge over
the scripted generator's problems. Its transcripts are labelled by a person who read each one
(bench/data/scanner_local_review.json, keyed by a digest of the transcript, so a transcript that
changes is unlabelled again, never labelled by a guess).
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"

SCRIPTED_MODEL = "scripted-peer"
GAIA_SEARCH_LABELS = {"scan-material-sheet": {"answer_in_context": "warning"},
                      "scan-material-lamp": {"answer_in_context": "warning"},
                      "scan-material-leak": {"answer_in_context": "invalid"}}
BFCL_SINGLE = ["simple_python", "multiple", "parallel", "irrelevance"]
BFCL_LIMIT = 8
MEMORY_WRONG, MEMORY_ENDLESS = {"1-customer-1"}, {"2-customer-2"}
WEB_PAGES = ("/page", "/latin", "/page", "/moved", "/gone")  # by question number; 2 never fetches
WEB_WRONG, WEB_ENDLESS = {"1", "4"}, {"2"}


def _settings(base_url: str, model: str, **more):
    from evalui.endpoint.settings import EndpointSettings

    values = {"api_key": "sk-bench-not-a-key", "timeout_s": 30.0, "max_retries": 0, **more}
    return EndpointSettings(base_url=base_url, model=model, **values)


@contextmanager
def _environment(**values):
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run(store, benchmark, options, settings, exp_id: str, concurrency: int = 4) -> dict:
    from evalui.run import lifecycle

    lifecycle.prepare(store, benchmark, options, settings, exp_id=exp_id, concurrency=concurrency)
    return lifecycle.execute(store, exp_id, settings)


def _with_peer(script, body):
    from support.openai_peer import ScriptedPeer

    with ScriptedPeer(script) as peer:
        return body(_settings(peer.base_url, SCRIPTED_MODEL))


def scripted_runs(store, work: Path) -> tuple[dict[tuple[str, str], dict], Path]:
    """Every scripted run, stored; returns each sample's label, and the generated AIME problems file."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))  # the scripts and the local web the tests use
    labels: dict[tuple[str, str], dict] = {}

    def label_all(exp_id: str, label_of=lambda sample_id: {}):
        for sample in store.samples(exp_id):
            labels[(exp_id, sample.sample_id)] = dict(label_of(sample.sample_id))

    _gaia(store, work)
    for exp_id in ("peer-gaia-inline", "peer-gaia-files"):
        label_all(exp_id)
    label_all("peer-gaia-search", lambda sample_id: GAIA_SEARCH_LABELS.get(sample_id, {}))
    _bfcl(store)
    for exp_id in ("peer-bfcl-single-fc", "peer-bfcl-single-prompt", "peer-bfcl-multi-turn"):
        label_all(exp_id)
    # The conversation that never stops calling is cut at BFCL's step limit: a stated rule, a warning.
    label_all("peer-bfcl-memory", lambda sample_id: {"step_limit": "warning"}
              if sample_id.endswith(tuple(f"_{key}" for key in MEMORY_ENDLESS)) else {})
    # Question 4's page is gone (410): the web's answer, the model's information, not a failure of the run.
    # Question 3's page redirects, and the page it redirects to is returned.
    label_all("peer-bfcl-web", lambda sample_id: {"step_limit": "warning"}
              if sample_id.rsplit("_", 1)[1] in WEB_ENDLESS else {})
    generated = _aime(store)
    for exp_id in ("peer-aime-generate", "peer-aime-judge", "peer-aime-winrate"):
        label_all(exp_id)
    return labels, generated


def _gaia(store, work: Path) -> None:
    from integration.test_scan_material import QUESTIONS, bare_script, files_script, search_script

    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
    from evalui.benchmarks.gaia.spec import GaiaOptions

    _with_peer(bare_script, lambda s: _run(store, GAIA, GaiaOptions(source="sample"), s, "peer-gaia-inline"))
    _with_peer(files_script, lambda s: _run(store, GAIA, GaiaOptions(source="sample", tools=["python", "files"]), s,
                                            "peer-gaia-files"))
    questions = work / "gaia-search" / "questions.json"
    questions.parent.mkdir(parents=True, exist_ok=True)
    questions.write_text(json.dumps([{"task_id": task_id, "Question": question, "Final answer": answer, "Level": 1}
                                     for task_id, question, answer, _ in QUESTIONS]), encoding="utf-8")
    with _environment(EVALUI_WEB_BACKEND="integration.test_scan_material:Web"):
        _with_peer(search_script, lambda s: _run(store, GAIA, GaiaOptions(source=f"questions:{questions}", tools=["web"],
                                                                          max_steps=3), s, "peer-gaia-search"))


def _bfcl(store) -> None:
    from bfcl_web_server import SERPAPI_KEY, FakeWeb

    from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
    from evalui.benchmarks.bfcl.spec import BfclOptions
    from support.bfcl_agentic_oracle import MemoryOracle, WebSearchOracle
    from support.bfcl_multi_turn_oracle import MultiTurnOracle
    from support.bfcl_oracle import BfclOracle

    single = BfclOracle(BFCL_SINGLE)

    def single_script(body, n):
        entry = single.entry_for(body)
        wrong = entry is not None and int(entry.id.rsplit("_", 1)[1]) % 4 == 3
        return single.wrong_reply(body) if wrong else single.gold_reply(body)

    for mode in ("fc", "prompt"):
        _with_peer(single_script, lambda s: _run(store, BFCL, BfclOptions(categories=BFCL_SINGLE, limit=BFCL_LIMIT,
                                                                          mode=mode), s, f"peer-bfcl-single-{mode}"))
    turns = MultiTurnOracle(["multi_turn_base"], limit=5)
    _with_peer(lambda body, n: turns.reply(body),
               lambda s: _run(store, BFCL, BfclOptions(categories=["multi_turn_base"], limit=5), s,
                              "peer-bfcl-multi-turn"))
    memory = MemoryOracle(["memory_kv"], wrong=MEMORY_WRONG, endless=MEMORY_ENDLESS)
    _with_peer(lambda body, n: memory.reply(body),
               lambda s: _run(store, BFCL, BfclOptions(categories=["memory_kv"], limit=5), s, "peer-bfcl-memory"))
    with FakeWeb() as web:
        oracle = WebSearchOracle(["web_search_base"], [web.url(p) for p in WEB_PAGES], wrong=WEB_WRONG,
                                 endless=WEB_ENDLESS)
        with _environment(EVALUI_SERPAPI_URL=web.url(""), EVALUI_WEB_ALLOW_HOSTS=f"127.0.0.1:{web.port}",
                          SERPAPI_API_KEY=SERPAPI_KEY):
            _with_peer(lambda body, n: oracle.reply(body),
                       lambda s: _run(store, BFCL, BfclOptions(categories=["web_search_base"], limit=6,
                                                               web_search="serpapi"), s, "peer-bfcl-web"))


def _aime(store) -> Path:
    from aime_script import AimeScript

    from evalui.benchmarks.aime.options import GenerateOptions, JudgeOptions, WinrateOptions
    from evalui.benchmarks.aime.spec import GENERATION, JUDGING, WINRATE_SPEC

    # One generation at a time: the scripted generator interleaves malformed replies by their count.
    summary = _with_peer(AimeScript(), lambda s: _run(store, GENERATION, GenerateOptions(
        n=6, reference_source="bundled", seed=7), s, "peer-aime-generate", concurrency=1))
    generated = Path(summary["output"])
    _with_peer(AimeScript(), lambda s: _run(store, JUDGING, JudgeOptions(input=str(generated)), s, "peer-aime-judge"))
    _with_peer(AimeScript(), lambda s: _run(store, WINRATE_SPEC, WinrateOptions(input=str(generated),
                                                                                real_source="bundled", seed=3), s,
                                            "peer-aime-winrate"))
    return generated


def local_runs(store, work: Path, generated: Path) -> list[str]:
    """The local model's runs, stored; returns their ids."""
    from evalui.benchmarks.aime.options import JudgeOptions
    from evalui.benchmarks.aime.spec import JUDGING
    from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
    from evalui.benchmarks.bfcl.spec import BfclOptions
    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
    from evalui.benchmarks.gaia.spec import GaiaOptions
    from evalui.endpoint.local import model as local_model

    problems = work / "local-judge" / "problems.json"
    problems.parent.mkdir(parents=True, exist_ok=True)
    problems.write_text(json.dumps(json.loads(generated.read_text(encoding="utf-8"))[:3]), encoding="utf-8")
    server = local_model.LocalModelServer(log_file=work / "llama.log", threads=1)
    server.start()
    try:
        def settings(max_tokens: int):
            return _settings(server.base_url, local_model.MODEL_NAME, max_tokens=max_tokens, timeout_s=300.0)

        runs = [("local-gaia-inline", GAIA, GaiaOptions(source="sample"), 256),
                ("local-gaia-agent", GAIA, GaiaOptions(source="sample", tools=["python", "files"], max_steps=3,
                                                       tool_timeout=10), 256),
                ("local-bfcl-prompt", BFCL, BfclOptions(categories=["simple_python"], limit=10, mode="prompt"), 128),
                ("local-aime-judge", JUDGING, JudgeOptions(input=str(problems)), 320)]
        for exp_id, benchmark, options, max_tokens in runs:
            _run(store, benchmark, options, settings(max_tokens), exp_id, concurrency=1)
    finally:
        server.stop()
    return [exp_id for exp_id, *_ in runs]
