"""The GAIA tab's texts and the Score tab's for GAIA submissions, in English and Chinese: merged
into the dashboard's one catalog (evalui.ui.i18n.strings.STRINGS), which finds every benchmark
package's ``strings.STRINGS``."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "tab.gaia": ("GAIA", "GAIA"),
    "title.gaia": ("GAIA", "GAIA"),  # in the app's title
    "gaia.start": ("Start GAIA run", "开始 GAIA 评估"),
    "gaia.source": ("Source", "数据来源"),
    # The form's choices: the labels of values the run records (and API callers send) in English.
    "gaia.source_sample": ("Bundled sample", "内置样例"),
    "gaia.source_hub": ("Hugging Face (gated)", "Hugging Face（受限访问）"),
    "gaia.source_folder": ("Local folder", "本地文件夹"),
    "gaia.source_upload": ("Uploaded JSON file", "上传的 JSON 文件"),
    "gaia.split_validation": ("validation", "验证集"),
    "gaia.split_test": ("test", "测试集"),
    "gaia.level_all": ("All", "全部"),
    "gaia.solver_endpoint": ("The endpoint above", "上方的端点"),
    "gaia.tool_files": ("files", "文件"),
    "run_page.headline.unscored": ("unscored", "未评分"),
    "gaia.split": ("Split", "数据划分"),
    "gaia.level": ("Level", "难度级别"),
    "gaia.token_present": ("HF_TOKEN is set on the server.", "服务器已设置 HF_TOKEN。"),
    "gaia.token_missing": ("HF_TOKEN is not set: the gated dataset cannot be fetched.",
                           "未设置 HF_TOKEN：无法下载受限数据集。"),
    "gaia.folder": ("Local folder (GAIA layout, inside the data folder)", "本地文件夹（GAIA 目录结构，须位于数据目录内）"),
    "gaia.upload": ("Questions (JSON array)", "问题文件（JSON 数组）"),
    "gaia.solver": ("Answered by", "作答者"),
    "gaia.solver_info": ("agents are listed by the server's EVALUI_AGENTS", "可选智能体由服务器的 EVALUI_AGENTS 指定"),
    "gaia.limit": ("Limit (0 = all)", "数量上限（0 = 全部）"),
    "gaia.by_level": ("Accuracy per level", "各级别准确率"),
    "gaia.latency": ("Latency", "延迟"),
    "gaia.chart_level": ("Exact match per level (95% CI)", "各级别精确匹配率（95% 置信区间）"),
    "gaia.chart_level_so_far": ("Exact match per level so far (95% CI)", "目前各级别精确匹配率（95% 置信区间）"),
    "gaia.chart_latency": ("Latency per task", "每个任务的延迟"),
    "gaia.chart_seconds": ("seconds", "秒"),
    "gaia.chart_count": ("count", "任务数"),
    "gaia.tasks": ("Tasks", "任务"),
    "gaia.downloads": ("Submission, guide and report", "提交文件、提交指南与报告"),
    "gaia.tools": ("Agent tools (none: one plain request per task)", "智能体工具（不选：每个任务一次普通请求）"),
    "gaia.tools_info": ("python runs in a sandbox; web needs the server's EVALUI_WEB_BACKEND",
                        "python 在沙箱中运行；web 需要服务器设置 EVALUI_WEB_BACKEND"),
    "gaia.tool_timeout": ("Seconds per program", "每个程序的秒数上限"),
    "gaia.max_steps": ("Max steps per task", "每个任务的最大步数"),
    "gaia.transcript": ("Transcript of a task", "任务执行记录"),
    "gaia.transcript_task": ("Task", "任务"),
    "msg.no_tasks": ("The selection has no GAIA tasks.", "所选范围内没有 GAIA 任务。"),
    "score.gaia_intro": ('### GAIA submission\nJSON lines `{"task_id", "model_answer"}` and GAIA\'s metadata.',
                         '### GAIA 提交文件\nJSONL 格式 `{"task_id", "model_answer"}`，以及 GAIA 的元数据。'),
    "score.gaia_button": ("Score GAIA submission", "为 GAIA 提交评分"),
    "score.gaia_figures": ("| figure | value |\n|---|---|\n| correct (exact match) | {correct} of {total} |\n"
                           "| accuracy | {accuracy} |\n| lenient accuracy (partial, not the score) | {lenient} |\n"
                           "| tasks not in the submission | {missing} |",
                           "| 指标 | 数值 |\n|---|---|\n| 正确（精确匹配） | {correct} / {total} |\n"
                           "| 准确率 | {accuracy} |\n| 宽松准确率（仅供参考，不是得分） | {lenient} |\n"
                           "| 提交中缺少的任务 | {missing} |"),
    "score.gaia_level": ("| level {level} | {correct} of {total} · {accuracy} |",
                         "| 级别 {level} | {correct} / {total} · {accuracy} |"),
}
