"""The texts of the AIME generation and results tabs, in English and Chinese: merged into the
dashboard's one catalog (evalui.ui.i18n.strings.STRINGS), which finds every benchmark package's
``strings.STRINGS``."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "tab.aime": ("AIME generation", "AIME 题目生成"),
    "title.aime-generate": ("generated AIME problems", "生成的 AIME 题目"),  # in the app's title
    "tab.aime_results": ("AIME results", "AIME 评估结果"),
    "aime.intro": ("Generate AIME-style problems with the endpoint above. Each is parsed as JSON (LaTeX intact), "
                   "checked (answer 0–999, no duplicates) and retried when invalid; invalid output is never kept.",
                   "使用上方端点生成 AIME 风格题目。每道题按 JSON 解析（保留 LaTeX），经过校验（答案为 0–999 的整数、"
                   "不重复），无效时重试；无效输出绝不保存。"),
    "aime.start": ("Generate problems", "生成题目"),
    "aime.count": ("Problems", "题目数量"),
    "aime.topics": ("Topics", "主题"),
    "aime.seed": ("Seed", "随机种子"),
    "aime.references": ("Reference examples", "参考样例"),
    # The form's choices: the labels of values the run records (and API callers send) in English.
    "aime.source_auto": ("Hub, else bundled", "优先 Hub，否则用内置样例"),
    "aime.source_hub": ("Hugging Face Hub", "Hugging Face Hub"),
    "aime.source_bundled": ("Bundled sample", "内置样例"),
    "aime.topic.algebra": ("algebra", "代数"),
    "aime.topic.geometry": ("geometry", "几何"),
    "aime.topic.number theory": ("number theory", "数论"),
    "aime.topic.combinatorics": ("combinatorics", "组合"),
    "aime.topic.probability": ("probability", "概率"),
    # the runs' headlines (the Runs table, a run's figures)
    "run_page.headline.generated": ("generated", "已生成"),
    "run_page.headline.pass rate": ("pass rate", "通过率"),
    "run_page.headline.win rate": ("win rate", "胜率"),
    "aime.downloads": ("Generated file and report", "生成文件与报告"),
    "aime.results_intro": ("Pick a generated file, judge it and compare it with real AIME 2025 problems. The judge is "
                           "the model named here (same base URL and key as above), at low temperature.",
                           "选择一个生成文件，用 LLM 评委打分，并与 AIME 2025 真题比较。评委为此处指定的模型"
                           "（使用上方相同的基础 URL 与密钥），低温度运行。"),
    "aime.file": ("Generated file", "生成文件"),
    "aime.judge_model": ("Judge model", "评委模型"),
    "aime.judge_model_hint": ("e.g. gpt-4o", "例如 gpt-4o"),
    "aime.no_problem": ("_No problem yet._", "_还没有题目。_"),
    "aime.real": ("Real AIME 2025 problems", "AIME 2025 真题"),
    "aime.pair_seed": ("Pairing seed", "配对种子"),
    "aime.judge_start": ("Run LLM judge", "运行 LLM 评委"),
    "aime.winrate_start": ("Run win rate", "运行胜率评估"),
    "aime.dimensions": ("Judge dimensions", "评分维度"),
    "aime.distribution": ("Score distribution", "分数分布"),
    "aime.outcomes": ("Win / loss / tie", "胜 / 负 / 平"),
    "aime.chart_winrate": ("Win rate against real AIME problems (both orders agree)",
                           "与 AIME 真题对比的胜率（两种顺序结论一致）"),
    "aime.results_downloads": ("Reports and results", "报告与结果"),
    "aime.review": ("Review these problems in the verification panel", "在人工验证面板中审阅这些题目"),
    "aime.judge_samples": ("Samples of the judge run", "评审运行的样本"),
    "aime.winrate_samples": ("Pairs of the win-rate run", "胜率运行的题目对"),
}
