"""Headless Debian Chromium driven by Playwright, against the real app on 127.0.0.1."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
# Gradio compresses each of a page's ~60 scripts anew on every load (brotli): about 0.4 s of the
# in-process server's CPU per page, which over loopback buys nothing. The tests' pages ask for none.
UNCOMPRESSED = {"Accept-Encoding": "identity"}


class LoopbackBrowser:
    """The session's Browser, whose new pages and contexts ask for uncompressed responses."""

    def __init__(self, browser):
        self._browser = browser

    @staticmethod
    def _options(options: dict) -> dict:
        return {**options, "extra_http_headers": {**UNCOMPRESSED, **(options.get("extra_http_headers") or {})}}

    def new_context(self, **options):
        return self._browser.new_context(**self._options(options))

    def new_page(self, **options):
        return self._browser.new_page(**self._options(options))

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which("chromium"):
        pytest.fail("Debian's chromium is not installed: run `make browser` (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield LoopbackBrowser(browser)
        browser.close()


@pytest.fixture()
def launch_app(monkeypatch, tmp_path):
    """Start the dashboard with the given environment; returns its URL. Closed after the test."""
    demos = []

    def launch(env: dict[str, str]) -> str:
        monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        from app_client import launch_demo

        import app

        demo = app.build_demo()
        demo.queue()
        _, url, _ = launch_demo(demo)
        demos.append(demo)
        return url

    yield launch
    for demo in demos:
        demo.close()



@pytest.fixture(autouse=True)
def close_pages_after_each_test(request):
    """A page left open keeps polling its app (the launcher's timer) until the session ends: dozens of
    them took most of the machine's CPU and slowed every later test. Each test's pages go with it."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()
