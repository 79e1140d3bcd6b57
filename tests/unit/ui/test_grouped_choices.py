"""The grouped multiselect (option_inputs.grouped_choices_input): a run's handler gets the single
values a group stands for, and a value set back on the input (a reload's) shows whole groups as one."""

from __future__ import annotations

import gradio as gr

from evalui.benchmarks.bfcl.categories import category_groups
from evalui.benchmarks.bfcl.options import BfclOptions
from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES
from evalui.benchmarks.bfcl.scoring.single_turn import ALL_CATEGORIES, MULTI_TURN_CATEGORIES
from evalui.benchmarks.bfcl.spec import BENCHMARK
from evalui.ui.tabs.option_inputs import option_input


def categories_input():
    with gr.Blocks():
        return option_input(BENCHMARK, "categories", choices=ALL_CATEGORIES, groups=category_groups())


def test_groups_reach_the_run_as_their_categories_and_come_back_as_one_choice():
    box = categories_input()
    values = [value for _, value in box.choices]
    assert values[:6] == ["non_live", "live", "multi_turn", "agentic", "single_turn", "all"]
    assert set(values[6:]) == set(ALL_CATEGORIES)  # then every single category, once

    chosen = box.preprocess(["multi_turn", "simple_java", "multi_turn_base"])
    assert chosen == [*MULTI_TURN_CATEGORIES, "simple_java"]
    assert BfclOptions(categories=chosen).categories == chosen  # what the tab's prepare gets is a valid option
    assert box.preprocess(["all"]) == list(LEADERBOARD_CATEGORIES)

    assert box.postprocess([*MULTI_TURN_CATEGORIES, "simple_java"]) == ["multi_turn", "simple_java"]
    assert box.postprocess(list(LEADERBOARD_CATEGORIES) + ["format_sensitivity"]) == ["all", "format_sensitivity"]
    assert box.postprocess(["simple_python"]) == ["simple_python"]
