"""A web on 127.0.0.1 for BFCL's web-search tests: SerpAPI, a SearXNG endpoint and a few pages.

It logs every request it gets (path and query), so a test can say that nothing reached it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SERPAPI_KEY = "serp-sentinel-key-0d9c41b7e2"

RESULTS = [{"title": f"Result {i} — Zürich", "url": f"https://example.org/r{i}",
            "content": f"Snippet {i} of <b>it</b>"} for i in range(12)]

HTML = """<!DOCTYPE html><html><head><title>Café page</title><style>body {color: red}</style>
<script>var secret = "not text";</script></head>
<body><h1>Prices in April 2025</h1><p>The <a href="/about">price</a> was <b>42 €</b>.</p>
<ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr></table></body></html>"""
# Latin-1 bytes and no charset: requests decodes text/html as ISO-8859-1 then.
LATIN = "<html><body><p>Gr\xfc\xdfe aus K\xf6ln</p></body></html>".encode("latin-1")


def serpapi_payload(query: str) -> dict:
    return {"search_metadata": {"id": "abc", "status": "Success"},
            "search_parameters": {"engine": "duckduckgo", "q": query},
            "organic_results": [{"position": i + 1, "title": r["title"], "link": r["url"], "snippet": r["content"],
                                 "favicon": "https://example.org/f.ico"} for i, r in enumerate(RESULTS)]}


class FakeWeb:
    def __init__(self):
        self.requests: list[str] = []
        self.serpapi_queries: list[dict] = []
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                web.requests.append(self.path)
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                route = getattr(web, "route_" + parts.path.strip("/").replace("/", "_").replace("-", "_"), None)
                status, kind, body, extra = route(query) if route else (404, "text/html", b"<p>no</p>", {})
                self.send_response(status)
                if kind:
                    self.send_header("content-type", kind)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    # --- SerpAPI ---
    def route_search(self, query):
        self.serpapi_queries.append(query)
        if query.get("api_key") != SERPAPI_KEY:
            return 401, "application/json", json.dumps({"error": "Invalid API key."}).encode(), {}
        if query["q"] == "nothing at all":
            return 200, "application/json", json.dumps({"search_metadata": {"status": "Success"}}).encode(), {}
        return 200, "application/json", json.dumps(serpapi_payload(query["q"])).encode(), {}

    # --- SearXNG ---
    def route_searxng(self, query):
        return 200, "application/json", json.dumps({"query": query.get("q"), "results": RESULTS}).encode(), {}

    # --- pages ---
    def route_page(self, query):
        return 200, "text/html; charset=utf-8", HTML.encode("utf-8"), {}

    def route_latin(self, query):
        return 200, "text/html", LATIN, {}

    def route_moved(self, query):
        return 302, "text/html", b"", {"location": "/page"}

    def route_inside(self, query):  # a redirect into another loopback address, never opened
        return 302, "text/html", b"", {"location": f"http://127.0.0.2:{self.port}/page"}

    def route_gone(self, query):
        return 410, "text/html", b"<p>gone</p>", {}

    def __enter__(self) -> FakeWeb:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __exit__(self, *exc) -> None:
        if self.thread.is_alive():
            self.stop()


class CannedWeb:
    """A ``module:attr`` web backend (the GAIA web tool's interface): results and pages from memory."""

    asked: list[str] = []

    def search(self, query: str, limit: int) -> list[dict]:
        CannedWeb.asked.append(query)
        return [dict(r) | {"snippet": r["content"]} for r in RESULTS][:limit]

    def fetch(self, url: str) -> str:
        CannedWeb.asked.append(url)
        return HTML
