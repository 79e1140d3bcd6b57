"""The BFCL tab's texts and the Score tab's for BFCL result files, in English and Chinese: merged
into the dashboard's one catalog (evalui.ui.i18n.strings.STRINGS), which finds every benchmark
package's ``strings.STRINGS``."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "tab.bfcl": ("BFCL", "BFCL"),
    "title.bfcl": ("BFCL function calling", "BFCL 函数调用"),  # in the app's title
    "bfcl.start": ("Start BFCL run", "开始 BFCL 评估"),
    "bfcl.categories": ("Categories", "类别"),
    # The category groups (evalui.benchmarks.bfcl.categories), first in the categories' list.
    "bfcl.group_non_live": ("All non-live", "全部非实时类别"),
    "bfcl.group_live": ("All live", "全部实时类别"),
    "bfcl.group_multi_turn": ("All multi-turn", "全部多轮"),
    "bfcl.group_agentic": ("All agentic (memory, web search)", "全部智能体（记忆、网络搜索）"),
    "bfcl.group_single_turn": ("All single-turn", "全部单轮"),
    "bfcl.group_all": ("Full BFCL v4 (every leaderboard category)", "完整 BFCL v4（全部排行榜类别）"),
    "bfcl.limit": ("Limit per category (0 = all)", "每类样本上限（0 = 全部）"),
    "bfcl.mode": ("Mode", "模式"),
    "bfcl.mode_info": ("fc: native tool calls · prompt: [func(param=value)] text",
                       "fc：原生工具调用 · prompt：以文本输出 [func(param=value)]"),
    "bfcl.accuracy": ("Accuracy per category", "各类别准确率"),
    "bfcl.errors": ("Error types", "错误类型"),
    "bfcl.chart_accuracy": ("Accuracy per category (95% CI)", "各类别准确率（95% 置信区间）"),
    "bfcl.chart_accuracy_so_far": ("Accuracy per category so far (95% CI)", "目前各类别准确率（95% 置信区间）"),
    "bfcl.samples": ("Samples", "样本"),
    "bfcl.downloads": ("Result files and report", "结果文件与报告"),
    # the overall score on the run's figures card (report.md's overall line, in the visitor's language)
    "bfcl.overall": ("- BFCL v4 overall: **{overall}**", "- BFCL v4 总分：**{overall}**"),
    # The leaderboard card: report.md's leaderboard section (which stays English), a line per part.
    "bfcl.board_overall": ("- Overall (weighted as the leaderboard: non-live 10 %, live 10 %, irrelevance 10 %, "
                           "multi-turn 30 %, agentic 40 %): **{overall}**",
                           "- 总分（按排行榜加权：非实时 10 %、实时 10 %、无关检测 10 %、多轮 30 %、智能体 40 %）：**{overall}**"),
    "bfcl.board_parts_run": ("- Parts run: {parts}", "- 已运行的部分：{parts}"),
    "bfcl.board_none": ("none", "无"),
    "bfcl.board_list": (", ", "、"),  # between the parts' names
    "bfcl.board_partial": ("> **Warning: partial overall score.** Categories that were not run count as 0, as on the "
                           "leaderboard{detail}. Run `--category all` for the leaderboard's figure.",
                           "> **警告：总分只是部分结果。** 与排行榜一样，未运行的类别按 0 计{detail}。"
                           "运行 `--category all` 才能得到排行榜上的分数。"),
    "bfcl.board_not_run": ("; not run at all: {missing}", "；完全未运行：{missing}"),
    "bfcl.board_run_in_part": ("; some parts were run only in part", "；部分类别只运行了一部分"),
    "bfcl.board_subset": ("> Some categories were run on part of their entries (`--limit`): their accuracies are "
                          "those of the entries run, as `bfcl evaluate --partial-eval` computes them.",
                          "> 部分类别只运行了其中一部分条目（`--limit`）：其准确率按已运行的条目计算，"
                          "与 `bfcl evaluate --partial-eval` 的算法一致。"),
    "bfcl.board_csv": ("The leaderboard's CSVs (data_overall.csv and its sections) are written beside this report by "
                       "bfcl-eval's own writer; a category not run shows as N/A there.",
                       "排行榜的 CSV 文件（data_overall.csv 及其各部分）由 `bfcl-eval` 自带的写入程序写在本报告旁；"
                       "未运行的类别在其中显示为 N/A。"),
    "bfcl.board_part": ("- {name}: **{accuracy}**{weight} · {total} samples", "- {name}：**{accuracy}**{weight} · {total} 个样本"),
    "bfcl.board_weight": (" · weight {weight} %", " · 权重 {weight} %"),
    "bfcl.board_part_partial": (" · partial", " · 部分"),
    "bfcl.part.non_live": ("non-live (AST)", "非实时（AST）"),
    "bfcl.part.live": ("live (AST)", "实时（AST）"),
    "bfcl.part.irrelevance": ("irrelevance", "无关检测"),
    "bfcl.part.multi_turn": ("multi-turn", "多轮"),
    "bfcl.part.agentic": ("agentic (memory and web search)", "智能体（记忆与网络搜索）"),
    "bfcl.part.non_live_simple": ("non-live simple", "非实时简单调用"),
    "bfcl.part.relevance": ("relevance (not weighted)", "相关性检测（不计权重）"),
    "bfcl.part.web_search": ("web search", "网络搜索"),
    "bfcl.part.memory": ("memory", "记忆"),
    "bfcl.overall_partial": (" (partial: categories not run count as 0, see Leaderboard)",
                             "（部分结果：未运行的类别按 0 计，详见排行榜）"),
    "bfcl.turns_sample": ("Multi-turn sample, turn by turn", "多轮样本逐轮查看"),
    "bfcl.turns_hint": ("click a row of the table, or type a sample id (multi_turn_base_0)",
                        "点击表格中的一行，或输入样本 ID（multi_turn_base_0）"),
    "bfcl.turns_show": ("Show turns", "查看各轮"),
    "score.bfcl_intro": ('### BFCL result file\nJSON lines `{"id", "result"}`, as `bfcl generate` writes them.',
                         '### BFCL 结果文件\nJSONL 格式 `{"id", "result"}`，与 `bfcl generate` 的输出一致。'),
    "score.bfcl_button": ("Score BFCL file", "为 BFCL 文件评分"),
    "score.bfcl_figures": ("| figure | value |\n|---|---|\n| category | {category} |\n| correct | {correct} of {total} |\n"
                           "| accuracy | {accuracy} |\n| ids of the category not in the file | {missing} |",
                           "| 指标 | 数值 |\n|---|---|\n| 类别 | {category} |\n| 正确 | {correct} / {total} |\n"
                           "| 准确率 | {accuracy} |\n| 文件中缺少的该类别 ID | {missing} |"),
}
