"""What the AIME steps write beside a generated file, and the report over all three steps."""

from __future__ import annotations

import json
from pathlib import Path

from evalui.benchmarks.aime import report as aime_report


def write_evaluation_report(generation: dict, judge: dict, winrate: dict) -> str:
    folder = Path(generation["out_dir"])
    stem = Path(generation["output"]).stem
    return str(aime_report.write_comprehensive_report(folder, stem, generation, judge, winrate))


def generated_files(root: Path) -> list[Path]:
    """Generated AIME files under ``root``, newest first (not the judge, reviews or export files beside them)."""
    from evalui.review.uploads import is_companion

    found = [p for p in root.rglob("aime_generated_*.json") if not is_companion(p)]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def companion(path: Path, suffix: str) -> Path:
    """A file written beside a generated file: ``<stem>_judge.json``, ``<stem>_winrate.json``, …"""
    return path.with_name(f"{path.stem}{suffix}")


def read_companion_summary(path: Path, suffix: str) -> dict | None:
    target = companion(path, suffix)
    if not target.is_file():
        return None
    try:
        return json.loads(target.read_text(encoding="utf-8"))["summary"]
    except (json.JSONDecodeError, KeyError):
        return None
