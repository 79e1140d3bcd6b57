"""Precision and recall of each built-in validity scanner on a labelled fixture of stored transcripts
(printed, never asserted; tests/integration/scanners/test_scan_planted*.py assert the planted cases exactly).

The fixture (bench/data/scanner_fixture.jsonl.gz) holds samples exactly as the store kept them after
real runs against scripted endpoints (support.scanner_plants): the built-in GAIA tool agent
(python and files tools) and BFCL simple_python in prompt mode, each sample planted with one kind of
invalid or suspicious behaviour, or a look-alike that is neither (an apology followed by an answer,
the same call repeated with success, a tool error of the model's own, a short answer that the
question mentions, prose instead of a call), with varied wording. Unsolvable items come from four
models' runs over one question set. Each sample's label is what it was planted with, never what a
scanner said. The context each sample was scanned with (other models' verdicts) is stored with it.

A scanner's precision: of the samples it flags, the share labelled with it; recall: of the samples
labelled with it, the share it flags (any severity); "severity agrees" counts flagged samples whose
severity is the labelled one.

Real transcripts (bench/data/scanner_real.jsonl.gz, made by bench/scanner_real_runs.py): the scripted
peers' runs of all three benchmarks as the integration tests make them, labelled by what each script
did, and the local model's runs, labelled by a person who read each transcript
(bench/data/scanner_local_review.json; a transcript without a review, or whose digest changed, is
counted as unreviewed and left out). The scanners read each sample with its benchmark's declared
material (evalui.scanners.material), as a run does.

Run:    .venv/bin/python bench/scanner_precision.py                    (reads both fixtures)
Remake: .venv/bin/python bench/scanner_precision.py --regenerate       (planted: about a minute)
        .venv/bin/python bench/scanner_precision.py --regenerate-real  (scripted peers: a few minutes;
        add --local for the local model's runs, about ten more)
Review: .venv/bin/python bench/scanner_precision.py --list-local       (the local transcripts to label)
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

# The scripted peers and oracles live with the tests (tests/support/), outside the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from evalui.scanners.base import ScanContext
from evalui.scanners.registry import built_in, scan_sample
from evalui.store.rows import Sample

FIXTURE = Path(__file__).resolve().parent / "data" / "scanner_fixture.jsonl.gz"
REAL = FIXTURE.with_name("scanner_real.jsonl.gz")
REVIEW = FIXTURE.with_name("scanner_local_review.json")
FIELDS = ("exp_id", "sample_id", "position", "group", "stage", "payload", "request", "response", "prediction",
          "latency_s", "prompt_tokens", "completion_tokens", "attempts", "correct", "verdict", "error", "trajectory")


def _settings(peer, model: str):
    from evalui.endpoint.settings import EndpointSettings

    return EndpointSettings(base_url=peer.base_url, model=model, api_key="sk-bench-not-a-key", timeout_s=10.0,
                            max_retries=0)


def _gaia_run(store, folder: Path, cases, script, model: str, exp_id: str) -> None:
    from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
    from evalui.benchmarks.gaia.spec import GaiaOptions
    from evalui.run import lifecycle
    from support.openai_peer import ScriptedPeer
    from support.scanner_plants import MAX_STEPS, write_questions

    folder.mkdir(parents=True, exist_ok=True)
    questions = write_questions(folder, cases)
    with ScriptedPeer(script) as peer:
        settings = _settings(peer, model)
        options = GaiaOptions(source=f"questions:{questions}", tools=["python", "files"], max_steps=MAX_STEPS,
                              tool_timeout=60)
        lifecycle.execute(store, lifecycle.prepare(store, GAIA, options, settings, exp_id=exp_id, concurrency=4),
                          settings)


def _bfcl_run(store, model, limit: int, exp_id: str) -> None:
    from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
    from evalui.benchmarks.bfcl.spec import BfclOptions
    from evalui.run import lifecycle
    from support.openai_peer import ScriptedPeer

    with ScriptedPeer(model) as peer:
        settings = _settings(peer, f"bfcl-{exp_id}")
        options = BfclOptions(categories=["simple_python"], limit=limit, mode="prompt")
        lifecycle.execute(store, lifecycle.prepare(store, BFCL, options, settings, exp_id=exp_id), settings,
                          concurrency=4)


def regenerate(path: Path, seed: int) -> int:
    """Real runs against scripted endpoints, stored, then every sample written with its label."""
    work = Path(tempfile.mkdtemp(prefix="evalui-scanner-fixture-"))
    os.environ["EVALUI_DATA_DIR"] = str(work / "data")
    from evalui.store.run_store import RunStore
    from support.scanner_plants import BFCL_KINDS, KINDS, BfclPlantedModel, OtherModel, PlantedModel, cases_for

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
    count = write(path, store, lambda exp_id, sample_id: labels[(exp_id, sample_id)])
    store.close()
    return count


def write(path: Path, store, label_of, source_of=lambda exp_id: None) -> int:
    """Every stored sample, as the store keeps it (findings left out), with its scan context and label."""
    from evalui.run.findings import context_for
    from evalui.stats.epochs import split_epoch

    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for experiment in sorted(store.experiments(), key=lambda e: e["exp_id"]):
            context = context_for(store, experiment)
            for sample in store.samples(experiment["exp_id"]):
                verdict = {k: v for k, v in (sample.verdict or {}).items() if k != "findings"} if sample.verdict else None
                record = {name: getattr(sample, name) for name in FIELDS}
                record["verdict"] = verdict
                record["context"] = {"benchmark": experiment["benchmark"], "model": experiment["model"],
                                     "others": {split_epoch(sample.sample_id)[0]:
                                                context.others.get(split_epoch(sample.sample_id)[0], {})}}
                record["label"] = label_of(experiment["exp_id"], sample.sample_id)
                source = source_of(experiment["exp_id"])
                if source:
                    record["source"] = source
                handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                count += 1
    return count


def digest(record: dict) -> str:
    """What a reviewer read: the request, the steps, the output, the verdict and the error."""
    seen = {name: record.get(name) for name in ("sample_id", "request", "trajectory", "response", "verdict", "error")}
    return hashlib.sha256(json.dumps(seen, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:16]


def regenerate_real(path: Path, local: bool) -> int:
    """The scripted peers' runs (and with ``local``, the local model's), stored, then written with labels:
    the scripted ones by construction, the local ones from the review where its digest still matches."""
    import scanner_real_runs

    work = Path(tempfile.mkdtemp(prefix="evalui-scanner-real-"))
    os.environ["EVALUI_DATA_DIR"] = str(work / "data")
    from evalui.store.run_store import RunStore

    store = RunStore()
    labels, generated = scanner_real_runs.scripted_runs(store, work)
    local_ids = scanner_real_runs.local_runs(store, work, generated) if local else []
    kept_local = []
    if not local and path.exists():  # keep the local transcripts already stored: they take minutes to make
        kept_local = [line for line in gzip.open(path, "rt", encoding="utf-8") if json.loads(line).get("source") == "local"]
    count = write(path, store, lambda exp_id, sample_id: labels.get((exp_id, sample_id)),
                  lambda exp_id: "local" if exp_id in local_ids else "scripted")
    store.close()
    if kept_local:
        with gzip.open(path, "at", encoding="utf-8") as handle:
            handle.writelines(kept_local)
    return count + len(kept_local)


def review() -> dict:
    return json.loads(REVIEW.read_text(encoding="utf-8")) if REVIEW.exists() else {}


def list_local(path: Path) -> None:
    """Each local transcript, shortly, with its digest and its review: what a person reads to label it."""
    reviewed = review()
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for record in map(json.loads, handle):
            if record.get("source") != "local":
                continue
            key = f"{record['exp_id']}/{record['sample_id']}"
            steps = record.get("trajectory") or []
            print(f"== {key}  digest {digest(record)}  stage {record['stage']}  correct {record['correct']}  "
                  f"error {record['error']!r}")
            verdict = {k: v for k, v in (record.get("verdict") or {}).items() if k != "rejected_attempts"}
            print(f"   verdict: {json.dumps(verdict, ensure_ascii=False)[:300]}")
            for number, step in enumerate(steps):
                print(f"   step {number}: finish {step.get('finish_reason')!r} note {step.get('note')!r} "
                      f"calls {json.dumps(step.get('tool_calls'), ensure_ascii=False)[:200]}")
                print("     text: " + json.dumps(step.get("text") or "", ensure_ascii=False)[:600])
                for result in step.get("tool_results") or []:
                    print(f"     result {result.get('name')}: error {result.get('error')!r} "
                          + json.dumps(result.get("content"), ensure_ascii=False)[:300])
            print(f"   review: {reviewed.get(key)}")


def load(path: Path, *, unreviewed: list | None = None) -> list[tuple[Sample, ScanContext, dict]]:
    """The fixture's samples, each with the context a run scans it in (its benchmark's declared material
    included) and its label. A local transcript takes its label from the review, where the digest
    matches; the others go to ``unreviewed``."""
    from evalui.run.findings import spec_of

    reviewed = review()
    items = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            context = record.pop("context")
            label = record.pop("label")
            if record.get("source") == "local":
                entry = reviewed.get(f"{record['exp_id']}/{record['sample_id']}") or {}
                label = entry.get("label") if entry.get("digest") == digest(record) else None
            if label is None:
                if unreviewed is not None:
                    unreviewed.append(f"{record['exp_id']}/{record['sample_id']}")
                continue
            sample = Sample(**{name: record[name] for name in FIELDS})
            spec = spec_of(context["benchmark"])
            items.append((sample, ScanContext(benchmark=context["benchmark"], exp_id=sample.exp_id,
                                              model=context["model"], others=context["others"],
                                              material=spec.material if spec else None,
                                              target=spec.target if spec else None), label))
    return items


def undeclared(scanner):
    """``scanner`` reading every sample as if its benchmark declared nothing: version 1's reading of
    ``answer_in_context`` (the whole prompt is the question, every tool result suspect)."""
    return dataclasses.replace(scanner, name=f"{scanner.name} (undeclared)",
                               scan=lambda sample, context: scanner.scan(sample, dataclasses.replace(context, material=None)))


def measure(items, scanners=None) -> list[dict]:
    scanners = scanners or list(built_in().values())
    rows = []
    found = [({f["scanner"]: f["severity"] for f in scan_sample(s, c, scanners)}, label) for s, c, label in items]
    for scanner in scanners:
        counts = Counter()
        for flagged, label in found:
            labelled_as = scanner.name.split(" ")[0]
            hit, wanted = scanner.name in flagged, labelled_as in label
            counts["tp"] += hit and wanted
            counts["fp"] += hit and not wanted
            counts["fn"] += wanted and not hit
            counts["severity"] += hit and wanted and flagged[scanner.name] == label[labelled_as]
        flagged_n, labelled_n = counts["tp"] + counts["fp"], counts["tp"] + counts["fn"]
        rows.append({"scanner": scanner.name, "labelled": labelled_n, "flagged": flagged_n, "tp": counts["tp"],
                     "precision": counts["tp"] / flagged_n if flagged_n else None,
                     "recall": counts["tp"] / labelled_n if labelled_n else None,
                     "severity_agrees": counts["severity"]})
    return rows


def table(rows: list[dict], total: int, title: str = "") -> str:
    def share(value):
        return "–" if value is None else f"{value:.2f}"

    lines = [f"{total} labelled transcripts ({title or FIXTURE.name})", "",
             "| scanner | labelled | flagged | true positives | precision | recall | severity agrees |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['scanner']} | {row['labelled']} | {row['flagged']} | {row['tp']} | {share(row['precision'])} "
                     f"| {share(row['recall'])} | {row['severity_agrees']}/{row['tp']} |")
    return "\n".join(lines)


def flagged_samples(items) -> list[str]:
    """Each finding on the real transcripts, with its label: what a reader checks a precision against."""
    scanners = list(built_in().values())
    lines = []
    for sample, context, label in items:
        for found in scan_sample(sample, context, scanners):
            mark = "ok" if label.get(found["scanner"]) else "FALSE POSITIVE"
            lines.append(f"{sample.exp_id}/{sample.sample_id}: {found['scanner']} {found['severity']} ({mark}): "
                         f"{found['message'][:140]}")
        for scanner, severity in label.items():
            if not any(f["scanner"] == scanner for f in scan_sample(sample, context, scanners)):
                lines.append(f"{sample.exp_id}/{sample.sample_id}: {scanner} {severity} MISSED")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="run the scripted runs again and rewrite the fixture")
    parser.add_argument("--regenerate-real", action="store_true",
                        help="run the scripted peers' runs again and rewrite the real-transcript fixture")
    parser.add_argument("--local", action="store_true", help="with --regenerate-real: the local model's runs too")
    parser.add_argument("--list-local", action="store_true", help="print the local transcripts and their reviews")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--fixture", type=Path, default=FIXTURE)
    parser.add_argument("--real", type=Path, default=REAL)
    args = parser.parse_args()
    if args.regenerate:
        print(f"wrote {regenerate(args.fixture, args.seed)} transcripts to {args.fixture}", file=sys.stderr)
    if args.regenerate_real:
        print(f"wrote {regenerate_real(args.real, args.local)} transcripts to {args.real}", file=sys.stderr)
    if args.list_local:
        list_local(args.real)
        return 0
    items = load(args.fixture)
    kinds = Counter(s.exp_id.split("-")[0] for s, _, _ in items)
    print("## Planted\n")
    print(table(measure(items), len(items)))
    print("\nby source: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    if not args.real.exists():
        return 0
    unreviewed: list[str] = []
    real = load(args.real, unreviewed=unreviewed)
    scripted = [item for item in real if not item[0].exp_id.startswith("local-")]
    local = [item for item in real if item[0].exp_id.startswith("local-")]
    for title, chosen in (("Real transcripts: scripted peers and the local model", real),
                          ("Scripted peers only", scripted), ("The local model only", local)):
        if chosen:
            runs = Counter(s.exp_id for s, _, _ in chosen)
            print(f"\n## {title}\n")
            before = undeclared(built_in()["answer_in_context"])
            print(table(measure(chosen, [*built_in().values(), before]), len(chosen), args.real.name))
            print("\nby run: " + ", ".join(f"{k} {v}" for k, v in sorted(runs.items())))
    if unreviewed:
        print(f"\nleft out, not reviewed: {len(unreviewed)} ({', '.join(unreviewed[:10])}"
              f"{', …' if len(unreviewed) > 10 else ''})")
    print("\n## Findings on the real transcripts\n")
    print("\n".join(flagged_samples(real)) or "(none)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
