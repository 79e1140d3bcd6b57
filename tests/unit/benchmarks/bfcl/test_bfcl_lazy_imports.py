"""The leaderboard's figures come without importing pandas (bfcl-eval's helper imports it for its CSV
writer only); the helper's pandas is the real one as soon as it is used, and so is any later import."""
from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_leaderboard_needs_no_pandas_and_pandas_still_works_after():
    script = textwrap.dedent("""
        import sys
        from evalui.benchmarks.bfcl.scoring.leaderboard import leaderboard
        figures = leaderboard({"simple_python": {"total": 4, "successes": 3, "rate": 0.75}})
        print("pandas" in sys.modules, figures["non_live_simple"]["accuracy"])
        from evalui.benchmarks.bfcl.scoring.leaderboard import official_helper
        helper = official_helper()
        frame = helper.pd.DataFrame({"a": [1, 2]})
        import pandas
        print("pandas" in sys.modules, type(sys.modules["pandas"]).__name__, int(frame["a"].sum()),
              pandas.DataFrame is helper.pd.DataFrame, float(helper.np.percentile([1, 2, 3], 50)))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()
    assert first == "False 0.25"
    assert second == "True module 3 True 2.0"
