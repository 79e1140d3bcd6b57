"""The texts of two runs side by side (the Runs tab's A/B view), in English and Chinese (merged into
evalui.ui.i18n.strings.STRINGS): its labels, which Gradio translates, and the words of the rendered
comparison (evalui.viewer.pair_render), which the handlers fill in with access.say."""

from __future__ import annotations

from evalui.reports.texts import COMPARISON_STRINGS

# The comparison's Markdown (evalui.reports.comparison) keeps its words beside it, for `evalui compare`.
COMPARE_STRINGS: dict[str, tuple[str, str]] = {
    **COMPARISON_STRINGS,
    # controls
    "pair.differ_only": ("Differences only (verdicts or answers differ)", "仅显示差异（判定或答案不同）"),
    # buckets: a title and the number of samples in it
    "pair.bucket.all": ("every paired sample: {n}", "全部配对样本：{n}"),
    "pair.bucket.fixed": ("fixed (A wrong → B right): {n}", "修复（A 错 → B 对）：{n}"),
    "pair.bucket.broken": ("broken (A right → B wrong): {n}", "退化（A 对 → B 错）：{n}"),
    "pair.bucket.both_wrong": ("both wrong: {n}", "均错误：{n}"),
    "pair.bucket.both_right": ("both right: {n}", "均正确：{n}"),
    # the same, before a comparison counts them
    "pair.title.all": ("every paired sample", "全部配对样本"),
    "pair.title.fixed": ("fixed (A wrong → B right)", "修复（A 错 → B 对）"),
    "pair.title.broken": ("broken (A right → B wrong)", "退化（A 对 → B 错）"),
    "pair.title.both_wrong": ("both wrong", "均错误"),
    "pair.title.both_right": ("both right", "均正确"),
    "pair.no_bucket": ("No bucket named {name}: one of {names}.", "没有名为 {name} 的分组：可选 {names}。"),
    # the comparison of one sample
    "pair.run_a": ("A: {run}", "A：{run}"),
    "pair.run_b": ("B: {run}", "B：{run}"),
    "pair.field": ("Field", "项目"),
    "pair.verdict": ("Verdict", "判定"),
    "pair.error_type": ("Error type", "错误类型"),
    "pair.answer": ("Answer", "答案"),
    "pair.gold": ("Gold answer", "标准答案"),
    "pair.latency": ("Latency", "延迟"),
    "pair.tokens": ("Tokens (prompt + completion)", "Token（提示 + 生成）"),
    # verdict words, as the pills and the sample list show them
    "pair.v.correct": ("correct", "正确"),
    "pair.v.wrong": ("wrong", "错误"),
    "pair.v.error": ("error", "出错"),
    "pair.v.unscored": ("unscored", "未评分"),
    "pair.v.pending": ("pending", "待运行"),
    "pair.no_answer": ("(none)", "（无）"),
    "pair.no_gold": ("(not known to this run)", "（本次运行未知）"),
    "pair.missing": ("(not in this run)", "（不在此运行中）"),
    "pair.seconds": ("{value} s", "{value} 秒"),
    "pair.calls_title": ("Tool calls, aligned", "工具调用（对齐）"),
    "pair.calls_none": ("Neither run called a tool.", "两次运行都没有调用工具。"),
    "pair.calls_summary": ("{n} aligned call(s), {differing} differing.", "共 {n} 个对齐的调用，其中 {differing} 个不同。"),
    "pair.run_column": ("run {side}", "运行 {side}"),
    "pair.mark.same": ("=", "="),
    "pair.mark.changed": ("≠", "≠"),
    "pair.mark.only_a": ("only in A", "仅 A 有"),
    "pair.mark.only_b": ("only in B", "仅 B 有"),
    "pair.transcripts": ("Transcripts", "对话记录"),
}
