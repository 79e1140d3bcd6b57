"""The agent's tools on real files, the plain-text protocol, the web tool offline, and the source option."""
from __future__ import annotations

import json

import pytest

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.tools.base import ToolContext, parse_choices
from evalui.benchmarks.gaia.tools.text_protocol import parse
from evalui.benchmarks.gaia.tools.web import HttpWebBackend, web_tools
from evalui.errors import InputError
from evalui.sandbox.base import Limits


def test_text_protocol_is_parsed_as_data():
    calls = parse('thinking <tool_call>{"name": "python", "arguments": {"code": "print(1)"}}</tool_call> '
                  "<tool_call>__import__('os')</tool_call>")
    assert calls[0].name == "python" and json.loads(calls[0].arguments) == {"code": "print(1)"}
    assert calls[1].name == "_malformed"
    assert parse("FINAL ANSWER: 3") == []


def test_web_tool_fails_cleanly_offline():
    search, fetch = web_tools()
    question = GaiaQuestion("t", "q", "a", "1")
    context = ToolContext(question, Limits(), web=HttpWebBackend(search_url="http://search.invalid/?q={query}"))
    for tool, arguments in ((search, {"query": "gaia"}), (fetch, {"url": "http://example.invalid/page"}),
                            (fetch, {"url": "http://127.0.0.1:9/"})):
        result = tool.run(arguments, context)
        assert result.error == "web_unavailable" and "not available" in result.content
    assert fetch.run({"url": "file:///etc/passwd"}, context).error == "bad_arguments"


def test_tool_choices(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("EVALUI_WEB_BACKEND", raising=False)
    assert parse_choices("python, files,python") == ["python", "files"]
    with pytest.raises(InputError, match="EVALUI_WEB_BACKEND"):
        parse_choices(["web"])
    monkeypatch.setenv("EVALUI_WEB_BACKEND", "http")
    assert parse_choices(["web"]) == ["web"]
    monkeypatch.setenv("SPACE_ID", "a/b")
    with pytest.raises(InputError, match="EVALUI_ALLOW_CODE"):
        parse_choices(["python"])
    monkeypatch.setenv("EVALUI_ALLOW_CODE", "1")
    assert parse_choices(["python"]) == ["python"]
