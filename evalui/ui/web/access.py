"""Who is asking: whether they may act or read here, which language to answer in, and how a handler says no.

With EVALUI_ALLOWED_USERS unset, everyone may. With it set (comma-separated user names), only
those users may act (logged in with the Space's Hugging Face OAuth, or with --auth user:pass),
and only they may read what is stored (runs, reports, downloads, reviews) unless the operator
sets EVALUI_PUBLIC_READ=1.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable

import gradio as gr

from evalui.errors import InputError
from evalui.reports.markdown import defuse_links
from evalui.settings import read, read_list
from evalui.ui.i18n.strings import STRINGS, say
from evalui.ui.request import current_request as _request

# An absolute path in a message shows the server's layout; the page only ever names the file.
_ABSOLUTE_PATH = re.compile(r"(?<![\w:/])(?:[A-Za-z]:)?[\\/](?:[^\s\\/:'\"`]+[\\/])+([^\s\\/:'\"`]+)")


class Refused(gr.Error):
    """The visitor may not do this. A gr.Error, so handlers that do not catch it still refuse."""


def allowed_users() -> set[str] | None:
    return set(read_list("allowed_users")) or None


def current_user() -> str | None:
    request = _request()
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


def current_session() -> str | None:
    """The page's session (one page load), for visitors who are not signed in."""
    return getattr(_request(), "session_hash", None)



def require_access(action: str) -> None:
    users = allowed_users()
    if users is None:
        return
    if current_user() not in users:
        key = "access." + action.replace(" ", "_")
        raise Refused(say("access.refused", action=say(key) if key in STRINGS else action))


def public_read() -> bool:
    return read("public_read")


def may_read(user: str | None = None, *, asking: bool = True) -> bool:
    """Whether the visitor (``user``, or the current request's) may see stored runs and files.
    Code outside a request (a background run, a test calling a handler) is the server itself."""
    users = allowed_users()
    if users is None or public_read():
        return True
    if asking:
        if _request() is None:
            return True
        user = current_user()
    return user in users


def bare_names(text: str) -> str:
    """The message with every absolute path cut to its file name."""
    return _ABSOLUTE_PATH.sub(r"\1", text)


def guarded(outputs: int, note: int | None = None, *, quiet: bool = False,
            explain: Callable[[InputError], str] = str):
    """Refusals and bad input become a warning; every output keeps its value.

    A raised gr.Error would put a red "Error" badge on each output and leave the panel looking
    broken. Output ``note`` (a Markdown) gets the message too, so API callers read it. ``explain``
    words an InputError for the page.
    """
    def wrap(handler):
        @functools.wraps(handler)
        def run(*args):
            try:
                return handler(*args)
            except gr.Error as exc:
                text = bare_names(str(exc.message))
            except InputError as exc:
                text = bare_names(explain(exc))
            if not quiet:
                gr.Warning(html.escape(text))
            values = [gr.skip()] * outputs
            if note is not None:  # a Markdown: the message may quote a file or a model, so nothing in it is a link
                values[note] = "⚠️ " + defuse_links(html.escape(text, quote=False))
            return values[0] if outputs == 1 else tuple(values)
        return run
    return wrap
