"""BFCL format sensitivity: evalui's configurations, requests, verdicts and figures are bfcl-eval's.

The references are bfcl-eval's own: ``get_all_format_sensitivity_configs`` and ``load_dataset_entry``
for the configurations and entries, its OpenAI chat-completions handler (prompting) for the requests
(support.bfcl_parity), and its ``format_sensitivity_runner`` (the function ``bfcl evaluate``
runs for this category, with bfcl's own prompting handler decoding) for the verdicts and the score
file's header, from which the leaderboard's data_format_sensitivity.csv is written.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path

import pytest

from evalui.benchmarks.bfcl.data import load_category
from evalui.benchmarks.bfcl.scoring.format_sensitivity import CATEGORY, configurations, score, split_id, statistics_of
from support.bfcl_format_oracle import WRONG_KINDS, answer

pytestmark = pytest.mark.unit
MODEL = "gpt-4o-2024-11-20"  # a prompting model registered in bfcl-eval
SAMPLE_STEP = 27  # coprime with 26: the sample walks through every configuration


def _official():
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    from bfcl_eval import utils

    return utils


def _pick(entry_id: str, choices: int) -> int:
    return int(hashlib.sha256(entry_id.encode()).hexdigest()[:8], 16) % choices


def test_the_configurations_and_entries_are_bfcls():
    utils = _official()
    assert configurations() == tuple(utils.get_all_format_sensitivity_configs()) and len(configurations()) == 26
    ours = load_category(CATEGORY)
    official = utils.load_dataset_entry(CATEGORY, include_prereq=False, include_language_specific_hint=False)
    assert [e.id for e in ours] == [e["id"] for e in official] and len(ours) == 200 * 26
    ids = json.loads((Path(utils.PROMPT_PATH) / "BFCL_v4_format_sensitivity.json").read_text())
    assert {split_id(e.id)[1] for e in ours} == {i for chosen in ids.values() for i in chosen}


def test_limit_takes_whole_entries_in_every_configuration():
    from evalui.benchmarks.bfcl.task import sample_specs

    specs = sample_specs([CATEGORY], 2)
    assert len(specs) == 2 * 26
    assert len({split_id(s[0])[1] for s in specs}) == 2 and {split_id(s[0])[0] for s in specs} == set(configurations())


def test_fc_mode_is_refused_with_the_reason():
    from evalui.benchmarks.bfcl.spec import BfclOptions, samples
    from evalui.errors import InputError

    with pytest.raises(InputError, match="prompt format.*--mode prompt"):
        samples(BfclOptions(categories=["simple_python", CATEGORY], mode="fc"))
    assert len(samples(BfclOptions(categories=[CATEGORY], mode="prompt", limit=1))) == 26


def test_requests_equal_bfcls_prompting_handler_on_a_sample():
    """evalui's request for an entry in a configuration is the one bfcl's handler sends (system prompt
    with that return format, tag, function-doc format, prompt format and style)."""
    from support.bfcl_parity import OfficialHandler, OfflineClient, compare_entry

    handler, client = OfficialHandler("prompt"), OfflineClient()
    try:
        ids = [e.id for e in load_category(CATEGORY)][::SAMPLE_STEP]
        problems = [p for entry_id in ids for p in compare_entry(handler, client, CATEGORY, entry_id)]
    finally:
        client.close()
    assert {split_id(i)[0] for i in ids} == set(configurations())
    assert ids and not problems, f"{len(problems)} of {len(ids)} differ:\n" + "\n".join(problems[:10])


def _replies(entries) -> dict[str, str]:
    """Per entry: gold in its configuration's format, or one of the wrong kinds, and a few texts
    that test the edges of bfcl's decoders (arithmetic and bare tuples inside the tag, quotes)."""
    replies = {}
    for entry in entries:
        kind = _pick(entry.id, 6)
        replies[entry.id] = answer(entry, WRONG_KINDS[kind - 3] if kind >= 3 else None)
    config_of = {e.id: split_id(e.id)[0] for e in entries}
    python_tagged = [i for i, c in config_of.items() if c.startswith("ret_fmt=python&tool_call_tag=True")]
    python_plain = [i for i, c in config_of.items() if c.startswith("ret_fmt=python&tool_call_tag=False")]
    edges = ["<TOOLCALL>{}</TOOLCALL>", "Sure. <TOOLCALL>'{}'</TOOLCALL> done", "```\n{}\n```", "<TOOLCALL>[{}</TOOLCALL>"]
    for entry_id, edge in zip(python_tagged + python_plain, edges * 4):
        text = replies[entry_id].removeprefix("<TOOLCALL>").removesuffix("</TOOLCALL>").strip("[]")
        replies[entry_id] = edge.format(text)
    return replies


