"""Every piece of UI text, in English and Chinese. The page follows the browser's language.

Messages built at run time (progress lines, errors naming a file) stay in English.
"""

from __future__ import annotations

import functools

import gradio as gr

from evalui.core import registry
from evalui.reports.charts import CHART_WORDS
from evalui.ui.i18n.benchmarks import benchmark_strings
from evalui.ui.i18n.calibration import CALIBRATION_STRINGS
from evalui.ui.i18n.charts import CHART_STRINGS
from evalui.ui.i18n.columns import COLUMN_STRINGS
from evalui.ui.i18n.compare import COMPARE_STRINGS
from evalui.ui.i18n.launcher import LAUNCHER_STRINGS
from evalui.ui.i18n.run_page import RUN_PAGE_STRINGS
from evalui.ui.i18n.verify import VERIFY_STRINGS
from evalui.ui.i18n.viewer import VIEWER_STRINGS
from evalui.ui.request import language

_GENERAL: dict[str, tuple[str, str]] = {
    # Gradio's screen-reader status line: Gradio 6.31 translates the first in no language and the
    # second not into Chinese.
    "common.complete": ("complete", "完成"),
    "status.queue_position": ("In queue: {position} of {size}", "排队中：第 {position} 位，共 {size} 位"),
    "tab.verify": ("Verification", "人工验证"),
    # a generated problem as the AIME tabs and the verification panel show it
    "problem.answer": ("Answer:", "答案："),
    "problem.solution": ("Solution", "解答"),
    "tab.runs": ("Runs", "运行记录"),
    "tab.score": ("Score files", "评分文件"),
    # endpoint panel
    "endpoint.title": ("Endpoint (any OpenAI-compatible server)", "模型端点（任意 OpenAI 兼容服务）"),
    "endpoint.base_url": ("Base URL", "基础 URL"),
    "endpoint.model": ("Model", "模型"),
    "endpoint.model_hint": ("gpt-4o-mini, Qwen/Qwen3-8B, llama3.1 …", "gpt-4o-mini、Qwen/Qwen3-8B、llama3.1 …"),
    "endpoint.key": ("API key", "API 密钥"),
    "endpoint.key_server": ("empty: use the server's own key (for the server's own endpoint)",
                            "留空：使用服务器自带的密钥（仅限服务器自己的端点）"),
    "endpoint.key_none": ("no key in the server environment", "服务器环境中没有密钥"),
    "endpoint.base_url_server": ("empty: the server's own endpoint", "留空：使用服务器自己的端点"),
    "endpoint.temperature": ("Temperature", "温度"),
    "endpoint.max_tokens": ("Max tokens", "最大 token 数"),
    "endpoint.timeout": ("Timeout per request (s)", "单次请求超时（秒）"),
    "local.start": ("Use the offline local model", "使用离线本地模型"),
    "local.stop": ("Stop it", "停止"),
    "local.notice": ("Gemma 3 270M is a tiny local base model, here to try the pipeline offline. Its scores are not "
                     "meaningful.", "Gemma 3 270M 是一个很小的本地基础模型，仅用于离线试用整个流程，其分数没有参考意义。"),
    "local.missing": ("Offline local model: not installed (`pip install 'evalui[local]'`).",
                      "离线本地模型：未安装（`pip install 'evalui[local]'`）。"),
    "endpoint.test": ("Test connection", "测试连接"),
    "msg.endpoint_ok": ("✅ OK: {host} answered in {seconds} s", "✅ 正常：{host} 在 {seconds} 秒内应答"),
    "msg.endpoint_rate_limited": (" (rate limited just now: the run will back off)", "（刚才被限流：运行时会自动退避）"),
    "msg.endpoint_failed": ("The endpoint check failed: {reason}", "端点检查失败：{reason}"),
    "msg.url_refused": ("The base URL is refused: {reason}", "基础 URL 被拒绝：{reason}"),
    "msg.need_base_url": ("Set the endpoint's base URL first.", "请先设置端点的基础 URL。"),
    "msg.need_model": ("Set the model name first.", "请先设置模型名称。"),
    "msg.local_running": ("**Local model running at {url}.** {notice}", "**本地模型已在 {url} 运行。** {notice}"),
    "msg.local_stopped": ("Local model stopped.", "本地模型已停止。"),
    "preflight.refused": ("connection refused by {host}: is the server running, and is the port right? ({url})",
                          "{host} 拒绝连接：服务是否在运行？端口是否正确？（{url}）"),
    "preflight.unresolved": ("the host {host} cannot be resolved ({url})", "无法解析主机 {host}（{url}）"),
    "preflight.connect": ("cannot connect to {host} ({url})", "无法连接到 {host}（{url}）"),
    "preflight.timeout": ("{host} did not answer within {seconds} s ({url})", "{host} 在 {seconds} 秒内没有应答（{url}）"),
    "preflight.redirect": ("{url} redirects (HTTP {status}) to {target}; give the final address as the base URL",
                           "{url} 重定向（HTTP {status}）到 {target}；请把最终地址填为基础 URL"),
    "preflight.unauthorized": ("HTTP 401 from {host}: missing or wrong API key", "{host} 返回 HTTP 401：API 密钥缺失或错误"),
    "preflight.forbidden": ("HTTP 403 from {host}: the key may not use this endpoint or model",
                            "{host} 返回 HTTP 403：该密钥无权使用此端点或模型"),
    "preflight.model": ("model {model} not found or refused by {host} (HTTP {status})",
                        "{host} 上找不到模型 {model}，或拒绝使用该模型（HTTP {status}）"),
    "preflight.not_found": ("HTTP 404 at {url}: is the base URL right? (it often ends in /v1)",
                            "{url} 返回 HTTP 404：基础 URL 是否正确？（通常以 /v1 结尾）"),
    "preflight.http": ("HTTP {status} from {host}", "{host} 返回 HTTP {status}"),
    "preflight.not_openai": ("{host} answered, but not with an OpenAI-compatible chat completion ({url})",
                             "{host} 有应答，但不是 OpenAI 兼容的对话补全响应（{url}）"),
    # shared launcher controls
    "run.cancel": ("Cancel", "取消"),
    "run.none": ("No run selected.", "未选择运行。"),
    "run.log": ("Log", "日志"),
    "run.stored": ("Stored runs", "已保存的运行"),
    "run.refresh": ("Refresh", "刷新"),
    "run.id": ("Run id (optional)", "运行 ID（可选）"),
    "run.id_hint": ("empty: a new run · an existing id resumes it", "留空：新建运行 · 填写已有 ID：继续该运行"),
    "run.concurrency": ("Concurrency", "并发数"),
    "run.epochs": ("Epochs", "重复轮数"),
    "run.epochs_info": ("Ask each sample this many times (a resumed run keeps its own)",
                        "每个样本提问的次数（续跑时沿用原设置）"),
    "state.running": ("running", "运行中"),
    "state.cancelling": ("cancelling", "正在取消"),
    "state.cancelled": ("cancelled", "已取消"),
    "state.finished": ("finished", "已完成"),
    "state.incomplete": ("incomplete", "未完成"),
    "state.interrupted": ("interrupted", "已中断"),
    "state.failed": ("failed", "失败"),
    "state.created": ("created", "已创建"),
    "state.budget_spent": ("stopped: budget spent", "已停止：预算用尽"),
    "run.max_cost": ("Max cost (USD)", "费用上限（美元）"),
    "run.max_cost_info": ("Stop once the run has cost this much; 0: no limit (a resumed run keeps its own)",
                          "运行费用达到此值即停止；0：不设上限（续跑时沿用原设置）"),
    "msg.in_flight": ("{count} in flight: {names}", "{count} 个请求进行中：{names}"),
    "msg.in_flight_count": ("{count} in flight", "{count} 个请求进行中"),
    "msg.request": ("{sample} ({seconds} s)", "{sample}（{seconds} 秒）"),
    "msg.request_retry": ("{sample} ({seconds} s, try {attempt}/{tries})", "{sample}（{seconds} 秒，第 {attempt}/{tries} 次尝试）"),
    "msg.request_waiting": ("{sample} ({seconds} s, waiting for the endpoint)", "{sample}（{seconds} 秒，等待端点）"),
    "msg.paused": ("⏸ paused: the endpoint at {host} does not answer (since {since}); probing every {every} s",
                   "⏸ 已暂停：{host} 的端点没有应答（自 {since} 起）；每 {every} 秒探测一次"),
    "msg.last_error": ("last error: {error}", "最近的错误：{error}"),
    "msg.progress_paused": ("paused: endpoint down", "已暂停：端点无应答"),
    "msg.cost_live": ("${spent} spent", "已花费 ${spent}"),
    "msg.cost_estimate": ("about ${estimate} for the whole run", "整个运行约 ${estimate}"),
    "msg.cost": (" · cost ${usd} (${per_correct} per correct answer)", " · 费用 ${usd}（每个正确答案 ${per_correct}）"),
    "msg.unpriced": (" · cost: unpriced (no price given, and none in the price table)",
                     " · 费用：无价格（未给出价格，价格表中也没有）"),
    "msg.budget": (" · budget ${budget}", " · 预算 ${budget}"),
    "runs.pareto": ("Accuracy against cost", "准确率与费用"),
    "runs.pareto_benchmark": ("Benchmark", "基准"),
    "runs.pareto_note": ("Finished runs of **{benchmark}** with a known price: {shown} shown, {unpriced} without a price "
                         "(left off the chart: an unpriced run has no cost to place it at, and is not free). "
                         "Error bars: 95% intervals. The line joins the runs no other run beats on both cost and "
                         "accuracy (the Pareto frontier), numbered on the chart: {front}. Point at any run for its "
                         "name, model, cost and accuracy.",
                         "**{benchmark}** 中价格已知的已完成运行：显示 {shown} 个，{unpriced} 个没有价格"
                         "（不在图中：没有价格的运行无法按费用定位，也不等于免费）。误差线：95% 区间。"
                         "折线连接在费用和准确率上都不被其他运行超越的运行（帕累托前沿），图中以编号标出：{front}。"
                         "将鼠标指向任一运行可查看其名称、模型、费用和准确率。"),
    "word.correct": ("correct", "正确"),
    "word.valid": ("valid", "有效"),
    "word.pass": ("pass (≥ 3.5)", "通过（≥ 3.5）"),
    "word.wins": ("wins", "胜"),
    "msg.status": ("**{exp_id}** · {status} · {judged}/{total} done · {outcome} · {errors} errors · {tokens} tokens",
                   "**{exp_id}** · {status} · 已完成 {judged}/{total} · {outcome} · 错误 {errors} · token {tokens}"),
    "msg.rejected": (" · {n} rejected (invalid, or too close to a real or an earlier problem, after every retry)",
                     " · {n} 个被拒绝（重试后仍无效，或与真题、已生成题目过于相似）"),
    "msg.outcome": ("{count} {word} ({share})", "{word} {count}（{share}）"),
    "msg.epochs": (" · {epochs} epochs: mean {mean} ± {stderr} (standard error) · {passes}",
                   " · {epochs} 轮：平均 {mean} ± {stderr}（标准误）· {passes}"),
    "msg.unscored": ("unscored (the answers are hidden)", "未评分（答案未公开）"),
    "msg.no_such_run": ("No run named **{exp_id}**.", "没有名为 **{exp_id}** 的运行。"),
    "msg.cancel_requested": ("Cancelling {exp_id}: it stops within seconds; unfinished samples wait for a resume.",
                             "正在取消 {exp_id}：几秒内停止；未完成的样本可稍后继续。"),
    "msg.nothing_to_cancel": ("No run of this page is going.", "本页面没有正在进行的运行。"),
    "msg.run_failed": ("The run stopped: {error}", "运行已停止：{error}"),
    "msg.not_started": ("⚠️ Not started: {reason}", "⚠️ 未开始：{reason}"),
    "endpoint.price_input": ("Price per million input tokens (optional)", "每百万输入 token 价格（可选）"),
    "endpoint.price_output": ("Price per million output tokens (optional)", "每百万输出 token 价格（可选）"),
    "endpoint.price_info": ("USD, for every tab's runs of this model; empty or 0: the price table's, else unpriced",
                            "美元，用于各标签页中该模型的运行；留空或 0：使用价格表中的价格，没有则不计价"),
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
    # the Runs table's valid-samples cell; {interval}: " [low–high]", or nothing for an undefined interval
    "runs.valid_cell": ("{valid}{interval} ({invalid} invalid)", "{valid}{interval}（{invalid} 个无效）"),
    "runs.delete_confirm": ("Yes, delete it", "确认删除"),
    "runs.delete_keep": ("Keep it", "保留"),
    "runs.pair_title": ("### Two runs, sample by sample\nPaired by sample id: B's accuracy minus A's with a 95% interval "
                        "(Newcombe) and the exact McNemar test. Pick a sample of a bucket to see both transcripts side by side.",
                        "### 两次运行逐样本对比\n按样本 ID 配对：B 的准确率减 A 的准确率，附 95% 置信区间（Newcombe）"
                        "与精确 McNemar 检验。选择某一分组中的样本，即可并排查看两次运行的记录。"),
    "runs.pair_a": ("A (baseline)", "A（基线）"),
    "runs.pair_b": ("B (compared)", "B（对比）"),
    "runs.pair_compare": ("Compare A and B", "对比 A 与 B"),
    "runs.pair_flips": ("Samples of the bucket (shown side by side)", "该组的样本（并排显示）"),
    "runs.pair_bucket": ("Bucket", "分组"),
    "inspector.need_sample": ("Choose a sample.", "请选择一个样本。"),
    "runs.pair_json": ("Comparison as JSON", "对比结果（JSON）"),
    # sample inspector
    "inspector.title": ("Sample inspector", "样本检查器"),
    "inspector.verdict": ("Verdict", "判定"),
    "inspector.group": ("Category or level", "类别或级别"),
    "inspector.error_type": ("Error type", "错误类型"),
    "inspector.search": ("Search (Enter)", "搜索（回车）"),
    "inspector.sample": ("Sample", "样本"),
    "inspector.previous": ("◀ Previous (Alt+↑)", "◀ 上一个（Alt+↑）"),
    "inspector.next": ("Next (Alt+↓) ▶", "下一个（Alt+↓）▶"),
    "inspector.finding": ("Finding (scanner)", "发现（扫描器）"),
    "inspector.label_finding": ("Label a finding of this sample", "标注此样本的一项发现"),
    "inspector.reviewer": ("Reviewer name (required)", "审核人姓名（必填）"),
    "inspector.confirmed": ("Confirmed", "确认属实"),
    "inspector.false_alarm": ("False alarm", "误报"),
    "inspector.precision": ("Scanner precision from reviewers' labels (confirmed / labelled): {figures}",
                            "根据审核人标注的扫描器精确率（确认 / 已标注）：{figures}"),
    "inspector.precision_none": ("Scanner precision: no finding of this run is labelled yet.",
                                 "扫描器精确率：此运行尚无已标注的发现。"),
    "inspector.labelled": ("Finding {number} of {sample} labelled {label} by {reviewer}.",
                           "{sample} 的发现 {number} 已由 {reviewer} 标注为 {label}。"),
    "inspector.need_finding": ("Choose a finding of this sample to label.", "请选择此样本的一项发现进行标注。"),
    # {raw_ci} and {valid_ci}: " [low–high]", or nothing for an undefined interval
    "msg.validity": (" · accuracy {raw}{raw_ci} · valid samples {valid}{valid_ci} ({invalid} invalid)",
                     " · 准确率 {raw}{raw_ci} · 有效样本 {valid}{valid_ci}（{invalid} 个无效）"),
    "msg.delete_ask": ("Delete **{exp_id}** and its folder? This cannot be undone.",
                       "删除 **{exp_id}** 及其文件夹？此操作无法撤销。"),
    "msg.delete_running": ("Cancel the run before deleting it.", "请先取消该运行，再删除。"),
    "msg.deleted": ("Deleted {exp_id}.", "已删除 {exp_id}。"),
    "msg.delete_failed": ("{exp_id} was not deleted: {reason}", "{exp_id} 未删除：{reason}"),
    "msg.need_run": ("Pick a stored run first.", "请先选择一个已保存的运行。"),
    "msg.compare_none": ("Pick runs to compare first.", "请先选择要对比的运行。"),
    "msg.compare_mixed": ("Compare runs of one benchmark at a time (these are {found}).",
                          "每次只能对比同一基准的运行（当前选择了 {found}）。"),
    "msg.need_folder": ("Give the local folder's path.", "请填写本地文件夹路径。"),
    "msg.folder_outside": ("Local folders must be inside the data folder.", "本地文件夹必须位于数据目录内。"),
    "msg.need_upload": ("Upload a JSON file of questions first.", "请先上传问题 JSON 文件。"),
    "msg.agent_refused": ("That agent is not allowed on this server.", "此服务器不允许使用该智能体。"),
    "msg.need_file": ("Choose a generated file first.", "请先选择一个生成文件。"),
    "msg.file_outside": ("Generated files are read from the runs folder only.", "只能读取运行目录中的生成文件。"),
    # score files
    "score.category": ("Category", "类别"),
    "score.results": ("Result file", "结果文件"),
    "score.submission": ("Submission", "提交文件"),
    "score.metadata": ("Metadata (jsonl or parquet)", "元数据（jsonl 或 parquet）"),
    "score.summary": ("Summary", "汇总"),
    "score.verdicts": ("Verdicts", "判定结果"),
    "score.download": ("Verdicts (JSONL)", "判定结果（JSONL）"),
    "score.json": ("Summary as JSON", "汇总（JSON）"),
    # run-time messages of the Score tab (access.say, in the request's language)
    "score.choose_file": ("Choose a file first.", "请先选择文件。"),
    # run-time messages: who may act
    "access.refused": ("Only allowed users may {action} here. Log in with an allowed account.",
                       "只有获准的用户才能在此{action}。请使用获准的账号登录。"),
    "access.start_runs": ("start runs", "启动运行"),
    "access.cancel_runs": ("cancel runs", "取消运行"),
    "access.delete_runs": ("delete runs", "删除运行"),
    "access.start_the_local_model": ("start the local model", "启动本地模型"),
    "access.stop_the_local_model": ("stop the local model", "停止本地模型"),
    "access.test_endpoints": ("test endpoints", "测试端点"),
    "access.upload_files": ("upload files", "上传文件"),
    "access.save_reviews": ("save reviews", "保存审阅"),
    "access.label_findings": ("label findings", "标注发现"),
    "access.export_approved_problems": ("export approved problems", "导出已通过的题目"),
    "access.change_the_assignment": ("change the assignment", "更改分配设置"),
    "access.adjudicate": ("adjudicate", "裁决"),
    "access.push_to_the_hub": ("push to the Hub", "推送到 Hub"),
    "access.score_files": ("score files", "为文件评分"),
    "access.use_this_dashboard": ("see or use what this dashboard stores (runs, reports, files and reviews)",
                                  "查看或使用此仪表板存储的内容（运行、报告、文件和审阅）"),
    "msg.too_many_runs": ("You already have {n} runs going; wait for one to finish or cancel one.",
                          "你已有 {n} 个运行正在进行；请等待其中一个结束或取消一个。"),
    # run-time messages: files evalui cannot use (English as in evalui.review.uploads.REASONS)
    "file.missing": ("no such file", "文件不存在"),
    "file.too_big": ("larger than {mb} MB", "超过 {mb} MB"),
    "file.binary": ("a binary file, not JSON text", "这是二进制文件，不是 JSON 文本"),
    "file.not_utf8": ("not UTF-8 text", "不是 UTF-8 文本"),
    "file.malformed": ("malformed JSON ({detail})", "JSON 格式错误（{detail}）"),
    "file.too_deep": ("JSON nested more than {depth} levels deep", "JSON 嵌套超过 {depth} 层"),
    "file.not_problems": ("expected a JSON array of problems", "应为题目组成的 JSON 数组"),
    "file.problem_fields": ("problem {index} needs a text problem_id, a problem and an answer",
                            "第 {index} 道题需要文本字段 `problem_id`、`problem` 和 `answer`"),
    "file.duplicate_id": ("problem_id {problem_id} appears more than once", "problem_id {problem_id} 出现了不止一次"),
    "file.not_reviews": ("expected an object of reviews keyed by problem_id", "应为以 problem_id 为键的审阅对象"),
    "file.companion": ("a companion file (reviews, judge, win rate or export), not a generated file",
                       "这是附属文件（审阅、评委、胜率或导出），不是生成文件"),
    "verify.reviewer_required": ("required to save; kept in the file beside your reviews",
                                 "保存时必填；会与你的审阅一起记录在文件中"),
}


