import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def official_runner():
    """bfcl-eval's own per-entry evaluation functions and handlers, the reference for agreement."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-test-not-a-real-key")
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl-eval is first imported
    from bfcl_eval.eval_checker import eval_runner

    return eval_runner


@pytest.fixture()
def store(tmp_path, monkeypatch):
    """A run store in a fresh data folder (``tmp_path / "data"``), closed after the test."""
    from evalui.engine.store import RunStore

    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    store = RunStore()
    yield store
    store.close()


@pytest.fixture()
def app_url(monkeypatch, tmp_path):
    """The dashboard, launched in this process on a free port, for one user's own data folder: no
    allow-list, not a Space, no server endpoint. Closed after the test."""
    monkeypatch.setenv("EVALUI_DATA_DIR", str(tmp_path / "data"))
    for name in ("EVALUI_ALLOWED_USERS", "SPACE_ID", "EVALUI_SHARED", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **app.launch_options())
    yield url
    demo.close()


@pytest.fixture(scope="module")
def parity_client():
    """evalui's side of a request-parity comparison: its ModelClient, building bodies without HTTP."""
    from evalui.testing.bfcl_parity import OfflineClient

    client = OfflineClient()
    yield client
    client.close()


LAYERS = ("unit", "integration", "browser")


def pytest_collection_modifyitems(config, items):
    """Each test carries its layer's marker, from its folder: ``-m unit`` equals ``tests/unit``."""
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        if folder in LAYERS:
            item.add_marker(folder)
