"""Running the official ``bfcl evaluate`` on evalui's exported result files, for the tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def bfcl_evaluate(root: Path, model: str, result_files: list[Path], categories: str = "all") -> Path:
    """Copy the files to ``root/result/<model>/`` (where the CLI looks), run ``bfcl evaluate
    --partial-eval`` under ``BFCL_PROJECT_ROOT=root`` and return its score folder."""
    target = root / "result" / model.replace("/", "_")
    target.mkdir(parents=True, exist_ok=True)
    for path in result_files:
        (target / Path(path).name).write_text(Path(path).read_text())
    env = dict(os.environ, BFCL_PROJECT_ROOT=str(root), OPENAI_API_KEY="sk-unused")
    env.pop("WANDB_BFCL_PROJECT", None)
    bfcl = str(Path(sys.executable).parent / "bfcl")
    done = subprocess.run([bfcl, "evaluate", "--model", model, "--test-category", categories, "--partial-eval"],
                          capture_output=True, text=True, timeout=900, env=env, cwd=root)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return root / "score"


def official_verdicts(score_dir: Path, category: str, ids: list[str]) -> dict[str, bool]:
    """Per id, whether ``bfcl evaluate`` accepted it (its score file lists the failures only)."""
    path = next(score_dir.rglob(f"BFCL_v4_{category}_score.json"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    failed = {line["id"] for line in lines[1:]}
    return {entry_id: entry_id not in failed for entry_id in ids}


def official_errors(score_dir: Path, category: str) -> dict[str, str]:
    path = next(score_dir.rglob(f"BFCL_v4_{category}_score.json"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {line["id"]: line["error"]["error_type"] if isinstance(line.get("error"), dict) else line.get("error_type")
            for line in lines[1:]}
