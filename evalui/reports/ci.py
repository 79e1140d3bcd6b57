"""What a CI job reads after a run: the gate's figures, a JUnit XML file (one testcase per sample),
and a Markdown summary for GitHub Actions' step summary."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

from evalui.reports.clusters import cluster_rule
from evalui.reports.markdown import inert
from evalui.reports.verdicts import verdict_of
from evalui.stats.clustered import cluster_key, clustered_accuracy

# XML 1.0 cannot carry most control characters, even escaped; model text may contain them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
DETAIL_CHARS = 4000


_STATUS = {"correct": "passed", "wrong": "failed", "error": "error", "unscored": "skipped", "pending": "pending"}


def sample_status(sample) -> str:
    """passed, failed (a wrong answer), error (the endpoint failed), skipped (unscored) or pending (not run)."""
    return _STATUS[verdict_of(sample)]


def gate_figures(samples: list, benchmark: str | None = None) -> dict:
    """Accuracy as the gate reads it: passes over every scorable sample, so errors and samples
    that never ran count against it; with its 95 % interval, clustered where samples share a cluster
    (evalui.stats.clustered)."""
    statuses = [(s, sample_status(s)) for s in samples]
    counts = Counter(status for _, status in statuses)
    considered = len(samples) - counts["skipped"]
    rule = cluster_rule(benchmark)
    interval = clustered_accuracy((cluster_key(s.sample_id, rule), status == "passed")
                                  for s, status in statuses if status != "skipped")
    return {"passed": counts["passed"], "failed": counts["failed"], "errors": counts["error"],
            "pending": counts["pending"], "skipped": counts["skipped"], "considered": considered,
            "accuracy": counts["passed"] / considered if considered else 0.0,
            "ci95": [interval.low, interval.high], "ci95_method": interval.method, "clusters": interval.clusters}


def _text(value, limit: int = DETAIL_CHARS) -> str:
    text = value if isinstance(value, str) else "" if value is None else repr(value)
    text = _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def junit_tree(experiment: dict, samples: list) -> ElementTree.ElementTree:
    """One testsuite per group, one testcase per sample: wrong answers are failures, endpoint errors
    are errors, unscored samples are skipped, and samples that never ran are errors too."""
    benchmark = experiment["benchmark"]
    root = ElementTree.Element("testsuites", name=f"evalui {benchmark} {experiment['exp_id']}")
    suites: dict[str, ElementTree.Element] = {}
    counts: dict[str | None, Counter] = {}  # per suite; None is every suite together
    for sample in samples:
        suite = suites.get(sample.group)
        if suite is None:
            suite = suites[sample.group] = ElementTree.SubElement(
                root, "testsuite", name=_text(f"{benchmark}.{sample.group}", 300))
        case = ElementTree.SubElement(suite, "testcase", name=_text(sample.sample_id, 300),
                                      classname=_text(f"evalui.{benchmark}.{sample.group}", 300),
                                      time=f"{sample.latency_s or 0.0:.3f}")
        status = sample_status(sample)
        verdict = sample.verdict or {}
        if status == "failed":
            kind = verdict.get("error_type") or "wrong_answer"
            reason = verdict.get("error") or verdict.get("reason") or kind
            failure = ElementTree.SubElement(case, "failure", message=_text(reason, 500), type=_text(kind, 100))
            failure.text = _text(f"answer: {_text(sample.prediction)}\nreason: {_text(reason)}")
        elif status in ("error", "pending"):
            message = sample.error or "the sample did not run"
            error = ElementTree.SubElement(case, "error", message=_text(message, 500),
                                           type="endpoint_error" if status == "error" else "not_run")
            error.text = _text(message)
        elif status == "skipped":
            ElementTree.SubElement(case, "skipped", message="no known answer: unscored")
        key = {"failed": "failures", "error": "errors", "pending": "errors", "skipped": "skipped"}.get(status)
        for scope in (sample.group, None):
            tally = counts.setdefault(scope, Counter())
            tally["tests"] += 1
            if key:
                tally[key] += 1
    for scope, element in [*suites.items(), (None, root)]:
        element.attrib.update({k: str(counts.get(scope, Counter())[k]) for k in ("tests", "failures", "errors", "skipped")})
    return ElementTree.ElementTree(root)


def write_junit(path: str | Path, experiment: dict, samples: list) -> Path:
    path = Path(path)
    tree = junit_tree(experiment, samples)
    ElementTree.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
    return path


def step_summary(summary: dict, gate: dict) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: the run, its accuracy per group, and the gate's verdict.
    Only figures and names; no model text."""
    figures = gate["figures"]
    reasons = "; ".join(inert(r) for r in gate["reasons"])
    outcome = {"passed": "✅ passed", "inconclusive": f"⚠️ inconclusive: {reasons}"}.get(
        gate.get("outcome") or ("passed" if gate["passed"] else "failed"), f"❌ failed: {reasons}")
    low, high = figures.get("ci95") or (None, None)
    interval = f", 95% CI {low:.1%}–{high:.1%}" if low is not None and high is not None else ""
    lines = [f"### evalui {inert(summary.get('benchmark') or '')} run `{inert(summary['exp_id'])}`", "",
             f"**Gate {outcome}**", "",
             f"Accuracy {figures['accuracy']:.1%}{interval} ({figures['passed']}/{figures['considered']}; "
             f"{figures['failed']} wrong, {figures['errors']} errors, {figures['pending']} not run, "
             f"{figures['skipped']} unscored). Model `{inert(summary.get('model') or '')}`.", ""]
    groups = next((v for k, v in summary.items() if k.startswith("by_") and isinstance(v, dict) and v
                   and all(isinstance(g, dict) and "rate" in g for g in v.values())), None)
    if groups:
        lines += ["| group | correct | judged | accuracy |", "|---|---|---|---|"]
        lines += [f"| {inert(name)} | {g['successes']} | {g['total']} | {g['rate']:.1%} |" for name, g in groups.items()]
        lines.append("")
    regression = gate.get("regression")
    if regression:
        ci = regression["diff_ci"]
        lines.append(f"Against `{inert(regression['baseline'])}`: diff {regression['diff'] * 100:+.1f} pts "
                     f"(95% CI [{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]), McNemar p = {regression['mcnemar_p']:.4g}, "
                     f"{regression['flipped_to_wrong']} flipped to wrong, {regression['flipped_to_correct']} to correct.")
        lines.append("")
    return "\n".join(lines) + "\n"
