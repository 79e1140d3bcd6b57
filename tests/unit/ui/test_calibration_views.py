"""What the results tab and the verification panel show of the judge's figures corrected by the
reviewers: the three figures with their intervals and which is the estimate, the too-small and
uninformative-judge warnings, the calibration chart's counts, "review these next" (unreviewed
problems only, with the expected interval width) and the reference problem named without the
win-rate judge's outcome."""

from __future__ import annotations

import json
from pathlib import Path

from evalui.review import queue
from evalui.review import reviews as reviews_file
from evalui.review.calibration import plan_for, winrate_partners
from unit.review.test_verification import write_problems

DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")
N = 20


def judge_score(i: int) -> int:
    return 5 if i % 2 == 0 else 2  # the judge passes the even problems


def write_judged(folder: Path, n: int = N) -> Path:
    data = write_problems(folder, n)
    results = [{"problem_id": f"gen-{i:04d}", "scores": {d: {"score": judge_score(i), "comment": ""} for d in DIMENSIONS},
                "total": judge_score(i)} for i in range(n)]
    (folder / f"{data.stem}_judge.json").write_text(json.dumps({"summary": {}, "results": results}))
    return data


def write_winrate(data: Path, n: int = N) -> None:
    results = [{"pair_id": f"pair-gen-{i:04d}", "generated_id": f"gen-{i:04d}", "real_id": f"2025-I-{i + 1}",
                "outcome": "win" if i % 4 == 0 else "loss", "consistent": True} for i in range(n)]
    data.with_name(f"{data.stem}_winrate.json").write_text(json.dumps({"summary": {}, "results": results}))


def review(data: Path, indices, reviewer: str = "ana", human=None, better=None) -> None:
    for i in indices:
        passed = (human or (lambda j: judge_score(j) == 5))(i)
        queue.record_review(data, f"gen-{i:04d}", dict.fromkeys(DIMENSIONS, 5 if passed else 2),
                            "approved" if passed else "rejected", "", reviewer,
                            better_than_reference=better(i) if better else None)


def test_too_few_reviews_are_flagged_and_the_figures_stay_uncorrected(tmp_path):
    from evalui.ui.tabs.aime import calibration_view

    data = write_judged(tmp_path)
    review(data, range(4))
    text, chart = calibration_view(data)
    assert "Calibration set too small" in text and "4 problems reviewed" in text
    assert "**4 reviewed**, 16 not reviewed" in text
    assert "| pass rate |" in text and "| reviewers only |" in text  # the estimate is the reviewers' own
    counts = {trace.name: list(trace.y) for trace in chart.data}
    assert sum(counts["reviewers: pass"]) == 2 and sum(counts["reviewers: fail"]) == 2
    assert sum(counts["not reviewed"]) == 16


def test_the_corrected_figure_is_the_estimate_once_enough_are_reviewed(tmp_path):
    from evalui.ui.tabs.aime import calibration_view

    data = write_judged(tmp_path)
    write_winrate(data)
    # The reviewers fail two problems the judge passed (0 and 2): the judge is too lenient.
    review(data, range(12), human=lambda i: judge_score(i) == 5 and i not in (0, 2),
           better=lambda i: "yes" if i % 4 == 0 else "no")
    text, chart = calibration_view(data)
    assert "too small" not in text and "tells nothing" not in text
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in text.splitlines() if line.startswith("| ") and "figure" not in line}
    naive, human, corrected, chosen = rows["pass rate"]
    assert naive.startswith("50.0%") and chosen == "corrected" and corrected.endswith("✓")
    corrected_value = float(corrected.strip("*✓ ").split("%")[0])
    assert corrected_value < 50.0  # corrected down, with its interval in brackets
    assert "(" in corrected and "–" in corrected
    assert "win rate" in rows and "mean score (1–5)" in rows
    assert "sensitivity 1.00, specificity 0.75" in text  # two of the eight failures passed by the judge
    assert chart is not None


def test_an_uninformative_judge_is_flagged(tmp_path):
    from evalui.ui.tabs.aime import calibration_view

    data = write_judged(tmp_path)
    review(data, range(12), human=lambda i: judge_score(i) != 5)  # the reviewers say the opposite every time
    text, _ = calibration_view(data)
    assert "tells nothing about the reviewers' verdict" in text and "= 0.00" in text


def test_a_file_not_judged_says_so(tmp_path):
    from evalui.ui.tabs.aime import calibration_view

    data = write_problems(tmp_path, 3)
    text, chart = calibration_view(data)
    assert "run the LLM judge first" in text and chart is None


def test_review_next_lists_only_unreviewed_problems_and_the_expected_width(tmp_path):
    from evalui.ui.review.view import next_markdown

    data = write_judged(tmp_path)
    review(data, range(6))
    plan = plan_for(data)
    assert plan["reviewed"] == 6 and plan["judged"] == N and "bands" not in plan
    assert len(plan["problem_ids"]) == 10
    assert not {f"gen-{i:04d}" for i in range(6)} & set(plan["problem_ids"])
    assert plan["half_width_after"] < plan["half_width_now"]
    text = next_markdown(str(data))
    assert "Review these 10 next" in text and "after these 10" in text
    assert "gen-0000" not in text

    review(data, [int(plan["problem_ids"][0][4:])], reviewer="ben")
    assert plan["problem_ids"][0] not in plan_for(data)["problem_ids"]


def test_review_next_without_judge_scores(tmp_path):
    from evalui.ui.review.view import next_markdown

    data = write_problems(tmp_path, 3)
    assert plan_for(data) is None
    assert "No judge scores" in next_markdown(str(data))


def test_the_reference_is_named_without_the_judges_outcome(monkeypatch, tmp_path):
    from evalui.ui.review.view import reference_markdown, render

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path))
    data = write_judged(tmp_path, 4)
    write_winrate(data, 4)
    assert winrate_partners(data.with_name(f"{data.stem}_winrate.json"))["gen-0001"] == "2025-I-2"
    shown = reference_markdown(str(data), "gen-0000")
    assert "2025-I-1" in shown and "win" not in shown.lower().replace("win-rate", "")
    queue.record_review(data, "gen-0000", dict.fromkeys(DIMENSIONS, 4), "approved", "", "ana",
                        better_than_reference="tie")
    view = render({"file": str(data), "index": 0}, "ana")
    assert "tie" in view and "loss" not in json.dumps(view, default=str)
    saved = json.loads(reviews_file.verifications_path(data).read_text())["gen-0000"]
    assert saved["reviews"][0][reviews_file.PREFERENCE] == "tie"
