"""evalui against the leaderboard's own client: ``bfcl generate`` and ``evalui bfcl run`` on the same
entries and the same endpoint, with every request body and reply logged by a proxy in front of it.

bfcl-eval gets two chat-completions models registered for the purpose (``evalui-parity-FC`` and
``evalui-parity``, both bfcl's OpenAICompletionsHandler, the handler of its OpenAI-compatible
models), and runs as its ``bfcl generate --run-ids`` command, then ``bfcl evaluate --partial-eval``.
evalui runs as its ``evalui bfcl run`` command. Compared, per entry: the request bodies (all of a
multi-turn conversation), the raw outputs (the result files' ``result``), and the verdicts (the
official checker on bfcl's results, evalui's on its own, and the official checker on evalui's).

The endpoint: prompt mode goes to the offline local model (Gemma 3 270M under llama.cpp, see
evalui.endpoint.local.model) when it is installed; FC mode, which the local model does not support,
and everything with ``--peer`` or without the local model, go to a scripted endpoint that answers
from the request (support.bfcl_parity.ScriptedModel: gold calls, a rejected call, text).
Entries: the first ``--per-category`` of every single-turn category and ``--multi-turn`` of every
multi-turn one (multi-turn categories run one at a time: their entries start alike).

Run: cd bench && ../.venv/bin/python official_parity.py [--per-category 2] [--multi-turn 1] [--peer]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# The scripted peers and oracles live with the tests (tests/support/), outside the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

REGISTERED = {"fc": "evalui-parity-FC", "prompt": "evalui-parity"}
PEER_MODEL = "bfcl-parity-model"


# --- bfcl-eval, as its own command, with the two models registered ---------------------------------
def bfcl_command(argv: list[str], model: str) -> None:
    """In a child process: register the models, then run bfcl's CLI with ``argv``."""
    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

    for mode, name in REGISTERED.items():
        MODEL_CONFIG_MAPPING[name] = ModelConfig(
            model_name=model, display_name=name, url="", org="evalui", license="", model_handler=OpenAICompletionsHandler,
            input_price=None, output_price=None, is_fc_model=mode == "fc", underscore_to_dot=mode == "fc")
    from bfcl_eval.__main__ import cli

    sys.argv = ["bfcl", *argv]
    cli()


def run_bfcl(argv: list[str], model: str, root: Path, base_url: str) -> float:
    env = dict(os.environ, BFCL_PROJECT_ROOT=str(root), OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-parity")
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import official_parity as p; " \
           f"p.bfcl_command({argv!r}, {model!r})"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"bfcl {argv[0]} failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}")
    return time.perf_counter() - started


def bfcl_results(root: Path, mode: str) -> dict[str, object]:
    folder = root / "result" / REGISTERED[mode]
    return {record["id"]: record["result"] for path in folder.rglob("BFCL_v4_*_result.json")
            for record in map(json.loads, filter(str.strip, path.read_text().splitlines()))}


def official_verdicts(root: Path, mode: str, ids: list[str]) -> dict[str, bool]:
    """Per id, whether bfcl evaluate accepted it: its score files list the failed entries."""
    failed = set()
    for path in (root / "score" / REGISTERED[mode]).rglob("BFCL_v4_*_score.json"):
        for line in path.read_text().splitlines()[1:]:
            failed.add(json.loads(line)["id"])
    return {entry_id: entry_id not in failed for entry_id in ids}


