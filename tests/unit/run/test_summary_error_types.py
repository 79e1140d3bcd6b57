"""The run summary's error types count wrong samples only: a judged sample whose answer is hidden
(GAIA's test split, verdict ``scored: False``) is no ``endpoint_error``."""

from evalui.run.experiment import summary_of
from evalui.store.rows import Sample


def judged(sample_id: str, correct: bool, verdict: dict) -> Sample:
    return Sample(exp_id="r", sample_id=sample_id, position=0, group="g", stage="judged", payload={},
                  correct=correct, verdict=verdict)


def test_hidden_answers_are_no_error_type():
    samples = [judged("a", True, {}), judged("b", False, {"error_type": "wrong_answer"}),
               judged("c", False, {"scored": False, "model_answer": "x"}), judged("d", False, {})]
    assert summary_of("r", samples)["error_types"] == {"wrong_answer": 1, "endpoint_error": 1}
