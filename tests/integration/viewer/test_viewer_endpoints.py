"""The viewer's named endpoints through gradio_client, on a page that never listed the runs: /runs_show,
/runs_compare_pair, /runs_compare_bucket and /runs_compare_sample, /viewer_samples, /viewer_sample and
/viewer_search take any stored id and refuse an unknown one with a clear error; and `evalui view`
writes the static bundle from the command line."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from app_client import app_client, launch_demo
from viewer_runs import HOSTILE, store_two_runs

from evalui.store.run_store import RunStore


@pytest.fixture()
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store)
    from evalui.ui import build_demo

    demo = build_demo(store)
    demo.queue()
    # The app's own launch options: its result files are served from the runs folder it allows,
    # wherever the data folder is (not because a test's folder lies in the system's temp folder).
    _, url, _ = launch_demo(demo)
    yield app_client(url, verbose=False)
    demo.close()
    store.close()


def test_stored_ids_open_through_the_api_and_unknown_ones_are_refused(client):
    shown = client.predict("cand", api_name="/runs_show")
    assert "cand" in json.dumps(shown) and "6" in json.dumps(shown)

    figures, bucket, flips, detail, record = client.predict("base", "cand", api_name="/runs_compare_pair")
    assert "McNemar" in figures and record["b"] == "cand"
    assert bucket["value"] == "broken" and ["broken (A right → B wrong): 3", "broken"] in bucket["choices"]
    broken = client.predict("base", "cand", "broken", api_name="/runs_compare_bucket")[0]
    assert "simple_python_1" in json.dumps(broken)
    pair = client.predict("base", "cand", "simple_python_1", api_name="/runs_compare_sample")
    assert 'data-mark="changed"' in pair and 'class="evalui-pair-a"' in pair and 'data-verdict="wrong"' in pair

    page = client.predict("cand", "wrong", "all", "all", "all", "", "latency_s", False, 0, api_name="/viewer_samples")
    assert page["total"] == 2 and sorted(r["id"] for r in page["rows"]) == ["simple_python_1", "simple_python_2"]
    assert all(r["verdict"] == "wrong" for r in page["rows"])
    pane = client.predict("cand", "simple_python_2", api_name="/viewer_sample")
    assert HOSTILE not in pane and "&lt;img src=x" in pane
    assert client.predict("cand", "factorial", api_name="/viewer_search") == ["simple_python_1"]

    for call, args in (("/runs_compare_pair", ("base", "no-such-run")), ("/viewer_samples", ("no-such-run",)),
                       ("/viewer_sample", ("no-such-run", "x")), ("/viewer_search", ("no-such-run", "x")),
                       ("/runs_compare_sample", ("no-such-run", "cand", "simple_python_1"))):
        with pytest.raises(Exception, match="No stored run named 'no-such-run'"):
            client.predict(*args, api_name=call)
    # Every tab's run dropdown takes any stored run through the API, and refuses an unknown one.
    assert "cand" in json.dumps(client.predict("cand", api_name="/bfcl_show"))
    for call in ("/runs_show", "/bfcl_show", "/gaia_show"):
        with pytest.raises(Exception, match="No run named"):
            client.predict("no-such-run", api_name=call)


def test_evalui_view_writes_the_bundle(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    store_two_runs(store, limit=3)
    store.close()
    done = subprocess.run([sys.executable, "-m", "evalui", "view", "cand", "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["samples"] == 3
    page = (tmp_path / "b" / "index.html").read_text(encoding="utf-8")
    data = json.loads((tmp_path / "b" / "data.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in data["rows"]] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    assert HOSTILE not in page and "<img" not in page and "http://" not in page.replace("http-equiv", "")
    refused = subprocess.run([sys.executable, "-m", "evalui", "view", "gone", "--out", str(tmp_path / "c")],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "no stored run named 'gone'" in refused.stderr
