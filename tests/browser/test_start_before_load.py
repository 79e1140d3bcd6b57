"""A Start clicked while the page's load events are still on their way: the load (which reopens the
session's remembered run, none on a fresh page) must not overwrite the run the click started.

Chromium holds the page's load events back for a few seconds, as a busy server or a slow link
would; the test then starts a BFCL run at once and reads the status line."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from peers import SENTINEL_KEY
from playwright.sync_api import expect

from support.bfcl_oracle import BfclOracle
from support.openai_peer import ScriptedPeer

pytestmark = pytest.mark.browser

HELD_S = 4.0
SAMPLES = 2


HOLD_LOADS_JS = """
window.__heldLoads = 0;
window.__sentLoads = 0;
const sendNow = window.fetch.bind(window);
window.fetch = async (resource, init) => {
  const address = typeof resource === 'string' ? resource : resource.url;
  if (address.includes('/queue/join') && init && typeof init.body === 'string') {
    const asked = JSON.parse(init.body).fn_index;
    if (%(loads)s.includes(asked)) {
      window.__heldLoads += 1;
      await new Promise(resolve => setTimeout(resolve, %(held_ms)d));
      const answer = await sendNow(resource, init);
      window.__sentLoads += 1;
      return answer;
    }
  }
  return sendNow(resource, init);
};
"""


def load_events(url: str) -> set[int]:
    """The ids of the app's events that a page load triggers, from its public config."""
    config = httpx.get(url.rstrip("/") + "/config", timeout=30).json()
    return {dependency["id"] for dependency in config["dependencies"]
            if any(target[1] == "load" for target in dependency["targets"])}


def test_a_start_clicked_before_the_load_returned_keeps_its_run(browser, launch_app):
    oracle = BfclOracle(["simple_python"])
    with ScriptedPeer(lambda body, n: oracle.gold_reply(body)) as peer:
        url = launch_app({"OPENAI_BASE_URL": peer.base_url, "OPENAI_API_KEY": SENTINEL_KEY})
        loads = load_events(url)
        assert loads
        page = browser.new_page()
        # The page's own fetch holds the load events back (its first requests, before any click).
        page.add_init_script(HOLD_LOADS_JS % {"loads": json.dumps(sorted(loads)), "held_ms": int(HELD_S * 1000)})
        page.goto(url)
        page.get_by_text("Endpoint (any OpenAI-compatible server)").click()
        page.locator("#endpoint-model").get_by_role("textbox").fill("scripted-model")
        page.locator("#bfcl-limit input").fill(str(SAMPLES))
        page.locator("#bfcl-start").click(timeout=30_000)
        assert page.evaluate("window.__heldLoads") > 0  # the load events were held while the form was filled
        status = page.locator("#bfcl-status")
        expect(status).to_contain_text(f"{SAMPLES}/{SAMPLES} done", timeout=60_000)
        page.wait_for_function("window.__sentLoads === window.__heldLoads", timeout=30_000)
        time.sleep(3)  # the loads' outputs, streamed once they ran, have been drawn by now
        expect(status).to_contain_text(f"{SAMPLES}/{SAMPLES} done")
