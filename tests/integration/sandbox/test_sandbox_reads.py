"""The GAIA python tool's programs read the interpreter and its libraries, never the stored runs.

Run as the app is run from the project folder (``python app.py``, ``python -m evalui``: the
current folder is the checkout, ``sys.path[0]`` is the checkout, the data folder lies under it),
a program must not read the data folder (the store's WAL, another run's samples), a file in the
current folder, or the checkout's own sources, while pandas still imports from the environment.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from evalui.sandbox.local import landlock_abi

pytestmark = pytest.mark.skipif(not landlock_abi(), reason="the kernel has no Landlock")
PROJECT = Path(__file__).resolve().parents[3]
SENTINEL = "sandbox-read-sentinel-" + uuid.uuid4().hex[:12]
# The GAIA agent's own path: local_sandbox (the data folder from EVALUI_DATA_DIR) and the python tool.
DRIVER = """
import json, os, sys
sys.path.insert(0, os.getcwd())  # as `python -m evalui` and `python app.py` from the project folder have it
from evalui.benchmarks.gaia.agent_loop import local_sandbox
from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.tools.base import ToolContext
from evalui.benchmarks.gaia.tools.python_tool import limits_note, python_tool
from evalui.sandbox.base import Limits

limits = Limits(wall_s=60)
sandbox = local_sandbox(None)
context = ToolContext(GaiaQuestion("t1", "q", None, "1"), limits, open_session=lambda: sandbox.open({}))
result = python_tool(limits_note(limits)).run({"code": sys.stdin.read()}, context)
context.close()
print(json.dumps({"content": result.content, "error": result.error}))
"""
PROBE = """
import json, os
outcome = {}
for label, path in json.loads(TARGETS).items():
    try:
        with open(path, errors="replace") as handle:
            outcome[label] = "read: " + handle.read(200)
    except OSError as exc:
        outcome[label] = type(exc).__name__
try:
    import evalui
    outcome["import evalui"] = "imported"
except Exception as exc:
    outcome["import evalui"] = type(exc).__name__
import pandas
outcome["pandas"] = pandas.__name__
print("OUTCOME" + json.dumps(outcome))
"""


@pytest.fixture()
def planted():
    """A data folder under the checkout (as the default ./evalui_data is) and a file beside it, removed after."""
    tag = uuid.uuid4().hex[:10]
    data = PROJECT / f".test-sandbox-data-{tag}"
    runs = data / "runs" / "another-run"
    runs.mkdir(parents=True)
    (data / "evalui.sqlite-wal").write_text(f"{SENTINEL} wal")
    (runs / "samples.jsonl").write_text(json.dumps({"answer": SENTINEL}) + "\n")
    loose = PROJECT / f".test-sandbox-file-{tag}.txt"
    loose.write_text(f"{SENTINEL} cwd")
    try:
        yield data, loose
    finally:
        shutil.rmtree(data, ignore_errors=True)
        loose.unlink(missing_ok=True)


def test_model_code_reads_no_data_no_current_folder_no_checkout(planted):
    data, loose = planted
    targets = {"wal": str(data / "evalui.sqlite-wal"), "samples": str(data / "runs/another-run/samples.jsonl"),
               "cwd file": str(loose), "checkout source": str(PROJECT / "evalui" / "config.py"),
               "via the venv": str(Path(sys.prefix) / ".." / loose.name)}
    env = {"PATH": "/usr/bin:/bin", "EVALUI_DATA_DIR": data.name, "HOME": str(Path.home())}  # relative, as the default
    done = subprocess.run([sys.executable, "-c", DRIVER], cwd=PROJECT, env=env, capture_output=True, text=True,
                          input=PROBE.replace("TARGETS", repr(json.dumps(targets))), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert SENTINEL not in result["content"] and "DATA_DIR_ENV" not in result["content"]
    outcome = json.loads(result["content"].split("OUTCOME", 1)[1].split("\n", 1)[0])
    assert outcome["pandas"] == "pandas"  # the environment's libraries stay readable
    for label in ("wal", "samples", "cwd file", "checkout source"):
        assert outcome[label] == "PermissionError", (label, outcome[label])
    if Path(sys.prefix).resolve().parent == PROJECT:  # a .venv inside the checkout is no way round
        assert outcome["via the venv"] == "PermissionError"
    assert outcome["import evalui"] != "imported"
