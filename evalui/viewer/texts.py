"""The words of a rendered transcript pane and the list's cells, in English and Chinese. They sit in the
viewer's layer because the static bundle (``evalui view``, from the CLI) renders panes without the
dashboard; the dashboard's catalog merges them (evalui.ui.i18n.viewer), and its handlers pass the
visitor's language as ``words`` (the catalog's ``say``). ``english`` is the bundle's."""

from __future__ import annotations

from collections.abc import Callable

Words = Callable[..., str]

TRANSCRIPT_STRINGS: dict[str, tuple[str, str]] = {
    # verdict words: the list's cells, the pane's pill and the verdict filter
    "viewer.verdict.correct": ("correct", "正确"),
    "viewer.verdict.wrong": ("wrong", "错误"),
    "viewer.verdict.error": ("error", "出错"),
    "viewer.verdict.unscored": ("unscored", "未评分"),
    "viewer.verdict.pending": ("pending", "待运行"),
    # the filters' own choices
    "viewer.filter.all": ("all", "全部"),
    "viewer.filter.any_invalid": ("any invalid", "任一无效"),
    # the pane's head line
    "viewer.head": ("{prompt} + {completion} tokens · {attempts} attempt(s) · {steps} step(s)",
                    "{prompt} + {completion} token · 尝试 {attempts} 次 · {steps} 步"),
    # the score section
    "viewer.score": ("score", "得分"),
    "viewer.scorer": ("scorer", "评分器"),
    "viewer.error_type": ("error type", "错误类型"),
    "viewer.explanation": ("Explanation", "说明"),
    "viewer.final_answer": ("Final answer", "最终答案"),
    "viewer.gold_answer": ("Gold answer", "标准答案"),
    "viewer.no_answer": ("(none)", "（无）"),
    "viewer.no_gold": ("(not known to this run)", "（本次运行未知）"),
    "viewer.checker": ("Checker's record", "判分记录"),
    # what a benchmark shows of a verdict beyond its explanation (evalui.core.benchmark.VerdictView)
    "viewer.turn": ("turn {n}", "第 {n} 轮"),
    "viewer.state_differs": ("State after turn {turn} differs from the gold's:", "第 {turn} 轮后的状态与标准答案不同："),
    "viewer.state.attribute": ("attribute", "属性"),
    "viewer.state.model": ("model's value", "模型的值"),
    "viewer.state.gold": ("gold's value", "标准答案的值"),
    # the conversation
    "viewer.transcript": ("Transcript", "对话记录"),
    "viewer.no_conversation": ("No conversation stored.", "没有保存对话。"),
    "viewer.role.system": ("System", "系统"),
    "viewer.role.user": ("User", "用户"),
    "viewer.role.assistant": ("Assistant", "助手"),
    "viewer.role.tool": ("Tool", "工具"),
    "viewer.call": ("call", "调用"),
    "viewer.result": ("result", "结果"),
    "viewer.result_of": ("result of {name}", "{name} 的结果"),
    "viewer.result_error": ("error: {error}", "错误：{error}"),
    "viewer.empty": ("(empty)", "（空）"),
    "viewer.system_prompt": ("system prompt ({n} characters)", "系统提示（{n} 个字符）"),
    "viewer.function_docs": ("Function docs ({n})", "函数说明（{n} 个）"),
    "viewer.step": ("step {n}: {prompt} + {completion} tokens · {seconds} s · {attempts} attempt(s)",
                    "第 {n} 步：{prompt} + {completion} token · {seconds} 秒 · 尝试 {attempts} 次"),
    "viewer.stopped": ("stopped: {reason}", "已停止：{reason}"),
    "viewer.not_accepted": ("not accepted: {note}", "未采纳：{note}"),
    # the validity scanners' findings
    "viewer.findings": ("Findings", "发现"),
    "viewer.findings_none": ("No scanner found anything.", "扫描器没有发现任何问题。"),
    "viewer.finding.scanner": ("scanner", "扫描器"),
    "viewer.finding.severity": ("severity", "严重程度"),
    "viewer.finding.step": ("step", "步骤"),
    "viewer.finding.message": ("message", "信息"),
    "viewer.finding.label": ("label", "标注"),
    "viewer.severity.invalid": ("invalid", "无效"),
    "viewer.severity.warning": ("warning", "警告"),
    "viewer.severity.info": ("info", "提示"),
    "viewer.label.confirmed": ("confirmed", "确认属实"),
    "viewer.label.false_alarm": ("false alarm", "误报"),
}


def english(key: str, **fields) -> str:
    """The English text of ``key``: the words of a pane rendered outside a visitor's request."""
    return TRANSCRIPT_STRINGS[key][0].format(**fields)


def word_or_key(words: Words, prefix: str, key: str) -> str:
    """The label of a stored ``key`` (a verdict, a severity) when the catalog has one, else the key."""
    try:
        return words(f"{prefix}.{key}")
    except KeyError:
        return key
