"""`evalui compare` of two judge runs, each on its own generated file: once both files have reviews,
the comparison leads with the figures corrected by each file's reviews (read as the reviews are now,
not as the runs stored them), B against A with the interval of two independent estimates; before
that, or with one side unreviewed, it says why it compares the judge's own figures."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from unit.review.test_verification import write_problems

from evalui.review import queue
from integration.benchmarks.aime.test_aime_calibration import DIMENSIONS, JUDGE_SCORES, run_cli, script
from support.openai_peer import ScriptedPeer

N = 16
REVIEWED = 12
Z = 1.959963984540054


def judge_passes(i: int) -> bool:
    return sum(JUDGE_SCORES[i % 4]) / 4 >= 3.5


def review(data, human) -> None:
    for i in range(REVIEWED):
        passed = human(i)
        queue.record_review(data, f"gen-{i:04d}", dict.fromkeys(DIMENSIONS, 5 if passed else 2),
                            "approved" if passed else "rejected", "", "ana")


def compare(env: dict, *extra) -> tuple[dict, list[str]]:
    done = subprocess.run([sys.executable, "-m", "evalui", "compare", "judge-a", "judge-b", *extra],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    return json.loads(lines[-1]), lines[:-1]


def chosen(figure: dict) -> dict:
    return figure[figure["estimate"]]


def test_compare_uses_the_corrected_figures_once_both_files_have_reviews(tmp_path):
    from evalui.review.calibration import calibrate

    files = {}
    for side in ("a", "b"):
        folder = tmp_path / side
        folder.mkdir()
        files[side] = write_problems(folder, N)
    env = {"EVALUI_DATA_DIR": str(tmp_path / "data"), "EVALUI_ADJUDICATORS": ""}
    with ScriptedPeer(script) as peer:
        for side, data in files.items():
            judged = run_cli("judge", "--input", str(data), "--base-url", peer.base_url, "--model", "judge",
                             "--exp-id", f"judge-{side}", env=env)
            assert judged.returncode == 0, judged.stderr[-2000:]
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", **env}

    record, text = compare(full_env)  # nothing reviewed yet
    assert "no reviewed items in A or B" in record["calibrated"]["reason"]
    assert any(line.startswith("not corrected by reviews") for line in text)

    # A's reviewers agree with the judge; B's fail the problems the judge passes in the 3.5–4.5 band.
    review(files["a"], judge_passes)
    record, _ = compare(full_env)
    assert "no reviewed items in B" in record["calibrated"]["reason"]  # one side reviewed: not corrected
    review(files["b"], lambda i: judge_passes(i) and i % 4 != 2)

    record, text = compare(full_env)
    block = record["calibrated"]
    assert block["a_reviewed"] == REVIEWED and block["b_reviewed"] == REVIEWED
    assert set(block["figures"]) == {"pass_rate", "mean_score"}  # no win-rate results beside either file
    expected = {side: calibrate(data) for side, data in files.items()}
    for name in ("pass_rate", "mean_score"):
        figure = block["figures"][name]
        a, b = chosen(expected["a"][name]), chosen(expected["b"][name])
        assert figure["a_estimate"] == expected["a"][name]["estimate"] == "corrected"
        assert figure["a"] == pytest.approx(a["value"]) and figure["b"] == pytest.approx(b["value"])
        assert figure["a_ci95"] == pytest.approx([a["low"], a["high"]])
        spread = Z * math.sqrt(a["se"] ** 2 + b["se"] ** 2)
        assert figure["diff"] == pytest.approx(b["value"] - a["value"])
        assert figure["diff_ci"] == pytest.approx([b["value"] - a["value"] - spread, b["value"] - a["value"] + spread])
        assert figure["significant"] == (abs(figure["diff"]) > spread)
    passes = block["figures"]["pass_rate"]
    assert passes["a"] == pytest.approx(0.5) and passes["b"] < passes["a"]  # B's reviewers pass fewer
    # The judge's own figures are the same for both files: only the corrected ones tell them apart.
    assert record["a_accuracy"] == record["b_accuracy"]
    assert text[1].startswith("corrected by the reviews (12 reviewed in A, 12 in B)")
    assert text[2].lstrip().startswith("pass rate") and f"{passes['a']:.1%}" in text[2]
    assert any("the judge's own figures" in line for line in text)


def test_the_markdown_leads_with_the_corrected_figures():
    from evalui.reports.comparison import calibrated_difference, comparison_markdown

    def block(value, se, reviewed=12):
        estimate = {"value": value, "low": value - Z * se, "high": value + Z * se, "se": se}
        return {"n_labelled": reviewed, "pass_rate": {"estimate": "corrected", "corrected": estimate,
                                                      "naive": {"value": 0.5}, "human_only": {"value": None}}}

    record = {"a": "judge-a", "b": "judge-b", "n": 16, "a_accuracy": 0.5, "b_accuracy": 0.5, "diff": 0.0,
              "diff_ci": [-0.1, 0.1], "mcnemar_p": 1.0, "significant": False, "flipped_to_wrong": 0,
              "flipped_to_correct": 0, "only_in_a": 0, "only_in_b": 0, "by_group": {},
              "interval_method": "m", "test_method": "t",
              "calibrated": calibrated_difference(block(0.5, 0.05), block(0.25, 0.05))}
    text = comparison_markdown(record)
    assert text.startswith("**Corrected by the reviews** (12 reviewed in A, 12 in B")
    assert "| pass rate | 50.0% (40.2%–59.8%) corrected | 25.0% (15.2%–34.8%) corrected | -25.0 pts |" in text
    assert "| significant |" in text and text.index("Corrected") < text.index("against")
    unreviewed = calibrated_difference(block(0.5, 0.05), block(0.25, 0.05, reviewed=0))
    assert unreviewed["reason"].startswith("no reviewed items in B") and "figures" not in unreviewed
    record["calibrated"] = unreviewed
    assert comparison_markdown(record).startswith("_Not corrected by reviews: no reviewed items in B")
