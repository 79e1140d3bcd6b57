"""The texts of the judge's figures corrected by the reviewers (the results tab's calibration block,
and the verification panel's "review these next" and "better than the reference?"), in English and
Chinese (merged into evalui.ui.i18n.strings.STRINGS): labels, which Gradio translates, and run-time
messages (access.say)."""

from __future__ import annotations

CALIBRATION_STRINGS: dict[str, tuple[str, str]] = {
    # the results tab: labels
    "calib.title": ("Judge figures corrected by the reviewers", "经审阅者校正的评委指标"),
    "calib.refresh": ("Refresh the corrected figures", "刷新校正后的指标"),
    "calib.chart": ("Judge score against the reviewers' verdict", "评委分数与审阅者结论对照"),
    # the results tab: run-time messages
    "calib.none": ("_Choose a judged file to see its figures corrected by the reviews._",
                   "_选择一个已评审的文件，查看经审阅校正的指标。_"),
    "calib.not_judged": ("_No judge scores for this file yet: run the LLM judge first._",
                         "_此文件还没有评委分数：请先运行 LLM 评委。_"),
    "calib.unreadable": ("The figures cannot be corrected: {reason}", "无法校正指标：{reason}"),
    "calib.counts": ("**{reviewed} reviewed**, {unreviewed} not reviewed · pass rate corrected by Rogan–Gladen, means "
                     "and win rate by PPI++ · 95 % intervals", "**已审阅 {reviewed} 道**，未审阅 {unreviewed} 道 · 通过率用 "
                     "Rogan–Gladen 校正，平均分与胜率用 PPI++ 校正 · 95% 置信区间"),
    "calib.header": ("| figure | judge only | reviewers only | corrected | the estimate |",
                     "| 指标 | 仅评委 | 仅审阅者 | 校正后 | 采用的估计 |"),
    "calib.pass_rate": ("pass rate", "通过率"),
    "calib.mean_score": ("mean score (1–5)", "平均分（1–5）"),
    "calib.win_rate": ("win rate", "胜率"),
    "calib.naive": ("judge only", "仅评委"),
    "calib.human_only": ("reviewers only", "仅审阅者"),
    "calib.corrected": ("corrected", "校正后"),
    "calib.too_few": ("⚠️ **Calibration set too small**: {n} problems reviewed; the correction needs at least {min}. "
                      "Until then the figures stay uncorrected.",
                      "⚠️ **校准集太小**：已审阅 {n} 道题，校正至少需要 {min} 道。在此之前指标不做校正。"),
    "calib.uninformative": ("⚠️ **The judge tells nothing about the reviewers' verdict**: sensitivity + specificity "
                            "= {sum} (must be above 1), so its pass rate cannot be corrected.",
                            "⚠️ **评委的判断与审阅结论无关**：灵敏度 + 特异度 = {sum}（须大于 1），因此其通过率无法校正。"),
    "calib.judge_rates": ("Judge against the reviewers: sensitivity {sensitivity}, specificity {specificity}.",
                          "评委相对审阅者：灵敏度 {sensitivity}，特异度 {specificity}。"),
    "calib.why": ("Not corrected: {reasons}", "未校正：{reasons}"),
    # why a figure cannot be given: evalui.stats.estimate.CAUSE_TEXTS, one entry a code, same English
    "calib.cause.too_few_labels": ("{n} labelled items; the correction needs at least {needed}",
                                   "已标注 {n} 项；校正至少需要 {needed} 项"),
    "calib.cause.no_positive_labels": ("no labelled item passes by the human verdict, so the judge's sensitivity is "
                                       "unknown", "按人工结论没有一项通过，因此评委的灵敏度未知"),
    "calib.cause.no_negative_labels": ("no labelled item fails by the human verdict, so the judge's specificity is "
                                       "unknown", "按人工结论没有一项不通过，因此评委的特异度未知"),
    "calib.cause.uninformative_judge": ("the judge's sensitivity + specificity is {sum}, not above 1: its verdicts say "
                                        "nothing about the human verdict, so they cannot be corrected",
                                        "评委的灵敏度 + 特异度为 {sum}，不大于 1：其结论与人工结论无关，因此无法校正"),
    "calib.cause.no_usable_resample": ("no bootstrap resample had a usable judge", "没有一次自助重抽样得到可用的评委"),
    "calib.cause.no_unlabelled_items": ("no unlabelled items: the human-only figure is the whole answer",
                                        "没有未标注的项：仅人工的指标就是完整答案"),
    "calib.cause.no_items": ("no items", "没有任何项"),
    "calib.cause.no_judged_items": ("no judged items", "没有评审过的项"),
    "calib.cause.no_labelled_items": ("no labelled items", "没有标注过的项"),
    "calib.no_pairs": ("no win-rate results beside the file", "文件旁没有胜率结果"),
    "calib.human_pass": ("reviewers: pass", "审阅者：通过"),
    "calib.human_fail": ("reviewers: fail", "审阅者：不通过"),
    "calib.unreviewed": ("not reviewed", "未审阅"),
    "calib.band_axis": ("judge's mean score", "评委平均分"),
    "calib.count_axis": ("problems", "题目数"),
    # the verification panel
    "verify.better": ("Better than the reference problem? (optional)", "是否优于参考题？（可选）"),
    "verify.next_title": ("Review these next", "接下来请审阅"),
    "verify.next_list": ("**Review these {n} next**: {listed}", "**接下来请审阅这 {n} 道**：{listed}"),
    "verify.next_width": (" · expected 95 % interval of the pass rate: ±{now} now, ±{after} after these {n}",
                          " · 通过率 95% 置信区间的预期：现在 ±{now}，审阅这 {n} 道后 ±{after}"),
    "verify.next_width_undefined": (" · the pass rate's interval is defined once each judge score band has a "
                                    "review; after these {n}: ±{after}",
                                    " · 每个评委分数段都有审阅后才有通过率区间；审阅这 {n} 道后：±{after}"),
    "verify.next_done": ("**Every judged problem has a review.**", "**所有已评审的题目都已审阅。**"),
    "verify.next_no_judge": ("_No judge scores beside this file: review in file order._",
                             "_此文件旁没有评委分数：请按文件顺序审阅。_"),
    "verify.reference": ("Compared by the win-rate judge with the reference problem `{reference}`.",
                         "胜率评委将其与参考题 `{reference}` 比较。"),
    "verify.no_reference": ("_No reference problem for this one (no win-rate results)._",
                            "_本题没有参考题（没有胜率结果）。_"),
}
