"""Reviews need a reviewer and every score: an unnamed or half-scored review is refused and nothing is
written; named reviewers each keep their review; reviews that older versions saved without a name
still load, each under its own "anonymous" label, and no new review can land on one of them."""
from __future__ import annotations

import subprocess
import sys

from evalui.review import queue as queue
from evalui.review import report as report
from evalui.review import reviews as v
from integration.review.test_verification import write_problems


def test_the_cli_refuses_a_reserved_reviewer_name_in_one_line(tmp_path):
    data = write_problems(tmp_path, 1)
    done = subprocess.run([sys.executable, "-m", "evalui", "verify", "review", "--input", str(data),
                           "--problem", "gen-0000", "--reviewer", "anonymous", "--correctness", "5", "--clarity", "4",
                           "--difficulty-match", "3", "--completeness", "4", "--status", "approved"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "reserved for reviews saved without a name" in done.stderr
    assert not v.verifications_path(data).exists()
