"""The words of two runs' comparison as Markdown (evalui.reports.comparison), in English and Chinese.
They sit beside the report because `evalui compare` writes it without the dashboard; the dashboard's
catalog merges them (evalui.ui.i18n.compare) and passes the visitor's language as ``words``."""

from __future__ import annotations

from collections.abc import Callable

from evalui.stats.paired import INTERVAL_METHOD, TEST_METHOD

Words = Callable[..., str]

COMPARISON_STRINGS: dict[str, tuple[str, str]] = {
    "cmp.worse": ("B is significantly worse", "B 显著更差"),
    "cmp.better": ("B is significantly better", "B 显著更好"),
    "cmp.same": ("no significant difference", "无显著差异"),
    "cmp.headline": ("**{b}** against **{a}** on {n} paired samples: {a_accuracy} → {b_accuracy}, diff {diff} "
                     "(95% CI {ci}), McNemar p = {p}: {verdict}.",
                     "**{b}** 对比 **{a}**，共 {n} 个配对样本：{a_accuracy} → {b_accuracy}，差值 {diff}"
                     "（95% 置信区间 {ci}），McNemar p = {p}：{verdict}。"),
    "cmp.accuracy_ci": (" (95% CI {low}–{high})", "（95% 置信区间 {low}–{high}）"),
    "cmp.points": ("{value} pts", "{value} 个百分点"),
    "cmp.flips": ("Flipped to wrong: {to_wrong} · flipped to correct: {to_correct} · only in A: {only_a} · "
                  "only in B: {only_b}", "变为错误：{to_wrong} · 变为正确：{to_correct} · 仅 A 有：{only_a} · "
                  "仅 B 有：{only_b}"),
    "cmp.valid": ("Valid samples only ({n} pairs, {left_out} left out as invalid): {a_accuracy} → {b_accuracy}, "
                  "diff {diff} (95% CI {ci}), McNemar p = {p}.",
                  "仅有效样本（{n} 对，{left_out} 对因无效而排除）：{a_accuracy} → {b_accuracy}，差值 {diff}"
                  "（95% 置信区间 {ci}），McNemar p = {p}。"),
    "cmp.table": ("| group | n | A | B | diff | 95% CI | → wrong | → correct | McNemar p |",
                  "| 分组 | 样本数 | A | B | 差值 | 95% 置信区间 | → 错误 | → 正确 | McNemar p |"),
    "cmp.methods": ("_Interval: {interval}; test: {test}._", "_区间：{interval}；检验：{test}。_"),
    # the figures corrected by the reviews, first when both runs have reviews
    "cmp.not_corrected": ("_Not corrected by reviews: {reason}._", "_未经审阅校正：{reason}。_"),
    "cmp.no_reviews": ("no reviewed items in {sides}: the judge's own figures are compared",
                       "{sides} 没有已审阅的条目：比较的是评委自己的指标"),
    "cmp.or": (" or ", " 或 "),
    "cmp.no_figure": ("no figure on both sides", "两边没有共同的指标"),
    "cmp.corrected": ("**Corrected by the reviews** ({a} reviewed in A, {b} in B; these are the figures to read):",
                      "**经审阅校正**（A 中已审阅 {a} 条，B 中 {b} 条；请以这些指标为准）："),
    "cmp.corrected_table": ("| figure | A | B | diff | 95% CI | |", "| 指标 | A | B | 差值 | 95% 置信区间 | |"),
    "cmp.figure.pass_rate": ("pass rate", "通过率"),
    "cmp.figure.mean_score": ("mean score", "平均分"),
    "cmp.figure.win_rate": ("win rate", "胜率"),
    "cmp.estimate.naive": ("judge only", "仅评委"),
    "cmp.estimate.human_only": ("reviewers only", "仅审阅者"),
    "cmp.estimate.corrected": ("corrected", "校正后"),
    "cmp.significant": ("significant", "显著"),
    "cmp.not_significant": ("not significant", "不显著"),
    "cmp.judge_figures": ("The judge's own figures, paired by sample id:", "评委自己的指标，按样本 ID 配对："),
    # the methods the statistics name (evalui.stats.paired), as a reader reads them
    "cmp.method.interval": (INTERVAL_METHOD, "Newcombe 配对 Wilson 区间（Newcombe 1998，方法 10）"),
    "cmp.method.test": (TEST_METHOD, "精确双侧 McNemar 检验（对翻转样本做二项检验，p = 1/2）"),
}
METHODS = {INTERVAL_METHOD: "cmp.method.interval", TEST_METHOD: "cmp.method.test"}


def english(key: str, **fields) -> str:
    """The English text of ``key``: the report as `evalui compare` writes it."""
    return COMPARISON_STRINGS[key][0].format(**fields)


def named(words: Words, prefix: str, name: str) -> str:
    """The label of a stored name (a figure, an estimate), else the name with spaces for underscores."""
    try:
        return words(f"{prefix}.{name}")
    except KeyError:
        return name.replace("_", " ")


def method(words: Words, name: str) -> str:
    """A method the record names, in ``words`` when it is one of the statistics' own, else as named."""
    return words(METHODS[name]) if name in METHODS else name
