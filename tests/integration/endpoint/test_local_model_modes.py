"""The local model supports BFCL's prompt mode only: an FC run with it is refused before anything is
registered, in the dashboard's code path and the CLI's (the server itself answers tools with 400)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from evalui.benchmarks.bfcl.spec import BENCHMARK as BFCL
from evalui.benchmarks.bfcl.spec import BfclOptions
from evalui.endpoint.local import model as local_model
from evalui.endpoint.settings import EndpointSettings
from evalui.run import lifecycle


def test_an_fc_run_with_the_local_model_is_refused(store):
    settings = EndpointSettings(base_url="http://127.0.0.1:9/v1", model=local_model.MODEL_NAME)
    with pytest.raises(ValueError, match="prompt mode only"):
        lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="fc"), settings)
    assert store.experiments() == []
    assert lifecycle.prepare(store, BFCL, BfclOptions(categories=["simple_python"], limit=1, mode="prompt"), settings)


def test_the_cli_says_so(tmp_path):
    env = {**os.environ, "EVALUI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "evalui", "bfcl", "run", "--category", "simple_python", "--limit", "1",
                           "--mode", "fc", "--base-url", "http://127.0.0.1:9/v1", "--model", local_model.MODEL_NAME],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode != 0 and "prompt mode only" in done.stderr, done.stderr[-2000:]
