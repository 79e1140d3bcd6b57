"""An AIME generation status keeps rejected attempts (invalid output, near-duplicates, after every
retry) apart from endpoint errors, and counts them against the valid share: one valid problem of
eight answered is 12.5 %, not 100 %."""

from __future__ import annotations

from evalui.benchmarks.aime.spec import GENERATE
from evalui.ui.run_view import status_line


def test_rejections_are_not_errors_and_count_against_the_share(store):
    store.create_or_get_experiment("gen", GENERATE, "m", "host", {"options": {}})
    store.add_samples("gen", [(f"gen-{i:04d}", "algebra", {"topic": "algebra"}) for i in range(9)])
    store.record_rollout("gen", "gen-0000", request={}, response={"text": "{}"}, latency_s=0.1, prompt_tokens=1,
                         completion_tokens=1, attempts=1)
    store.record_judgement("gen", "gen-0000", prediction={"problem": "p"}, correct=True, verdict={"valid": True})
    for i in range(1, 8):  # seven attempts rejected
        store.record_error("gen", f"gen-{i:04d}", request={}, attempts=3,
                           error="invalid_generation: duplicates the generated problem gen-0000 (similarity 0.97) "
                                 "(after 3 attempts)")
    store.record_error("gen", "gen-0008", request={}, attempts=5, error="connection: refused (after 5 attempts)")
    line = status_line(store, "gen")
    assert "1 valid (12.5%)" in line
    # The endpoint's failure is an error, and no verdict on the model: it is not in the share.
    assert "1 errors" in line and "7 rejected (invalid, or too close" in line
