"""Precision and recall of each built-in validity scanner on a labelled fixture of stored transcripts
(printed, never asserted; tests/integration/test_scan_planted*.py assert the planted cases exactly).

The fixture (bench/data/scanner_fixture.jsonl.gz) holds samples exactly as the store kept them after
real runs against scripted endpoints (evalui.testing.scanner_plants): the built-in GAIA tool agent
(python and files tools) and BFCL simple_python in prompt mode, each sample planted with one kind of
invalid or suspicious behaviour, or a look-alike that is neither (an apology followed by an answer,
the same call repeated with success, a tool error of the model's own, a short answer that the
question mentions, prose instead of a call), with varied wording. Unsolvable items come from four
models' runs over one question set. Each sample's label is what it was planted with, never what a
scanner said. The context each sample was scanned with (other models' verdicts) is stored with it.

A scanner's precision: of the samples it flags, the share labelled with it; recall: of the samples
labelled with it, the share it flags (any severity); "severity agrees" counts flagged samples whose
severity is the labelled one.

Run:    .venv/bin/python bench/scanner_precision.py              (reads the fixture)
Remake: .venv/bin/python bench/scanner_precision.py --regenerate (about a minute of scripted runs)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

from evalui.engine.store_rows import Sample
from evalui.scanners.base import ScanContext
from evalui.scanners.registry import built_in, scan_sample

FIXTURE = Path(__file__).resolve().parent / "data" / "scanner_fixture.jsonl.gz"
FIELDS = ("exp_id", "sample_id", "position", "group", "stage", "payload", "request", "response", "prediction",
          "latency_s", "prompt_tokens", "completion_tokens", "attempts", "correct", "verdict", "error", "trajectory")


def _settings(peer, model: str):
    from evalui.engine.settings import EndpointSettings

    return EndpointSettings(base_url=peer.base_url, model=model, api_key="sk-bench-not-a-key", timeout_s=10.0,
                            max_retries=0)


def _gaia_run(store, folder: Path, cases, script, model: str, exp_id: str) -> None:
    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA, GaiaOptions
    from evalui.engine import lifecycle
    from evalui.testing.openai_peer import ScriptedPeer
    from evalui.testing.scanner_plants import MAX_STEPS, write_questions

    folder.mkdir(parents=True, exist_ok=True)
    questions = write_questions(folder, cases)
    with ScriptedPeer(script) as peer:
        settings = _settings(peer, model)
        options = GaiaOptions(source=f"questions:{questions}", tools=["python", "files"], max_steps=MAX_STEPS,
                              tool_timeout=60)
        lifecycle.execute(store, lifecycle.prepare(store, GAIA, options, settings, exp_id=exp_id, concurrency=4),
                          settings)


def _bfcl_run(store, model, limit: int, exp_id: str) -> None:
    from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL, BfclOptions
    from evalui.engine import lifecycle
    from evalui.testing.openai_peer import ScriptedPeer

    with ScriptedPeer(model) as peer:
        settings = _settings(peer, f"bfcl-{exp_id}")
        options = BfclOptions(categories=["simple_python"], limit=limit, mode="prompt")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=exp_id), settings,
                          concurrency=4)


def regenerate(path: Path, seed: int) -> int:
    """Real runs against scripted endpoints, stored, then every sample written with its label."""
    work = Path(tempfile.mkdtemp(prefix="evalui-scanner-fixture-"))
    os.environ["EVALUI_DATA_DIR"] = str(work / "data")
    from evalui.engine.findings import context_for
    from evalui.engine.store import RunStore
    from evalui.testing.scanner_plants import BFCL_KINDS, KINDS, BfclPlantedModel, OtherModel, PlantedModel, cases_for

    rng = random.Random(seed)
    store = RunStore()
    labels: dict[tuple[str, str], dict] = {}
    # GAIA: every kind, shuffled, with new wording per run.
    for run in range(9):
        kinds = list(KINDS) + rng.sample(list(KINDS), 5)
        rng.shuffle(kinds)
        cases = cases_for(kinds, seed=seed * 100 + run, prefix=f"g{run}-")
        _gaia_run(store, work / f"gaia{run}", cases, PlantedModel(cases), f"planted-{run}", f"gaia-{run}")
        labels.update({(f"gaia-{run}", c.task_id): c.expected for c in cases})
    # Unsolvable: four models over one question set; some items every model fails, some only a few.
    cases = cases_for(["right"] * 16, seed=seed + 1, prefix="u-")
    everyone = {c.task_id for c in cases[:5]}
    for number in range(4):
        some = {c.task_id for c in cases[5 + 2 * number:7 + 2 * number]}  # each model also fails two others
        _gaia_run(store, work / "unsolvable", cases, OtherModel(cases, everyone | some), f"model-{number}",
                  f"unsolvable-{number}")
        labels.update({(f"unsolvable-{number}", c.task_id): {"unsolvable": "warning"} if c.task_id in everyone else {}
                       for c in cases})
    # BFCL prompt mode: the reply kinds on single-turn entries.
    for run, offset in enumerate((0, 3, 5)):
        model = BfclPlantedModel(offset)
        _bfcl_run(store, model, 16, f"bfcl-{run}")
        for sample in store.samples(f"bfcl-{run}"):
            labels[(f"bfcl-{run}", sample.sample_id)] = dict(BFCL_KINDS[model.kind_of(sample.sample_id)])
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for experiment in sorted(store.experiments(), key=lambda e: e["exp_id"]):
            context = context_for(store, experiment)
            for sample in store.samples(experiment["exp_id"]):
                from evalui.stats.epochs import split_epoch

                verdict = {k: v for k, v in (sample.verdict or {}).items() if k != "findings"} if sample.verdict else None
                record = {name: getattr(sample, name) for name in FIELDS}
                record["verdict"] = verdict
                record["context"] = {"benchmark": experiment["benchmark"], "model": experiment["model"],
                                     "others": {split_epoch(sample.sample_id)[0]:
                                                context.others.get(split_epoch(sample.sample_id)[0], {})}}
                record["label"] = labels[(experiment["exp_id"], sample.sample_id)]
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
    store.close()
    return count


def load(path: Path) -> list[tuple[Sample, ScanContext, dict]]:
    items = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            context = record.pop("context")
            label = record.pop("label")
            sample = Sample(**{name: record[name] for name in FIELDS})
            items.append((sample, ScanContext(benchmark=context["benchmark"], exp_id=sample.exp_id,
                                              model=context["model"], others=context["others"]), label))
    return items


def measure(items) -> list[dict]:
    scanners = list(built_in().values())
    rows = []
    found = [({f["scanner"]: f["severity"] for f in scan_sample(s, c, scanners)}, label) for s, c, label in items]
    for scanner in scanners:
        counts = Counter()
        for flagged, label in found:
            hit, wanted = scanner.name in flagged, scanner.name in label
            counts["tp"] += hit and wanted
            counts["fp"] += hit and not wanted
            counts["fn"] += wanted and not hit
            counts["severity"] += hit and wanted and flagged[scanner.name] == label[scanner.name]
        flagged_n, labelled_n = counts["tp"] + counts["fp"], counts["tp"] + counts["fn"]
        rows.append({"scanner": scanner.name, "labelled": labelled_n, "flagged": flagged_n, "tp": counts["tp"],
                     "precision": counts["tp"] / flagged_n if flagged_n else None,
                     "recall": counts["tp"] / labelled_n if labelled_n else None,
                     "severity_agrees": counts["severity"]})
    return rows


def table(rows: list[dict], total: int) -> str:
    def share(value):
        return "–" if value is None else f"{value:.2f}"

    lines = [f"{total} labelled transcripts ({FIXTURE.name})", "",
             "| scanner | labelled | flagged | true positives | precision | recall | severity agrees |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['scanner']} | {row['labelled']} | {row['flagged']} | {row['tp']} | {share(row['precision'])} "
                     f"| {share(row['recall'])} | {row['severity_agrees']}/{row['tp']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="run the scripted runs again and rewrite the fixture")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--fixture", type=Path, default=FIXTURE)
    args = parser.parse_args()
    if args.regenerate:
        print(f"wrote {regenerate(args.fixture, args.seed)} transcripts to {args.fixture}", file=sys.stderr)
    items = load(args.fixture)
    kinds = Counter(s.exp_id.split("-")[0] for s, _, _ in items)
    print(table(measure(items), len(items)))
    print("\nby source: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
