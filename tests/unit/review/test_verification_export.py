"""`evalui verify export`: the approved problems with their reviews, pushed with
datasets.Dataset.push_to_hub to the project's local fake Hub (the real huggingface_hub client,
pointed at it through HF_ENDPOINT), read back from the committed parquet file."""
from __future__ import annotations

import pytest

from evalui.errors import InputError
from evalui.review import export as verification_export
from evalui.review import queue as queue
from unit.review.test_verification import SCORES, write_problems

TOKEN = "hf_sentinel_token_never_printed_1234"


def reviewed_file(tmp_path):
    data = write_problems(tmp_path, 4)
    queue.record_review(data, "gen-0000", SCORES, "approved", "<script>x</script>", "ana")
    queue.record_review(data, "gen-0000", {**SCORES, "clarity": 2}, "rejected", "unclear", "ben")
    queue.record_review(data, "gen-0000", SCORES, "approved", "settled", "lee", final=True)
    queue.record_review(data, "gen-0001", SCORES, "rejected", "", "ana")
    queue.record_review(data, "gen-0002", SCORES, "approved", "", "ben")
    return data


@pytest.mark.parametrize("repo", ["not a repo", "a/b/c", "../escape", "", "x" * 200, "team/name.git"])
def test_bad_repository_names_are_refused_before_anything_is_sent(tmp_path, repo):
    data = reviewed_file(tmp_path)
    with pytest.raises(InputError, match="not a Hub dataset name"):
        verification_export.push_approved(data, repo, token=TOKEN)


def test_nothing_approved_is_refused(tmp_path):
    data = write_problems(tmp_path, 2)
    with pytest.raises(InputError, match="no approved problems to export"):
        verification_export.push_approved(data, "team/empty", token=TOKEN)
