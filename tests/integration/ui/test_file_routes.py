"""Every route of the real app, asked for stored files by an anonymous visitor under an allow-list.

The read gate must not depend on how a route is spelled: Gradio serves files at ``/file=…``, at the
older ``/file/…`` and may add more. So the routes are taken from the launched app's own route table,
each path parameter is filled with a stored file's path (absolute, doubled slash, relative to the
working directory) and each query with it too, and no answer may carry the file's bytes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from app_client import launch_demo
from starlette.routing import Mount

from integration.ui.test_access_read import stored  # noqa: F401  (a fixture)

PARAMETER = re.compile(r"\{(\w+)(?::(\w+))?\}")


def routes_of(app, prefix: str = "") -> list[tuple[str, set[str]]]:
    """(path template, methods) of every route, mounted apps and included routers too; path
    parameters are written ``{name:path}``, the others ``{name}``."""
    found = []
    for route in app.routes:
        if isinstance(route, Mount):
            found += routes_of(route, prefix + route.path)
        elif hasattr(route, "effective_route_contexts"):  # FastAPI's included router (Gradio's /gradio_api)
            for context in route.effective_route_contexts():
                found.append((_template(context.path_format, context.original_route),
                              set(getattr(context.original_route, "methods", None) or {"GET"})))
        elif hasattr(route, "path"):
            found.append((_template(prefix + route.path, route), set(getattr(route, "methods", None) or {"GET"})))
    return found


def _template(path: str, route) -> str:
    convertors = getattr(route, "param_convertors", {}) or {}
    return PARAMETER.sub(lambda m: f"{{{m.group(1)}:path}}" if type(convertors.get(m.group(1))).__name__ ==
                         "PathConvertor" or m.group(2) == "path" else f"{{{m.group(1)}}}", path)


def spellings(path: Path) -> list[str]:
    """Ways a visitor can name one stored file in a URL's path parameter."""
    absolute = str(path)
    relative = os.path.relpath(path, Path.cwd())
    return [absolute, "/" + absolute, absolute.replace("/", "//"), relative, "./" + relative]


def fill(template: str, value: str) -> str:
    """The template with every path parameter set to ``value`` and every other one to a plain word."""
    return PARAMETER.sub(lambda m: value if m.group(2) == "path" else "x", template)


def stored_files(stored) -> list[Path]:
    run = stored["data"] / "runs" / "stored-run"
    reviews = stored["generated"].with_name(stored["generated"].stem + "_verifications.json")
    reviews.write_text('{"reviews": "ROUTE-TEST-REVIEW-MARK"}', encoding="utf-8")
    files = [run / "samples.jsonl", run / "summary.json", run / "report.md", stored["generated"], reviews]
    assert all(f.is_file() and f.stat().st_size > 20 for f in files), [f for f in files if not f.is_file()]
    return files


def answer_of(client: httpx.Client, method: str, target: str, limit: int = 2**20) -> tuple[int, bytes]:
    """Status and the first bytes of the answer; an event stream (the queue, heartbeats) is cut
    at its first pause or break, since a file is sent at once."""
    status, body = 0, b""
    try:
        with client.stream(method, target) as answer:
            status = answer.status_code
            for chunk in answer.iter_bytes():
                body += chunk
                if len(body) >= limit:
                    break
    except (httpx.ReadTimeout, httpx.RemoteProtocolError):
        pass
    return status, body


def served(url: str, app, files: list[Path]) -> tuple[list[str], int]:
    """The requests whose answers carried a stored file's bytes, and how many requests were made."""
    leaks, asked = [], 0
    with httpx.Client(timeout=httpx.Timeout(30, read=2), follow_redirects=False) as client:
        for template, methods in routes_of(app):
            for path in files:
                marker = path.read_bytes()[:64]
                names = spellings(path)
                # One request per distinct URL: each spelling in the path parameters, all of them as query values.
                targets = {url.rstrip("/") + fill(template, value) for value in names}
                query = {key: value for key, value in zip(("path", "file", "path_or_url", "url", "name"), names)}
                targets = {target + ("?" + str(httpx.QueryParams(query)) if "?" not in target else "")
                           for target in targets}
                for target in sorted(targets):
                    for method in sorted(methods & {"GET", "HEAD", "POST"}):
                        status, body = answer_of(client, method, target)
                        asked += 1
                        if status == 200 and marker in body:
                            leaks.append(f"{method} {template} ({target[len(url):]})")
    return leaks, asked


@pytest.fixture()
def launched(stored):  # noqa: F811
    """The real app (the same launch options as app.py), its URL and its ASGI app."""
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo)
    yield url, demo.server_app
    demo.close()


def test_no_route_serves_a_stored_file_to_an_anonymous_visitor(stored, launched):  # noqa: F811
    files = stored_files(stored)
    url, server_app = launched
    templates = {t for t, _ in routes_of(server_app)}
    # Both spellings of Gradio's file route are in the table this test walks.
    assert {"/gradio_api/file={path_or_url:path}", "/gradio_api/file/{path:path}"} <= templates, sorted(templates)
    leaks, asked = served(url, server_app, files)
    assert asked > 300
    assert not leaks, leaks
    direct = httpx.get(url + "gradio_api/file/" + str(files[0]).lstrip("/"))
    assert direct.status_code == 403 and str(files[0]) not in direct.text


def test_the_same_walk_finds_the_files_when_reading_is_public(stored, monkeypatch):  # noqa: F811
    """The control: with EVALUI_PUBLIC_READ=1 both file routes serve them, so the walk above can see a leak."""
    monkeypatch.setenv("EVALUI_PUBLIC_READ", "1")
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo)
    try:
        leaks, _ = served(url, demo.server_app, stored_files(stored)[:1])
    finally:
        demo.close()
    assert any("/gradio_api/file={path_or_url:path}" in leak for leak in leaks), leaks
    assert any("/gradio_api/file/{path:path}" in leak for leak in leaks), leaks
