"""Who may launch runs and save reviews on a shared deployment.

With EVALUI_ALLOWED_USERS unset, everyone may. With it set (comma-separated user names), only
those users may: logged in with the Space's Hugging Face OAuth, or with --auth user:pass.
"""

from __future__ import annotations

import os

import gradio as gr

ALLOWED_USERS_ENV = "EVALUI_ALLOWED_USERS"


def allowed_users() -> set[str] | None:
    names = {n.strip() for n in os.environ.get(ALLOWED_USERS_ENV, "").split(",") if n.strip()}
    return names or None


def current_user() -> str | None:
    # Gradio keeps the event's request in a context variable; handlers with a variable number of
    # inputs cannot ask for it as a typed parameter.
    from gradio.context import LocalContext

    request = LocalContext.request.get(None)
    if request is None:
        return None
    if getattr(request, "username", None):
        return request.username
    try:
        session = request.session
    except (AssertionError, AttributeError, KeyError):  # no session middleware: OAuth is off
        return None
    info = (session or {}).get("oauth_info") or {}
    return (info.get("userinfo") or {}).get("preferred_username")


def require_access(action: str) -> None:
    users = allowed_users()
    if users is None:
        return
    user = current_user()
    if user not in users:
        raise gr.Error(f"Only allowed users may {action} here. Log in with an allowed account.")