# --- the logging proxy -------------------------------------------------------------------------------
class LoggingProxy:
    """Forwards POSTs to ``upstream`` and keeps each (request body, status, response body) whose
    reply reached the client; ``undelivered`` counts the others."""

    def __init__(self, upstream: str):
        self.upstream, self.log, lock = upstream.rstrip("/"), [], threading.Lock()
        self.undelivered = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._forward(None)

            def do_POST(self):
                self._forward(self.rfile.read(int(self.headers.get("content-length") or 0)))

            def _forward(self, data):
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                request = urllib.request.Request(proxy.upstream + path, data=data, method="POST" if data else "GET",
                                                 headers={"content-type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=3600) as reply:
                        status, payload = reply.status, reply.read()
                except urllib.error.HTTPError as exc:
                    status, payload = exc.code, exc.read()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except OSError:
                    # The client gave up first (the OpenAI SDK's 600 s timeout on a busy machine) and
                    # will send the request again: that attempt is not part of the conversation.
                    with lock:
                        proxy.undelivered += 1
                    return
                if data is not None:
                    with lock:
                        proxy.log.append((json.loads(data), status, payload.decode("utf-8", "replace")))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- evalui, as its own command ----------------------------------------------------------------------
def run_evalui(categories: list[str], limit: int, mode: str, base_url: str, model: str, data: Path) -> tuple[dict, float]:
    env = dict(os.environ, EVALUI_DATA_DIR=str(data), OPENAI_API_KEY="sk-parity")
    command = [sys.executable, "-m", "evalui", "bfcl", "run", "--category", ",".join(categories), "--limit", str(limit),
               "--mode", mode, "--base-url", base_url, "--model", model, "--concurrency", "1", "--timeout", "3600",
               "--max-retries", "0"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"evalui bfcl run failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), time.perf_counter() - started


def evalui_outcome(summary: dict) -> tuple[dict, dict]:
    results, verdicts = {}, {}
    for path in Path(summary["out_dir"]).glob("BFCL_v4_*_result.json"):
        results.update({line["id"]: line["result"] for line in map(json.loads, Path(path).read_text().splitlines())})
    for line in Path(summary["out_dir"], "samples.jsonl").read_text().splitlines():
        record = json.loads(line)
        verdicts[record["id"]] = bool(record["correct"])
    return results, verdicts


# --- one batch: the same entries, both clients, one endpoint ------------------------------------------
def batch(categories: list[str], per_category: int, mode: str, upstream: str, model: str, folder: Path) -> dict:
    from support.bfcl_parity import ByFirstTurn

    index = ByFirstTurn(categories, mode, per_category)
    ids = [entry["id"] for _, entry in index.entries]
    root = folder / "bfcl"
    root.mkdir(parents=True)
    (root / "test_case_ids_to_generate.json").write_text(json.dumps(
        {c: [e["id"] for cat, e in index.entries if cat == c] for c in categories}))
    official, ours = LoggingProxy(upstream), LoggingProxy(upstream)
    try:
        bfcl_s = run_bfcl(["generate", "--model", REGISTERED[mode], "--run-ids", "--allow-overwrite"], model, root,
                          official.base_url)
        summary, evalui_s = run_evalui(categories, per_category, mode, ours.base_url, model, folder / "evalui")
    finally:
        official.close()
        ours.close()
    run_bfcl(["evaluate", "--model", REGISTERED[mode], "--test-category", ",".join(categories), "--partial-eval"],
             model, root, "http://127.0.0.1:9/v1")
    # The official checker on evalui's result files too.
    theirs = folder / "evalui-checked"
    target = theirs / "result" / REGISTERED[mode]
    for category in categories:
        path = Path(summary["out_dir"], f"BFCL_v4_{category}_result.json")
        group = next(root.glob(f"result/{REGISTERED[mode]}/**/BFCL_v4_{category}_result.json")).parent
        destination = target / group.relative_to(root / "result" / REGISTERED[mode])
        destination.mkdir(parents=True, exist_ok=True)
        (destination / Path(path).name).write_text(Path(path).read_text())
    run_bfcl(["evaluate", "--model", REGISTERED[mode], "--test-category", ",".join(categories), "--partial-eval"],
             model, theirs, "http://127.0.0.1:9/v1")
    results, verdicts = evalui_outcome(summary)
    return {"ids": ids, "index": index, "official_log": official.log, "evalui_log": ours.log,
            "undelivered_bfcl": official.undelivered, "undelivered_evalui": ours.undelivered,
            "bfcl_results": bfcl_results(root, mode), "evalui_results": results,
            "bfcl_verdicts": official_verdicts(root, mode, ids), "evalui_verdicts": verdicts,
            "checker_on_evalui": official_verdicts(theirs, mode, ids), "bfcl_s": bfcl_s, "evalui_s": evalui_s}


def agreement(outcome: dict) -> dict:
    from support.bfcl_parity import first_difference

    index = outcome["index"]
    official = index.by_entry([body for body, _, _ in outcome["official_log"]])
    ours = index.by_entry([body for body, _, _ in outcome["evalui_log"]])
    figures = {"entries": len(outcome["ids"]), "requests_bfcl": len(outcome["official_log"]),
               "requests_evalui": len(outcome["evalui_log"]), "abandoned_bfcl": outcome["undelivered_bfcl"],
               "abandoned_evalui": outcome["undelivered_evalui"], "bodies_identical": 0, "conversations_identical": 0,
               "outputs_identical": 0, "verdicts_equal": 0, "checker_agrees_on_evalui": 0, "differences": []}
    for entry_id in outcome["ids"]:
        expected, actual = official.get(entry_id, []), ours.get(entry_id, [])
        same = [a == b for a, b in zip(expected, actual)]
        figures["bodies_identical"] += sum(same)
        if expected and len(expected) == len(actual) and all(same):
            figures["conversations_identical"] += 1
        else:
            where = next((i for i, s in enumerate(same) if not s), None)
            figures["differences"].append(f"{entry_id}: " + (first_difference(expected[where], actual[where])
                                          if where is not None else f"{len(expected)} vs {len(actual)} requests"))
        if _plain(outcome["bfcl_results"].get(entry_id)) == _plain(outcome["evalui_results"].get(entry_id)):
            figures["outputs_identical"] += 1
        else:
            figures["differences"].append(f"{entry_id} output: bfcl {str(outcome['bfcl_results'].get(entry_id))[:120]!r}"
                                          f" / evalui {str(outcome['evalui_results'].get(entry_id))[:120]!r}")
        figures["verdicts_equal"] += outcome["bfcl_verdicts"][entry_id] == outcome["evalui_verdicts"].get(entry_id)
        figures["checker_agrees_on_evalui"] += outcome["checker_on_evalui"][entry_id] == outcome["evalui_verdicts"].get(entry_id)
    figures["bfcl_correct"] = sum(outcome["bfcl_verdicts"].values())
    figures["evalui_correct"] = sum(outcome["evalui_verdicts"].values())
    return figures


def _plain(result):
    return "" if result is None else result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-category", type=int, default=2, help="entries of each single-turn category")
    parser.add_argument("--multi-turn", type=int, default=1, help="entries of each multi-turn category")
    parser.add_argument("--multi-turn-categories", default="",
                        help="comma-separated multi-turn categories (default: all four); on the local model one "
                             "conversation takes about 17 minutes per side on a busy 2-core machine")
    parser.add_argument("--modes", default="prompt,fc")
    parser.add_argument("--peer", action="store_true", help="the scripted endpoint for both modes")
    parser.add_argument("--threads", type=int, help="the local model's threads (default: evalui's)")
    parser.add_argument("--context", type=int, default=32768,
                        help="the local model's context in tokens (multi-turn prompts hold about 11,000)")
    args = parser.parse_args()

    from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, MULTI_TURN_CATEGORIES
    from evalui.endpoint.local import model as local_model
    from support.bfcl_parity import ByFirstTurn
    from support.openai_peer import ScriptedPeer

    server = None
    use_local = not args.peer and local_model.is_installed()
    total: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="evalui-official-parity-") as tmp:
        for mode in args.modes.split(","):
            local = use_local and mode in local_model.MODES
            multi_turn = [c for c in args.multi_turn_categories.split(",") if c] or MULTI_TURN_CATEGORIES
            batches = [(list(CATEGORIES), args.per_category)] + [([c], args.multi_turn) for c in multi_turn]
            for number, (categories, count) in enumerate(batches):
                if not count:
                    continue
                folder = Path(tmp, f"{mode}-{number}")
                if local:
                    if server is None:
                        kwargs = {"threads": args.threads} if args.threads else {}
                        server = local_model.LocalModelServer(log_file=Path(tmp, "llama.log"),
                                                              context_tokens=args.context, **kwargs)
                        server.start()
                    outcome = batch(categories, count, mode, server.base_url, local_model.MODEL_NAME, folder)
                else:
                    script = ByFirstTurn(categories, mode, count)
                    with ScriptedPeer(script.reply) as peer:
                        outcome = batch(categories, count, mode, peer.base_url, PEER_MODEL, folder)
                figures = agreement(outcome)
                label = "single-turn" if len(categories) > 1 else categories[0]
                endpoint = "local model" if local else "scripted endpoint"
                print(f"{mode:6} {label:26} {endpoint:17} entries {figures['entries']:3}  requests bfcl/evalui "
                      f"{figures['requests_bfcl']}/{figures['requests_evalui']} (abandoned by the client "
                      f"{figures['abandoned_bfcl']}/{figures['abandoned_evalui']})  identical bodies "
                      f"{figures['bodies_identical']}  identical conversations {figures['conversations_identical']}  "
                      f"identical outputs {figures['outputs_identical']}  equal verdicts {figures['verdicts_equal']} "
                      f"(correct bfcl {figures['bfcl_correct']}, evalui {figures['evalui_correct']}; official checker "
                      f"agrees on evalui's {figures['checker_agrees_on_evalui']})  "
                      f"time bfcl {outcome['bfcl_s']:.0f} s, evalui {outcome['evalui_s']:.0f} s", flush=True)
                for line in figures["differences"][:10]:
                    print("    " + line, flush=True)
                key = f"{mode} {'local' if local else 'peer'}"
                for name in ("entries", "requests_bfcl", "bodies_identical", "conversations_identical",
                             "outputs_identical", "verdicts_equal", "checker_agrees_on_evalui"):
                    total[f"{key} {name}"] = total.get(f"{key} {name}", 0) + figures[name]
        if server is not None:
            server.stop()
    print(json.dumps(total, indent=1))


if __name__ == "__main__":
    main()
