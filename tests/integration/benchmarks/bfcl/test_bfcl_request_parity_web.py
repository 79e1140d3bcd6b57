"""evalui asks what the leaderboard asks for web search: evalui's requests equal those of bfcl-eval's
own OpenAI chat-completions handler, in FC and prompt mode, for both snippet settings.

bfcl's side is its ``OpenAICompletionsHandler.inference`` with bfcl's own ``WebSearchAPI`` (its
SerpAPI client pointed at a local SerpAPI and page server), its one SDK call replaced by the web
oracle's reply; evalui's side is its agentic player on its web backend through the same server
while recording, then from that recording alone. The oracle searches, fetches a page (a local one,
a Latin-1 one, a redirect, one that is gone, in bfcl's three fetch modes) and answers: gold, wrong,
or never stopping.
"""

from __future__ import annotations

import pytest
from bfcl_web_server import SERPAPI_KEY, FakeWeb

from evalui.benchmarks.bfcl.agentic.data import load_agentic_category
from evalui.benchmarks.bfcl.agentic.web_search import WebSearchOptions, check_web_options
from support.bfcl_agentic_oracle import WebSearchOracle
from support.bfcl_parity import AgenticSides, OfficialHandler

CATEGORIES = ("web_search_base", "web_search_no_snippet")
QUESTIONS = 6
PAGES = ("/page", "/latin", "/page", "/moved", "/gone")  # by question number; 2 never fetches


@pytest.fixture
def web(monkeypatch):
    from serpapi.serp_api_client import SerpApiClient

    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()
    for name in ("EVALUI_BFCL_WEB_SEARCH", "EVALUI_WEB_SEARCH_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SERPAPI_API_KEY", SERPAPI_KEY)
    with FakeWeb() as server:
        monkeypatch.setattr(SerpApiClient, "BACKEND", server.url(""))  # bfcl's own client, to the local server
        monkeypatch.setenv("EVALUI_SERPAPI_URL", server.url(""))
        monkeypatch.setenv("EVALUI_WEB_ALLOW_HOSTS", f"127.0.0.1:{server.port}")
        yield server


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_web_search_requests_equal_bfcl_handler_live_and_replayed(web, parity_client, tmp_path, mode):
    oracle = WebSearchOracle(list(CATEGORIES), [web.url(p) for p in PAGES], wrong={"1", "4"}, endless={"2"})
    handler = OfficialHandler(mode)
    recording = str(tmp_path / "web")
    for options in (WebSearchOptions(provider="serpapi", record_dir=recording), WebSearchOptions(replay_dir=recording)):
        sides = AgenticSides(handler, parity_client, tmp_path / options.mode, check_web_options(options))
        problems = []
        for category in CATEGORIES:
            for entry in load_agentic_category(category)[:QUESTIONS]:
                problems += sides.compare(category, entry.id, lambda body: oracle.reply(body).body)
        assert not problems, f"{options.mode}:\n" + "\n".join(problems[:20])
        # Per question: a search, a fetch and the answer (3 requests); 21 for the one that never stops.
        assert sides.requests == len(CATEGORIES) * (3 * (QUESTIONS - 1) + 21), options.mode
    assert any(r.startswith("/gone") for r in web.requests) and any(r.startswith("/moved") for r in web.requests)
