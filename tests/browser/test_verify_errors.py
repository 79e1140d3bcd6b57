"""Mistakes and hostile files in the verification panel and the Score tab: a one-line message, no red
"Error" badges, nothing overwritten, no server path shown, and the page stays usable."""

from __future__ import annotations

import json
import re

import pytest
from unit.review.test_verification import SCORES, write_problems

from browser.pages import attach
from browser.verify_steps import score
from evalui.review import reviews as verification

pytestmark = pytest.mark.browser


def open_file(page, url, name="aime_generated_"):
    page.goto(url)
    page.get_by_role("tab", name=re.compile("Verification|人工验证")).click()
    page.locator("#verify-file input").click()
    page.get_by_role("option", name=re.compile(name)).first.click()
    page.locator("#verify-where").filter(has_text=re.compile("of 3|共 3 题")).wait_for(timeout=30_000)


def error_badges(page) -> int:
    """Gradio marks each output of a failed event with a red "Error"; a failed event's toast says "Error" too."""
    return page.get_by_text("Error", exact=True).count()


def message(page) -> str:
    box = page.locator("#verify-message")
    box.filter(has_text="⚠️").wait_for(timeout=30_000)
    return box.inner_text().strip()


def upload(page, path) -> None:
    page.locator("#verify-upload input[type=file]").set_input_files(str(path))


def test_saving_an_empty_form_says_what_is_missing_and_the_panel_stays_usable(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    data = write_problems(folder, 3)
    page = browser.new_page()
    open_file(page, launch_app({}))
    page.locator("#verify-save").click()
    assert message(page) == ("⚠️ Not saved. Still needed: your name (reviews are kept per reviewer); a score from 1 "
                             "to 5 for correctness, clarity, difficulty match, completeness; a status (approved, "
                             "rejected or needs revision).")
    page.locator(".toast-body").filter(has_text="Still needed").wait_for(timeout=10_000)
    assert error_badges(page) == 0
    assert "Problem 1 of 3" in page.locator("#verify-where").inner_text()  # the problem is still shown
    assert not verification.verifications_path(data).exists()

    page.locator("#verify-next").click()
    page.locator("#verify-where").filter(has_text="Problem 2 of 3").wait_for(timeout=30_000)
    page.locator("#verify-reviewer").get_by_role("textbox").fill("ana")
    score(page, SCORES)
    page.locator("#verify-status").get_by_text("needs revision", exact=True).click()  # the label; the key is stored
    page.locator("#verify-save").click()
    page.locator("#verify-where").filter(has_text="(needs revision)").wait_for(timeout=30_000)
    page.locator("#verify-message").filter(has_text="Saved gen-0001.").wait_for(timeout=30_000)
    assert error_badges(page) == 0
    assert json.loads(verification.verifications_path(data).read_text())["gen-0001"]["status"] == "needs_revision"


def test_in_chinese_the_message_is_chinese(browser, launch_app, tmp_path):
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    write_problems(folder, 3)
    context = browser.new_context(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    page = context.new_page()
    open_file(page, launch_app({}))
    page.locator("#verify-save").click()
    assert message(page) == ("⚠️ 未保存。还需要：你的名字（审阅按审阅人分别保存）；正确性、清晰度、难度匹配、"
                             "完整性 的评分（1–5）；状态（通过、拒绝或需修改）。")
    assert error_badges(page) == 0
    context.close()


def test_an_upload_never_replaces_a_generated_or_companion_file(browser, launch_app, tmp_path):
    uploads = tmp_path / "data" / "uploads"
    uploads.mkdir(parents=True)
    existing = write_problems(uploads, 3)
    verification.save_review(existing, verification.make_review("gen-0000", SCORES, "approved", "", "ana"))
    verification.save_review(existing, verification.make_review("gen-0001", SCORES, "rejected", "", "ben"))
    before = {p.name: p.read_bytes() for p in uploads.iterdir()}
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    same_name = incoming / existing.name
    same_name.write_text(json.dumps([{"problem_id": "new-0", "problem": "Other", "answer": 1}] * 1))
    companion = incoming / verification.verifications_path(existing).name
    companion.write_text("{}")

    page = browser.new_page()
    open_file(page, launch_app({}))
    upload(page, companion)
    text = message(page)
    assert text == (f"⚠️ {companion.name}: a companion file (reviews, judge, win rate or export), "
                    "not a generated file")
    assert {p.name: p.read_bytes() for p in uploads.iterdir()} == before

    page.reload()
    open_file(page, page.url)
    upload(page, same_name)
    renamed = existing.stem + "-2.json"
    page.locator("#verify-message").filter(has_text=renamed).wait_for(timeout=30_000)
    assert "nothing was replaced" in page.locator("#verify-message").inner_text()
    page.locator("#verify-where").filter(has_text="Problem 1 of 1").wait_for(timeout=30_000)
    assert error_badges(page) == 0
    after = {p.name: p.read_bytes() for p in uploads.iterdir()}
    assert {k: v for k, v in after.items() if k in before} == before
    assert after[renamed] == same_name.read_bytes()
    assert len(json.loads(verification.verifications_path(existing).read_text())) == 2  # both reviews kept


BAD_FILES = {
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01", "a binary file, not JSON text", None),
    "latin-1": ('[{"problem_id": "café"}]'.encode("latin-1"), "not UTF-8 text", None),
    # The Score tab reads JSON lines, whose limit is the decoder's own.
    "nested": (b"[" * 100_000 + b"]" * 100_000, "JSON nested more than 64 levels deep", "nested too deeply"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_upload_is_one_line_naming_the_file_without_a_server_path(browser, launch_app, tmp_path, case):
    content, reason, score_reason = BAD_FILES[case]
    folder = tmp_path / "data" / "runs" / "gen"
    folder.mkdir(parents=True)
    write_problems(folder, 3)
    bad = tmp_path / "broken upload.json"
    bad.write_bytes(content)
    page = browser.new_page()
    open_file(page, launch_app({}))
    upload(page, bad)
    assert message(page) == f"⚠️ broken_upload.json: {reason}"
    toast = page.locator(".toast-body").filter(has_text=reason)
    toast.wait_for(timeout=10_000)
    assert f"broken_upload.json: {reason}" in toast.inner_text() and "/" not in toast.inner_text()
    assert "Problem 1 of 3" in page.locator("#verify-where").inner_text() and error_badges(page) == 0
    assert not (tmp_path / "data" / "uploads").exists() or not any((tmp_path / "data" / "uploads").iterdir())

    # The Score tab checks its uploads the same way.
    bad_lines = tmp_path / "results.jsonl"
    bad_lines.write_bytes(content)
    page.get_by_role("tab", name="Score files").click()
    attach(page, "score-bfcl-file", bad_lines)
    page.locator("#score-bfcl-button").click()
    figures = page.locator("#score-figures")
    figures.filter(has_text=score_reason or reason).wait_for(timeout=30_000)
    text = figures.inner_text().strip()
    assert re.fullmatch(rf"⚠️ results\.jsonl(:1)?: [^\n/]*{score_reason or reason}[^\n/]*", text), text
    assert error_badges(page) == 0
