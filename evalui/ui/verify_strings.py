"""The verification panel's refusals of an incomplete review, in English and Chinese.

Run-time messages only (the page's labels go through strings.py and Gradio's I18n). One message
lists everything still missing, so a reviewer fixes it all in one go rather than one click each.
"""

from __future__ import annotations

from evalui.ui.access import language

MESSAGES = {
    "missing": ("Not saved. Still needed: {items}.", "未保存。还需要：{items}。"),
    "separator": ("; ", "；"),
    "list_separator": (", ", "、"),
    "name": ("your name (reviews are kept per reviewer)", "你的名字（审阅按审阅人分别保存）"),
    "name_or_sign_in": ("your name, or sign in with Hugging Face (reviews are kept per reviewer)",
                        "你的名字，或用 Hugging Face 登录（审阅按审阅人分别保存）"),
    "scores": ("a score from 1 to 5 for {dimensions}", "{dimensions} 的评分（1–5）"),
    "status": ("a status (approved, rejected or needs_revision)", "状态（approved、rejected 或 needs_revision）"),
    "reserved": ("“{name}” is kept for reviews saved without a name by older versions; give your own name.",
                 "“{name}”保留给旧版本中未署名保存的审阅；请填写你自己的名字。"),
    "unnamed_note": ("_{labels}: saved without a name by an older version; still counted, and no new "
                     "review can replace it._",
                     "_{labels}：旧版本中未署名保存的审阅；仍计入统计，新的审阅不会替换它。_"),
}


def say(key: str, **fields) -> str:
    return MESSAGES[key][language()].format(**fields)


def missing_message(*, name: bool, dimensions: list[str], status: bool, sign_in: bool = False) -> str | None:
    """The one refusal for a review lacking a name, some scores or a status; None when nothing is missing."""
    items = []
    if name:
        items.append(say("name_or_sign_in" if sign_in else "name"))
    if dimensions:
        items.append(say("scores", dimensions=say("list_separator").join(dimensions)))
    if status:
        items.append(say("status"))
    return say("missing", items=say("separator").join(items)) if items else None
