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
    "bfcl.samples": ("Samples", "样本"),
    "bfcl.downloads": ("Result files and report", "结果文件与报告"),
    # the overall score on the run's figures card (report.md's overall line, in the visitor's language)
    "bfcl.overall": ("- BFCL v4 overall: **{overall}**", "- BFCL v4 总分：**{overall}**"),
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