# The verification panel's texts, the table headers and the corrected figures' texts live in modules of their own;
# a benchmark's tab texts in its own package (evalui.ui.i18n.benchmarks).
_OWN: dict[str, tuple[str, str]] = {**_GENERAL, **VERIFY_STRINGS, **COLUMN_STRINGS, **CALIBRATION_STRINGS,
                                   **RUN_PAGE_STRINGS, **COMPARE_STRINGS, **VIEWER_STRINGS, **LAUNCHER_STRINGS,
                                   **CHART_STRINGS}
_BENCHMARKS = benchmark_strings()
if set(_OWN) & set(_BENCHMARKS):
    raise ValueError(f"benchmark UI strings redefine the catalog's own: {sorted(set(_OWN) & set(_BENCHMARKS))}")
STRINGS: dict[str, tuple[str, str]] = {**_OWN, **_BENCHMARKS}


def app_title(strings: dict[str, tuple[str, str]], names: list[str]) -> tuple[str, str]:
    """The app's title: what it evaluates, each benchmark as its catalog's ``title.<name>`` says it
    (those without one left out), in the registry's order."""
    titles = [strings[f"title.{name}"] for name in names if f"title.{name}" in strings]
    return ("# evalui\nEvaluate LLM agents: " + ", ".join(en for en, _ in titles) + ".",
            "# evalui\n评估 LLM 智能体：" + "、".join(zh for _, zh in titles) + "。")


STRINGS["app.title"] = app_title(STRINGS, registry.names())


@functools.cache
def i18n() -> gr.I18n:
    return gr.I18n(en={k: en for k, (en, _) in STRINGS.items()}, zh={k: zh for k, (_, zh) in STRINGS.items()})


def t(key: str):
    """The text for ``key`` in the visitor's language."""
    if key not in STRINGS:
        raise KeyError(f"no UI string {key!r}")
    return i18n()(key)


def say(key: str, **fields) -> str:
    """A run-time message in the visitor's language (the page's own text is translated by Gradio)."""
    return STRINGS[key][language()].format(**fields)


def chart_words() -> dict[str, str]:
    """evalui.reports.charts.CHART_WORDS in the visitor's language, for the charts a page draws."""
    return {key: say(f"chart.{key}") for key in CHART_WORDS}
