"""Table headers in English and Chinese (merged into evalui.ui.i18n.strings.STRINGS): the column names
the tables are built with, renamed for a Chinese browser by evalui.ui.columns.localized."""

from __future__ import annotations

COLUMN_STRINGS: dict[str, tuple[str, str]] = {
    "col.id": ("id", "编号"),
    "col.category": ("category", "类别"),
    "col.question": ("question", "问题"),
    "col.prediction": ("prediction", "预测"),
    "col.ground truth": ("ground truth", "标准答案"),
    "col.verdict": ("verdict", "判定"),
    "col.error type": ("error type", "错误类型"),
    "col.detail": ("detail", "详情"),
    "col.latency s": ("latency s", "延迟（秒）"),
    "col.task": ("task", "任务"),
    "col.level": ("level", "级别"),
    "col.file": ("file", "文件"),
    "col.truth": ("truth", "标准答案"),
    "col.exact": ("exact", "精确匹配"),
    "col.lenient": ("lenient", "宽松匹配"),
    "col.steps": ("steps", "步数"),
    "col.error": ("error", "错误"),
    "col.exp_id": ("exp_id", "运行 ID"),
    "col.benchmark": ("benchmark", "基准"),
    "col.model": ("model", "模型"),
    "col.endpoint": ("endpoint", "端点"),
    "col.date": ("date", "日期"),
    "col.status": ("status", "状态"),
    "col.done": ("done", "完成"),
    "col.metric": ("metric", "指标"),
    "col.value": ("value", "数值"),
    "col.tokens": ("tokens", "token 数"),
    "col.duration s": ("duration s", "用时（秒）"),
    "col.valid samples": ("valid samples", "有效样本"),
    "col.sample": ("sample", "样本"),
    "col.group": ("group", "分组"),
    "col.stage": ("stage", "阶段"),
}