def official_run(runner, entries, replies: dict[str, str], score_dir: Path) -> tuple[dict, set[str]]:
    """bfcl's ``format_sensitivity_runner`` on these results: (its score file's header, failed ids)."""
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    model_result = [{"id": e.id, "result": replies[e.id]} for e in entries]
    prompt = load_dataset_entry(CATEGORY, include_prereq=False, include_language_specific_hint=False)
    prompt, answers = runner._subset_entries_by_model_ids(model_result, prompt, load_ground_truth_entry(CATEGORY),
                                                          allow_missing=True)
    runner.format_sensitivity_runner(runner.get_handler(MODEL), copy.deepcopy(model_result), prompt, answers, MODEL,
                                     CATEGORY, score_dir)
    lines = [json.loads(line) for line in next(score_dir.rglob(f"BFCL_v4_{CATEGORY}_score.json")).read_text().splitlines()]
    return lines[0], {line["id"] for line in lines[1:]}


def test_verdicts_and_figures_equal_bfcls_format_sensitivity_runner(official_runner, tmp_path):
    entries = [e for e in load_category(CATEGORY)][: 8 * 26]  # 8 entries in all 26 configurations
    replies = _replies(entries)
    header, failed = official_run(official_runner, entries, replies, tmp_path / "score")
    ours = {e.id: score(e.id, e.functions, e.possible_answer, replies[e.id]) for e in entries}
    differing = [(i, v.official_error_type) for i, v in ours.items() if v.correct == (i in failed)]
    assert not differing, differing[:10]
    assert 0 < len(failed) < len(entries)
    # every return format and tag decides some verdicts both ways
    for config in configurations():
        verdicts = {v.correct for i, v in ours.items() if split_id(i)[0] == config}
        assert verdicts == {True, False}, config
    assert statistics_of((i, v.correct) for i, v in ours.items()) == header
    assert header["accuracy_max_delta"] > 0 and header["accuracy_std"] > 0


def test_hostile_text_in_any_python_configuration_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    entry = next(e for e in load_category(CATEGORY)
                 if split_id(e.id)[0].startswith("ret_fmt=python&tool_call_tag=True"))
    evil = f"f(x=__import__('pathlib').Path({str(marker)!r}).touch())"
    texts = [f"<TOOLCALL>{evil}, [1]</TOOLCALL>", f"<TOOLCALL>{evil}</TOOLCALL>", f"<TOOLCALL>'{evil}'</TOOLCALL>",
             f"<TOOLCALL>{{{evil}}}</TOOLCALL>", f"<TOOLCALL>x[0] + {evil}</TOOLCALL>", f"<TOOLCALL>[{evil}]</TOOLCALL>"]
    for text in texts:
        verdict = score(entry.id, entry.functions, entry.possible_answer, text)
        assert not verdict.correct, text
    assert not marker.exists()


def test_arithmetic_inside_the_tag_keeps_the_official_verdict(official_runner, tmp_path):
    entries = [e for e in load_category(CATEGORY)[:10 * 26] if split_id(e.id)[0].startswith("ret_fmt=python")]
    replies = {}
    for entry in entries:  # the first integer argument written as a sum
        replies[entry.id] = re.sub(r"=(\d+)([,)])", lambda m: f"={int(m.group(1)) - 1}+1{m.group(2)}", answer(entry), count=1)
    assert sum("+1" in t for t in replies.values()) > 10
    header, failed = official_run(official_runner, entries, replies, tmp_path / "score")
    assert any("+1" in replies[e.id] and e.id not in failed for e in entries)  # folded sums are accepted
    for entry in entries:
        assert score(entry.id, entry.functions, entry.possible_answer, replies[entry.id]).correct == (
            entry.id not in failed), replies[entry.id]


def test_summary_block_and_chart():
    from evalui.benchmarks.bfcl.format_sensitivity import chart, report_lines, summary_block

    entries = load_category(CATEGORY)[: 2 * 26]
    verdicts = [(e.id, _pick(e.id, 3) > 0) for e in entries]
    block = summary_block(statistics_of(verdicts))
    assert list(block["by_configuration"]) == list(configurations()) and block["balanced"]
    accuracies = [c["accuracy"] for c in block["by_configuration"].values()]
    assert block["spread_pp"] == round((max(accuracies) - min(accuracies)) * 100, 2)
    assert block["by_configuration"][block["best"]]["accuracy"] == max(accuracies)
    figure = chart(block)
    assert len(figure.data[0].y) == 26 and f"spread {block['spread_pp']} pp" in figure.layout.title.text
    assert any("Format sensitivity" in line for line in report_lines(block))
