"""`evalui aime calibrate` on a generated file judged and compared by a scripted peer and reviewed by
two reviewers and an adjudicator: the three figures (judge only, reviewers only, corrected), each
with its interval, against figures worked out here, ppi-python for the PPI++ ones; and the judge
run's summary.json and report carrying the same figures once the run is exported again."""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from unit.review.test_verification import write_problems

from evalui.review import queue
from support.openai_peer import ScriptedPeer, completion

N = 24
REVIEWED = 14
# The judge's four scores by i % 4, one judge score band each: means 2, 3, 3.75 and 5.
JUDGE_SCORES = {0: (2, 2, 2, 2), 1: (3, 3, 3, 3), 2: (4, 4, 4, 3), 3: (5, 5, 5, 5)}
DIMENSIONS = ("correctness", "clarity", "difficulty_match", "completeness")
# Each reviewer's score (all four dimensions) of problem i; 13 is disputed and adjudicated at 3.
HUMAN = {0: (2, 2), 4: (2, 2), 8: (2, 2), 12: (2, 2),
         1: (3, 3), 5: (4, 4), 9: (4, 3), 13: (4, 2),
         2: (4, 4), 6: (3, 3), 10: (4, 4),
         3: (5, 5), 7: (5, 5), 11: (5, 5)}
ADJUDICATED = {13: 3}
Z = 1.959963984540054


