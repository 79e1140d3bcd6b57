"""The sample viewer's texts in English and Chinese (merged into evalui.ui.i18n.strings.STRINGS): the
words of the rendered list and pane (evalui.viewer.rows, evalui.viewer.transcript), which the viewer's
handlers fill in with say, in the visitor's language."""

from __future__ import annotations

from evalui.viewer.texts import TRANSCRIPT_STRINGS

# The pane's and the cells' words (verdicts, headings, roles) live beside the renderer, which the
# static bundle uses without the dashboard; they are the catalog's like every other text.
VIEWER_STRINGS: dict[str, tuple[str, str]] = {
    **TRANSCRIPT_STRINGS,
    # the list's column headers (keys of evalui.viewer.rows.COLUMNS, and the findings flag)
    "viewer.col.id": ("id", "编号"),
    "viewer.col.group": ("group", "分组"),
    "viewer.col.verdict": ("verdict", "判定"),
    "viewer.col.error_type": ("error type", "错误类型"),
    "viewer.col.latency_s": ("latency", "延迟"),
    "viewer.col.tokens": ("tokens", "token 数"),
    "viewer.col.findings": ("findings", "发现"),
    "viewer.columns": ("Columns", "显示列"),
    "viewer.page": ("page {page} / {pages} · {total} samples", "第 {page} / {pages} 页 · 共 {total} 个样本"),
    "viewer.previous_page": ("Previous page", "上一页"),
    "viewer.next_page": ("Next page", "下一页"),
    "viewer.no_match": ("No sample matches.", "没有匹配的样本。"),
    # the pane's tabs
    "viewer.tab.transcript": ("Transcript", "对话记录"),
    "viewer.tab.json": ("JSON", "JSON"),
    "viewer.copy": ("Copy JSON", "复制 JSON"),
    "viewer.copied": ("Copied", "已复制"),
    "viewer.hits": ("{n} matches of “{query}” in this sample", "本样本中“{query}”共 {n} 处匹配"),
}
