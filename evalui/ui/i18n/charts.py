"""The words the charts draw themselves (evalui.reports.charts.CHART_WORDS: axis names, legends,
slices, hovers), in English and Chinese: the charts' layer knows no language, so the dashboard
gives them its visitor's."""

from __future__ import annotations

CHART_STRINGS: dict[str, tuple[str, str]] = {
    "chart.count": ("count", "数量"),
    "chart.judge_dimensions": ("LLM judge: average score per dimension", "LLM 评委：各维度平均分"),
    "chart.score_distribution": ("Distribution of average judge scores", "评委平均分的分布"),
    "chart.average_score": ("average score", "平均分"),
    "chart.problems": ("problems", "题目数"),
    "chart.generated_better": ("generated better", "生成题更好"),
    "chart.real_better": ("real better", "真题更好"),
    "chart.tie": ("tie", "平局"),
    "chart.run_cost": ("cost of the run (USD)", "运行费用（美元）"),
    "chart.accuracy": ("accuracy", "准确率"),
    "chart.runs": ("runs", "运行"),
    "chart.pareto_frontier": ("Pareto frontier", "帕累托前沿"),
    "chart.cost": ("cost", "费用"),
    "chart.groups_compared": ("Accuracy per category or level", "各类别或级别的准确率"),
    "chart.headline_by_tokens": ("Headline figure against tokens", "主要指标与 token 数"),
    "chart.tokens": ("tokens", "token 数"),
    "chart.accuracy_or_rate": ("accuracy / rate", "准确率 / 比率"),
}
