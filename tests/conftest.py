import os
import sys
import tempfile
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
    # The real registry first: evalui's agentic scoring may have imported the eval runner with the
    # stand-in, which answers from the real registry once it is loaded (get_handler needs its classes).
    import bfcl_eval.constants.model_config  # noqa: F401
    from bfcl_eval.eval_checker import eval_runner

    return eval_runner


@pytest.fixture()
def store(tmp_path, monkeypatch):
    """A run store in a fresh data folder (``tmp_path / "data"``), closed after the test."""
    from evalui.store.run_store import RunStore

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
    from app_client import launch_demo

    import app

    demo = app.build_demo()
    demo.queue()
    _, url, _ = launch_demo(demo)
    yield url
    demo.close()


@pytest.fixture(scope="module")
def parity_client():
    """evalui's side of a request-parity comparison: its ModelClient, building bodies without HTTP."""
    from support.bfcl_parity import OfflineClient

    client = OfflineClient()
    yield client
    client.close()


LAYERS = ("unit", "integration", "browser", "lint")
GRADIO_PORTS_PER_WORKER = 100  # Gradio tries this many ports from GRADIO_SERVER_PORT up


def pytest_configure(config):
    """Under pytest-xdist, each worker gets its own scratch folder and its own range of app ports.

    Tests check that work leaves no ``evalui-*`` scratch folder behind, which another worker's run
    would break in a shared /tmp; and a page left polling a closed app on 7860 must never reach the
    app another worker opened next on the same port. Subprocesses inherit both settings."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    index = int(worker.removeprefix("gw"))
    scratch = Path(tempfile.gettempdir()) / f"pytest-worker-{worker}"
    scratch.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    os.environ["GRADIO_SERVER_PORT"] = str(7860 + GRADIO_PORTS_PER_WORKER * (index + 1))


def pytest_collection_modifyitems(config, items):
    """Each test carries its layer's marker, from the first folder under tests/: ``-m unit`` equals
    ``tests/unit``, the folders that mirror evalui's packages (tests/unit/store/, ...) included."""
    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.fspath)).resolve()
        if not path.is_relative_to(tests):
            continue
        parts = path.relative_to(tests).parts
        if len(parts) > 1 and parts[0] in LAYERS:
            item.add_marker(parts[0])