def run_cli(*args, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalui", "aime", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **env})


def index_in(text: str) -> int:
    return int(re.search(r"Problem (\d+) with", text).group(1))


def script(body, n):
    user = body["messages"][-1]["content"]
    if "strict reviewer" in body["messages"][0]["content"]:
        scores = JUDGE_SCORES[index_in(user) % 4]
        return completion(json.dumps({d: {"score": s, "comment": "scripted"} for d, s in zip(DIMENSIONS, scores)}))
    first = user.split("Problem 1:", 1)[1].split("Problem 2:", 1)[0]
    generated_first = re.search(r"Problem \d+ with", first) is not None
    wins = index_in(user) % 3 == 0  # the judge prefers every third generated problem to its real one
    return completion(json.dumps({"winner": "1" if generated_first == wins else "2", "reason": "scripted"}))


def preference(i: int) -> str:
    return "yes" if i % 3 == 0 or i == 4 else "no"  # the reviewer agrees with the judge but on problem 4


def review_everything(data: Path, env: dict) -> None:
    """ana and ben review problems 0–13 (ana answering the win-rate question), lee adjudicates 13; ana's
    review of problem 0 and the adjudication go through `evalui verify`, the rest through the panel's call."""
    for i, (ana, ben) in HUMAN.items():
        for name, score in (("ana", ana), ("ben", ben)):
            if (name, i) != ("ana", 0):
                queue.record_review(data, f"gen-{i:04d}", dict.fromkeys(DIMENSIONS, score),
                                    "approved" if score >= 3.5 else "rejected", "", name,
                                    better_than_reference=preference(i) if name == "ana" else None)
    for command, who, name, problem, score, extra in (
            ("review", "--reviewer", "ana", 0, HUMAN[0][0], ["--better-than-reference", preference(0)]),
            ("adjudicate", "--adjudicator", "lee", 13, ADJUDICATED[13], [])):
        flags = ("--correctness", "--clarity", "--difficulty-match", "--completeness")
        values = [x for flag in flags for x in (flag, str(score))]
        done = subprocess.run([sys.executable, "-m", "evalui", "verify", command, "--input", str(data), "--problem",
                               f"gen-{problem:04d}", who, name, *values, "--status",
                               "approved" if score >= 3.5 else "rejected", *extra],
                              capture_output=True, text=True, timeout=120, env={**os.environ, **env})
        assert done.returncode == 0, done.stderr


def band_weights():
    """Per labelled and unlabelled problem, in file order, the weight of its band: N_s/n_s and N_s/(N_s − n_s)."""
    sizes = [sum(1 for i in range(N) if i % 4 == b) for b in range(4)]
    labels = [sum(1 for i in range(REVIEWED) if i % 4 == b) for b in range(4)]
    return (np.array([sizes[i % 4] / labels[i % 4] for i in range(REVIEWED)]),
            np.array([sizes[i % 4] / (sizes[i % 4] - labels[i % 4]) for i in range(REVIEWED, N)]))


def human_means() -> list[float]:
    return [float(ADJUDICATED.get(i, sum(HUMAN[i]) / 2)) for i in range(REVIEWED)]


def test_calibrate_prints_the_three_figures_and_the_judge_summary_carries_them(tmp_path):
    import ppi_py

    data = write_problems(tmp_path, N)
    env = {"EVALUI_DATA_DIR": str(tmp_path / "data"), "EVALUI_ADJUDICATORS": ""}
    with ScriptedPeer(script) as peer:
        judge_args = ["judge", "--input", str(data), "--base-url", peer.base_url, "--model", "judge",
                      "--exp-id", "cal-judge"]
        judged = run_cli(*judge_args, env=env)
        assert judged.returncode == 0, judged.stderr[-2000:]
        compared = run_cli("winrate", "--input", str(data), "--real", "bundled", "--base-url", peer.base_url,
                           "--model", "judge", env=env)
        assert compared.returncode == 0, compared.stderr[-2000:]
        first_summary = json.loads((tmp_path / "data" / "runs" / "cal-judge" / "summary.json").read_text())
        assert first_summary["calibrated"]["n_labelled"] == 0  # nothing reviewed yet: the judge's figures alone
        review_everything(data, env)
        done = run_cli("calibrate", str(data), env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        again = run_cli(*judge_args, env=env)  # a finished run asked again writes its exports again
        assert again.returncode == 0, again.stderr[-2000:]
        asked = len(peer.chat_requests())
    assert asked == N + 2 * N  # the second judge command asked nothing
    printed = json.loads(done.stdout.splitlines()[-1])
    assert printed["n_labelled"] == REVIEWED and printed["n_unlabelled"] == N - REVIEWED
    assert printed["method"]["weighting"].startswith("weighted by judge score band (4")

    # Pass rate. Judge: bands 2 and 3 pass, 12 of 24. Reviewers, per band (0: 0 of 4; 1: 5 and 9 of 1, 5, 9, 13,
    # 9 by the mean of 4 and 3, 13 failed by the adjudicator; 2: 2 and 10 of 2, 6, 10; 3: all 3), each band
    # a quarter of the problems. Corrected: the same post-stratified rate, with its two-phase interval.
    rates, labels = (0, 2 / 4, 2 / 3, 1), (4, 4, 3, 3)
    theta = sum(r / 4 for r in rates)
    spreads = [r * (1 - r) * n / (n - 1) for r, n in zip(rates, labels)]
    se = math.sqrt(theta * (1 - theta) / N + sum((1 / 4) ** 2 * (1 / n - 1 / 6) * s for n, s in zip(labels, spreads)))
    passes = printed["pass_rate"]
    assert passes["estimate"] == "corrected" and passes["flags"] == []
    assert passes["naive"]["value"] == pytest.approx(0.5)
    assert passes["human_only"]["value"] == pytest.approx(theta)
    assert passes["corrected"]["value"] == pytest.approx(theta) and passes["corrected"]["se"] == pytest.approx(se)
    assert (passes["corrected"]["low"], passes["corrected"]["high"]) == pytest.approx((theta - Z * se, theta + Z * se))
    assert passes["corrected"]["details"]["variance"] == "stratified"

    # Mean score: PPI++ with each band's weight, as ppi-python computes it.
    weights, weights_u = band_weights()
    judge_means = np.array([sum(JUDGE_SCORES[i % 4]) / 4 for i in range(N)])
    human = np.array(human_means())
    low, high = ppi_py.ppi_mean_ci(human, judge_means[:REVIEWED], judge_means[REVIEWED:], alpha=0.05, w=weights,
                                   w_unlabeled=weights_u)
    point = ppi_py.ppi_mean_pointestimate(human, judge_means[:REVIEWED], judge_means[REVIEWED:], w=weights,
                                          w_unlabeled=weights_u)
    score = printed["mean_score"]
    assert score["naive"]["value"] == pytest.approx(judge_means.mean())
    assert score["human_only"]["value"] == pytest.approx(np.average(human, weights=weights))
    assert score["corrected"]["value"] == pytest.approx(float(np.squeeze(point)), abs=1e-9)
    assert (score["corrected"]["low"], score["corrected"]["high"]) == pytest.approx(
        (float(np.squeeze(low)), float(np.squeeze(high))), abs=1e-9)

    # Win rate: the judge wins every third problem, 8 of 24; the reviewer's answers agree but on problem 4.
    wins = printed["win_rate"]
    judge_wins = np.array([1.0 if i % 3 == 0 else 0.0 for i in range(N)])
    answers = np.array([1.0 if preference(i) == "yes" else 0.0 for i in range(REVIEWED)])
    point = ppi_py.ppi_mean_pointestimate(answers, judge_wins[:REVIEWED], judge_wins[REVIEWED:], w=weights,
                                          w_unlabeled=weights_u)
    assert wins["n_labelled"] == REVIEWED and wins["naive"]["value"] == pytest.approx(8 / 24)
    assert wins["human_only"]["value"] == pytest.approx(np.average(answers, weights=weights))
    assert wins["corrected"]["value"] == pytest.approx(float(np.squeeze(point)), abs=1e-9)

    # The text before the JSON line shows each figure with its interval.
    text = done.stdout.splitlines()[:-1]
    row = next(line for line in text if line.startswith("pass rate"))
    assert f"{theta:.1%} ({theta - Z * se:.1%}–{theta + Z * se:.1%})" in row and "50.0%" in row
    assert any(line.startswith("review next: gen-00") for line in text)
    assert printed["review_next"]["problem_ids"] and all(
        int(p[4:]) >= REVIEWED for p in printed["review_next"]["problem_ids"])

    # The judge run exported again: summary.json and the report carry the same figures.
    summary = json.loads((tmp_path / "data" / "runs" / "cal-judge" / "summary.json").read_text())
    assert summary["calibrated"]["pass_rate"] == passes and summary["calibrated"]["mean_score"] == score
    report = Path(json.loads(again.stdout.splitlines()[-1])["report"]).read_text()
    assert "### Corrected by the reviews" in report and f"{theta:.1%}" in report


def test_calibrate_without_judge_scores_is_one_line(tmp_path):
    data = write_problems(tmp_path, 3)
    done = run_cli("calibrate", str(data), env={"EVALUI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2 and "no judge scores" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_answer_to_the_reference_question_is_one_line_and_writes_nothing(tmp_path):
    data = write_problems(tmp_path, 2)
    done = subprocess.run([sys.executable, "-m", "evalui", "verify", "review", "--input", str(data), "--problem",
                           "gen-0000", "--reviewer", "ana", "--correctness", "4", "--clarity", "4", "--difficulty-match",
                           "4", "--completeness", "4", "--status", "approved", "--better-than-reference", "maybe"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == (
        "evalui: error: --better-than-reference must be one of yes, no, tie, got 'maybe'")
    assert not (tmp_path / f"{data.stem}_verifications.json").exists()
