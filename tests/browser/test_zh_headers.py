"""A Chinese browser reads the tables' headers in Chinese (the API and the exports keep English)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
WAIT = 60_000


def test_table_headers_follow_the_browser_language(browser, app_url):
    for locale, headers in (("zh-CN", ("编号", "类别", "判定", "延迟（秒）")), ("en-US", ("id", "category", "verdict"))):
        context = browser.new_context(locale=locale)
        page = context.new_page()
        page.goto(app_url)
        table = page.locator("#bfcl-samples")
        table.get_by_text(headers[1], exact=True).first.wait_for(timeout=WAIT)
        text = table.inner_text()
        assert all(header in text for header in headers), text[:300]
        if locale == "zh-CN":
            assert "verdict" not in text and "latency s" not in text
        context.close()
