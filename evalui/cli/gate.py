"""The CI gate of every ``run`` command: --fail-under, --junit, --max-regression-vs, and the
GitHub Actions step summary. A failed gate exits with 100 (promptfoo's convention), an inconclusive
one (the accuracy's 95 % interval contains the --fail-under threshold) with 101, after every export
is written; bad gate flags exit 2 before anything runs. --gate-on valid judges the valid-sample
accuracy instead (evalui.scanners: samples found invalid, such as endpoint errors, are left out)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from evalui.errors import InputError

GATE_FAILED = 100
GATE_INCONCLUSIVE = 101  # the next code after GATE_FAILED: 1, 2 and 130 are taken by errors and Ctrl-C
ON_INCONCLUSIVE = ("exit", "fail", "point")
GATE_ON = ("raw", "valid")
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def add_gate_flags(parser) -> None:
    gate = parser.add_argument_group("CI gate")
    gate.add_argument("--fail-under", metavar="X",
                      help="exit 100 when accuracy is below X (0–1, or a percentage such as 80%%), exit 101 "
                           "(INCONCLUSIVE) when its 95%% interval contains X, so that the run cannot tell "
                           "(clustered where samples share a sample's epochs, a conversation or a scenario; "
                           "`evalui plan` says how many samples would); errors and samples that did not run "
                           "count as failures")
    gate.add_argument("--on-inconclusive", choices=ON_INCONCLUSIVE, default="exit",
                      help="when the interval contains X: exit 101 (exit, the default), exit 100 (fail), or let "
                           "the accuracy alone decide, as before evalui had intervals (point)")
    gate.add_argument("--gate-on", choices=GATE_ON, default="raw",
                      help="the accuracy --fail-under judges: raw (the default: every sample, errors counting as "
                           "failures) or valid (without the samples a validity scanner found invalid, such as "
                           "endpoint errors, empty or truncated replies; see `evalui scan`)")
    gate.add_argument("--junit", metavar="FILE", help="write a JUnit XML file: one testcase per sample")
    gate.add_argument("--max-regression-vs", metavar="EXP",
                      help="exit 100 when this run is significantly worse than run EXP "
                           "(paired by sample, exact McNemar p < 0.05 and a lower accuracy)")


def _threshold(text: str) -> float:
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise InputError(f"--fail-under {text!r}: give a number from 0 to 1, or a percentage such as 80%") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(f"--fail-under {text!r}: give a number from 0 to 1, or a percentage such as 80%")
    return value


@dataclass
class Gate:
    fail_under: float | None = None
    junit: Path | None = None
    baseline: str | None = None
    on_inconclusive: str = "exit"
    gate_on: str = "raw"
    failed: bool = False
    inconclusive: bool = False
    reasons: list[str] = field(default_factory=list)

    @classmethod
    def from_args(cls, args) -> Gate | None:
        """The gate the flags ask for (checked now, before the run), or None."""
        fail_under, junit, baseline = (getattr(args, name, None) for name in ("fail_under", "junit", "max_regression_vs"))
        if fail_under is None and junit is None and baseline is None:
            return None
        gate = cls(fail_under=_threshold(fail_under) if fail_under is not None else None,
                   on_inconclusive=getattr(args, "on_inconclusive", None) or "exit",
                   gate_on=getattr(args, "gate_on", None) or "raw")
        if junit is not None:
            gate.junit = Path(junit)
            if not gate.junit.name or gate.junit.is_dir():
                raise InputError(f"--junit {junit}: give a file name")
            if not gate.junit.parent.is_dir():
                raise InputError(f"--junit {junit}: the folder {gate.junit.parent} does not exist")
        if baseline is not None:
            gate.baseline = baseline
            _check_baseline(args, baseline)
        return gate

    def check(self, summary: dict) -> dict:
        """Judge the finished run, write the JUnit file and the step summary; returns the gate's record."""
        from evalui.reports.ci import gate_figures, step_summary, write_junit
        from evalui.store.run_store import RunStore

        if "exp_id" not in summary:  # `aime evaluate` reports three steps; its judge step is the one to gate
            summary = summary.get("judge") or {}
        if not summary.get("exp_id"):
            self.failed = True
            return {"passed": False, "reasons": ["this command reports no run to gate"]}
        store = RunStore()
        try:
            experiment = store.experiment(summary["exp_id"])
            samples = store.samples(summary["exp_id"])
            # --gate-on valid: the figures leave out invalid samples; the JUnit file still lists every sample.
            judged = _valid_samples(store, experiment, samples) if self.gate_on == "valid" else samples
            figures = {**gate_figures(judged, experiment["benchmark"]), "gate_on": self.gate_on}
            record: dict = {"figures": figures}
            if self.junit:
                record["junit"] = str(write_junit(self.junit, experiment, samples))
            inconclusive = self._fail_under(figures) if self.fail_under is not None else None
            if self.baseline:
                record["regression"] = self._regression(store, summary["exp_id"])
        finally:
            store.close()
        self.failed = bool(self.reasons)
        self.inconclusive = inconclusive is not None and not self.failed
        if inconclusive is not None:
            self.reasons.append(inconclusive)
        outcome = "failed" if self.failed else "inconclusive" if self.inconclusive else "passed"
        record.update(passed=outcome == "passed", outcome=outcome, reasons=list(self.reasons),
                      fail_under=self.fail_under)
        summary_file = os.environ.get(STEP_SUMMARY_ENV)
        if summary_file:
            with open(summary_file, "a", encoding="utf-8") as handle:
                handle.write(step_summary({**summary, **(experiment.get("summary") or {})}, record))
        return record

    def _fail_under(self, figures: dict) -> str | None:
        """Judge the accuracy against --fail-under: adds a failure reason, or returns why the run is
        inconclusive (its interval strictly contains the threshold), or None when it passes."""
        accuracy, (low, high), threshold = figures["accuracy"], figures["ci95"], self.fail_under
        what = "valid-sample accuracy" if self.gate_on == "valid" else "accuracy"
        words = f"{what} {accuracy:.4f} (95% CI {low:.4f}–{high:.4f})"
        if low < threshold < high and self.on_inconclusive != "point":
            message = f"{words} contains the threshold {threshold:g}: too few samples to tell (see `evalui plan`)"
            if self.on_inconclusive == "fail":
                self.reasons.append(message)
                return None
            return message
        if accuracy < threshold:
            self.reasons.append(f"{words} is below {threshold:g}")
        return None

    def _regression(self, store, exp_id: str) -> dict:
        from evalui.reports.comparison import CannotCompare, compare_runs
        from evalui.stats.paired import is_regression

        try:
            record = compare_runs(store, self.baseline, exp_id)
        except CannotCompare as exc:  # e.g. no shared sample: a gate that cannot judge does not pass
            self.reasons.append(f"cannot compare with {self.baseline}: {exc}")
            return {"baseline": self.baseline, "error": str(exc)}
        if is_regression(record["diff"], record["mcnemar_p"]):
            self.reasons.append(f"significantly worse than {self.baseline}: diff {record['diff']:+.4f}, "
                                f"McNemar p = {record['mcnemar_p']:.4g}")
        keys = ("n", "diff", "diff_ci", "mcnemar_p", "flipped_to_wrong", "flipped_to_correct", "significant")
        return {"baseline": self.baseline, **{k: record[k] for k in keys}}


def _valid_samples(store, experiment: dict, samples: list) -> list:
    """The samples no validity scanner finds invalid (scanned now, as `evalui scan` would)."""
    from evalui.run.findings import scan
    from evalui.scanners.validity import is_invalid

    scan(store, experiment, samples)
    return [s for s in samples if not is_invalid(s.findings)]


def _check_baseline(args, baseline: str) -> None:
    from evalui.store.run_store import RunStore

    if args.exp_id and args.exp_id == baseline:
        raise InputError(f"--max-regression-vs {baseline}: a run cannot be its own baseline")
    benchmark = getattr(args, "benchmark_name", None) or args.benchmark
    store = RunStore()
    try:
        experiment = store.experiment(baseline)
    finally:
        store.close()
    if experiment is None:
        raise InputError(f"--max-regression-vs {baseline}: no stored run has that id")
    # AIME's commands share one name for three benchmarks (aime-generate, aime-judge, aime-winrate).
    if experiment["benchmark"] != benchmark and not experiment["benchmark"].startswith(f"{benchmark}-"):
        raise InputError(f"--max-regression-vs {baseline}: that is a {experiment['benchmark']} run, not {benchmark}")
