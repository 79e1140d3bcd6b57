"""The request a dashboard handler serves, and the language its visitor reads.

Below both the string catalog (evalui.ui.i18n) and the web layer (evalui.ui.web), which each need it.
"""

from __future__ import annotations


def current_request():
    # Gradio keeps the event's request in a context variable; handlers with a variable number of
    # inputs cannot ask for it as a typed parameter.
    from gradio.context import LocalContext

    return LocalContext.request.get(None)


def language() -> int:
    """0 for English, 1 for Chinese: the first of the two the request's Accept-Language names."""
    request = current_request()
    headers = getattr(request, "headers", None) or {}
    for tag in (headers.get("accept-language") or "").split(","):
        tag = tag.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return 1
        if tag.startswith("en"):
            return 0
    return 0
