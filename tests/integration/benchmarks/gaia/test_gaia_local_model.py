"""The bundled GAIA sample, offline, end to end with the real local model and the tool agent."""

from __future__ import annotations

import json
from pathlib import Path

from evalui.endpoint.local import model as local_model
from integration.endpoint.test_local_model import local_server, run_cli  # noqa: F401  (local_server is a fixture)
from integration.endpoint.test_local_model import trajectories as stored_trajectories


def test_bundled_sample_with_python_and_files_tools(local_server, tmp_path):  # noqa: F811
    done = run_cli("gaia", "run", "--sample", "--tools", "python,files", "--max-steps", "3", "--tool-timeout", "10",
                   "--base-url", local_server.base_url, "--model", local_model.MODEL_NAME, "--max-tokens", "16",
                   "--concurrency", "1", "--timeout", "120", "--exp-id", "local-agent", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["total"] == 6 and summary["status"] == "finished" and summary["errors"] == 0
    assert summary["steps_mean"] >= 1
    trajectories = list(stored_trajectories(tmp_path, "local-agent").values())
    assert len(trajectories) == 6 and all(t and any(s["text"].strip() for s in t) for t in trajectories)
    exported = Path(summary["out_dir"], "samples.jsonl").read_text().splitlines()
    assert len(exported) == 6 and all(json.loads(line)["steps"] >= 1 for line in exported)
