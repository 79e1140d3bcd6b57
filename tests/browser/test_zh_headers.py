"""A Chinese browser reads the runs table's headers in Chinese (the API and the exports keep English)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
WAIT = 60_000


def test_table_headers_follow_the_browser_language(browser, app_url):
    # The runs list is the table left on the page (#38: a run's samples are the viewer's list).
    for locale, tab, headers in (("zh-CN", "运行记录", ("运行 ID", "基准", "状态", "用时（秒）")),
                                 ("en-US", "Runs", ("exp_id", "benchmark", "status"))):
        context = browser.new_context(locale=locale)
        page = context.new_page()
        page.goto(app_url)
        page.get_by_role("tab", name=tab, exact=True).click()
        table = page.locator("#runs-table")
        table.get_by_text(headers[1], exact=True).first.wait_for(timeout=WAIT)
        text = table.inner_text()
        assert all(header in text for header in headers), text[:300]
        if locale == "zh-CN":
            assert "benchmark" not in text and "duration s" not in text
        context.close()
