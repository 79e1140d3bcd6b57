"""The run page's texts (the summary header above the viewer and its download menu), in English and
Chinese (merged into evalui.ui.i18n.strings.STRINGS): labels, which Gradio translates, and run-time
lines (access.say)."""

from __future__ import annotations

RUN_PAGE_STRINGS: dict[str, tuple[str, str]] = {
    "run_page.downloads": ("Downloads", "下载"),
    "run_page.downloads_n": ("Downloads ({n} files)", "下载（{n} 个文件）"),
    "run_page.files": ("The run's files", "运行的文件"),
    "run_page.figures": ("Summary", "概要"),
    "run_page.judged": ("{judged}/{total} judged", "已评判 {judged}/{total}"),
    "run_page.valid": ("valid samples {valid}{interval} ({invalid} invalid)", "有效样本 {valid}{interval}（{invalid} 个无效）"),
    "run_page.headline.accuracy": ("accuracy", "准确率"),
    "run_page.leaderboard": ("Leaderboard: the overall score's parts", "排行榜：总分的各部分"),
    "run_page.format_sensitivity": ("Format sensitivity", "格式敏感性"),
}
