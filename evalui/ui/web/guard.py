"""ASGI middleware in front of Gradio's routes, for what no handler can do because it comes first:

- ``BodyCap``: a request body over its cap gets 413 before it is parsed or queued (Gradio reads a
  whole JSON body into memory before any access check). Declared lengths are checked at once,
  streamed (chunked) bodies are counted as they arrive.
- ``StoredFileGate``: files of the data folder (run artefacts, reviewers' uploads) are served only to
  visitors who may read what is stored, and uploads only to visitors who may act. It does not know
  Gradio's file routes by their spelling (``/file=``, the older ``/file/``, and whatever a later
  Gradio adds): a request is refused when any tail of its path (from a ``/`` or a ``=``, as a
  route's path parameter takes it) or any query value names a path inside the data folder.
- ``SecurityHeaders``: images only from the dashboard itself (a Markdown image a model wrote cannot
  become a request to its author's server), and no Referer to other sites.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qsl

from starlette.middleware import Middleware
from starlette.requests import HTTPConnection

from evalui.config import data_dir
from evalui.ui.web import access

MAX_BODY_BYTES = 1 * 2**20  # any request but an upload: the page's own requests are a few kilobytes
UPLOAD_SLACK_BYTES = 2**20  # multipart framing around the uploaded file
CONTENT_SECURITY_POLICY = "img-src 'self' data: blob:"
UPLOAD_SUFFIX = "/gradio_api/upload"
FILE_MARK = "/gradio_api/file="


def upload_cap_bytes(max_upload_mb: float) -> int:
    return int(max_upload_mb * 2**20) + UPLOAD_SLACK_BYTES


async def _answer(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyCap:
    def __init__(self, app, *, max_body: int = MAX_BODY_BYTES, max_upload: int = MAX_BODY_BYTES):
        self.app, self.max_body, self.max_upload = app, max_body, max_upload

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        cap = self.max_upload if scope["path"].rstrip("/").endswith(UPLOAD_SUFFIX) else self.max_body
        detail = f"Request body too large: at most {cap} bytes here."
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.strip().isdigit() or int(declared) > cap):
            return await _answer(send, 413, detail)
        received, over, answered = 0, False, False

        async def counted():
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:  # the app reads a client that went away, and stops
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def sent(message):
            nonlocal answered
            if over:  # whatever the app says about a body it could not finish, the answer is 413
                if not answered and message["type"] == "http.response.start":
                    answered = True
                    await _answer(send, 413, detail)
                return
            if message["type"] == "http.response.start":
                answered = True
            await send(message)

        try:
            await self.app(scope, counted, sent)
        except Exception:
            if not over:
                raise
        if over and not answered:
            await _answer(send, 413, detail)


def _user_of(scope) -> str | None:
    """The visitor as Gradio's routes know them: the --auth cookie, else the Space OAuth session."""
    connection = HTTPConnection(scope)
    app = scope.get("app")
    cookie_id = getattr(app, "cookie_id", None)
    if cookie_id:
        token = (connection.cookies.get(f"access-token-{cookie_id}")
                 or connection.cookies.get(f"access-token-unsecure-{cookie_id}"))
        user = getattr(app, "tokens", {}).get(token)
        if user:
            return user
    session = scope.get("session") or {}  # present when Gradio's OAuth session middleware is on
    return ((session.get("oauth_info") or {}).get("userinfo") or {}).get("preferred_username")


def _inside(raw: str, folder: Path) -> bool:
    # Both spellings: Gradio checks the path as given, and a symlink may point elsewhere.
    if not raw or raw.startswith(("http://", "https://")) or "\x00" in raw:
        return False
    try:
        given = Path(os.path.abspath(raw))
        spellings = (given, given.resolve())
    except (OSError, ValueError):  # a name the file system cannot even look up serves nothing
        return False
    return any(p == folder or folder in p.parents for p in spellings)


def _tails(path: str) -> list[str]:
    """Every tail of the path that starts after a ``/`` or a ``=``: where a route's path parameter
    can begin, whatever the route's spelling."""
    return [path[i + 1:] for i, char in enumerate(path) if char in "/="] + [path]


def names_stored_file(scope, folder: Path) -> bool:
    """Whether the request names a file inside ``folder``, in its path or in a query value; a
    tail is tried as given (absolute) and relative to the working directory, as Gradio reads it."""
    tails = _tails(scope["path"])
    candidates = tails + ["/" + tail for tail in tails]
    candidates += [value for _, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"))]
    return any(_inside(value, folder) for value in candidates)


class StoredFileGate:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, users = scope["path"], access.allowed_users()
        if path.rstrip("/").endswith(UPLOAD_SUFFIX):
            # Every upload feeds an action (scoring, a review file, GAIA questions) that the allow-list guards.
            if users is not None and _user_of(scope) not in users:
                return await _answer(send, 403, "Only allowed users may upload files here.")
        elif not access.may_read(_user_of(scope), asking=False) and names_stored_file(scope, data_dir().resolve()):
            return await _answer(send, 403, "File not allowed.")
        return await self.app(scope, receive, send)


class SecurityHeaders:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-security-policy", b"referrer-policy")]
                headers += [(b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
                            (b"referrer-policy", b"same-origin")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def middleware(max_upload_mb: float) -> list[Middleware]:
    """For ``launch(app_kwargs={"middleware": ...})``; the first listed sees a request first."""
    return [Middleware(SecurityHeaders), Middleware(BodyCap, max_upload=upload_cap_bytes(max_upload_mb)),
            Middleware(StoredFileGate)]
