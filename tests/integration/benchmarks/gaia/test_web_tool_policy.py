"""The GAIA web tool's own address policy and its deadline, against real servers on 127.0.0.1.

The endpoint allow-list (EVALUI_ALLOWED_HOSTS) lets a shared deployment talk to a model on a
private address; it must not let the model's web_fetch reach that network. Only
EVALUI_WEB_ALLOW_HOSTS opens a host to the web tool.
"""
from __future__ import annotations

import json

from peers import settings_for
from unit.endpoint.test_web_tool_policy import SECRET, WebServer, web_env  # noqa: F401  (shared with the unit layer; fixtures are used by name)

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.spec import BENCHMARK as GAIA
from evalui.benchmarks.gaia.spec import GaiaOptions
from evalui.benchmarks.gaia.tools.base import ToolContext
from evalui.benchmarks.gaia.tools.web import HttpWebBackend, web_tools
from evalui.run import lifecycle
from evalui.sandbox.base import Limits
from support.openai_peer import (
    ScriptedPeer,
    completion,
    first_user_text,
    tool_outputs,
)


def fetch_once(store, tmp_path, url: str) -> dict:
    """A GAIA run of one task whose model calls web_fetch(url) once, then answers; that call's result."""
    tmp_path.mkdir(exist_ok=True)
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"task_id": "web", "Question": "Read the page.", "Final answer": "x"}]))

    def script(body, n):
        if not tool_outputs(body):
            return completion("", tool_calls=[("web_fetch", json.dumps({"url": url}))])
        return completion("FINAL ANSWER: x")

    with ScriptedPeer(script) as peer:
        settings = settings_for(peer, max_retries=0, timeout_s=120)  # generous: a busy machine is not a failure
        exp_id = lifecycle.prepare(store, GAIA, GaiaOptions(source=f"questions:{questions}", tools=["web"]), settings,
                                   concurrency=1)
        summary = lifecycle.execute(store, exp_id, settings)
        assert any("Read the page" in first_user_text(r.body) for r in peer.chat_requests())
    (sample,) = store.samples(exp_id)
    assert summary["errors"] == 0, sample.error
    return sample.trajectory[0]["tool_results"][0]


def test_the_endpoint_allow_list_does_not_open_the_web_tool_its_own_variable_does(store, tmp_path, web_env):
    with WebServer() as web:
        refused = fetch_once(store, tmp_path, web.url("/admin"))
        assert web.paths == []  # nothing was sent to the private service
        assert refused["error"] == "web_unavailable" and SECRET not in refused["content"]
        assert "public addresses only" in refused["content"] and "EVALUI_WEB_ALLOW_HOSTS" in refused["content"]

        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        allowed = fetch_once(store, tmp_path / "again", web.url("/admin"))
        assert allowed["error"] is None and SECRET in allowed["content"] and web.paths == ["/admin"]


def test_the_operators_search_engine_is_reachable_for_searches_only(web_env):
    search, fetch = web_tools()
    with WebServer() as web:
        backend = HttpWebBackend(search_url=web.url("/search?q={query}&format=json"))
        context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=backend)
        found = search.run({"query": "gaia benchmark"}, context)
        assert found.error is None and "https://example.org/gaia" in found.content
        assert web.paths == ["/search?q=gaia+benchmark&format=json"]
        page = fetch.run({"url": web.url("/admin")}, context)  # the same host, asked for by the model
        assert page.error == "web_unavailable" and web.paths == ["/search?q=gaia+benchmark&format=json"]


def test_a_slow_drip_is_cut_by_the_overall_deadline(store, tmp_path, web_env):
    web_env.setenv("EVALUI_WEB_FETCH_DEADLINE_S", "3")
    with WebServer() as web:
        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        result = fetch_once(store, tmp_path, web.url("/drip"))
        assert result["error"] == "timeout"
        assert result["content"] == ("the page was not fetched: the download took longer than 3 s (the web tool's "
                                     "limit for one page, redirects included) and was cut off")
        fetch = web_tools()[1]
        context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=HttpWebBackend(search_url=""))
        headers = fetch.run({"url": web.url("/drip-headers")}, context)
        assert headers.error == "timeout" and "took longer than 3 s" in headers.content


def test_every_redirect_is_checked_again(web_env):
    fetch = web_tools()[1]
    context = ToolContext(GaiaQuestion("t", "q", "a", "1"), Limits(), web=HttpWebBackend(search_url=""))
    with WebServer() as web:
        web_env.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{web.port}")
        hop = fetch.run({"url": web.url("/hop")}, context)  # to localhost, a name the operator did not give
        assert web.paths == ["/hop"]
        assert hop.error == "web_unavailable" and "'localhost' resolves to a loopback" in hop.content
