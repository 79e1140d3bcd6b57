"""The leaderboard's CSV files for one run, written by bfcl-eval's own ``generate_leaderboard_csv``.

``bfcl evaluate`` writes ``data_overall.csv``, ``data_non_live.csv``, ``data_live.csv``,
``data_multi_turn.csv``, ``data_agentic.csv`` and ``data_format_sensitivity.csv`` from a table of
per-category scores; evalui hands the same function the same table built from its verdicts, so the
columns, the rounding, the "N/A" of categories not run and the ranking are bfcl-eval's.

That function looks the model up in bfcl-eval's model registry (``MODEL_CONFIG_MAPPING``) for the
name, link, organisation and licence it prints. A model bfcl-eval knows by the run's model name is
printed as the leaderboard prints it; any other is registered for the call under a throwaway key,
with its own name and "N/A" for the rest, and removed afterwards. A run may name the registry
model it stands for (``leaderboard_model``): its CSVs are then the ones ``bfcl evaluate --model``
writes for that model.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid
from pathlib import Path

from evalui.benchmarks.bfcl.scoring.leaderboard import official_helper, official_table

CSV_FILES = ("data_overall.csv", "data_non_live.csv", "data_live.csv", "data_multi_turn.csv", "data_agentic.csv",
             "data_format_sensitivity.csv")


def _registered(mapping, model: str) -> str | None:
    """The table key under which bfcl finds ``model`` itself (it reads '_' in a key as '/')."""
    key = model.replace("/", "_")
    return key if model in mapping and key.replace("_", "/") == model else None


def registry_entry(model: str):
    """bfcl-eval's registry entry for ``model`` (its stand-in's, which holds the same fields), or None."""
    registry = official_helper().MODEL_CONFIG_MAPPING
    key = _registered(registry, model)
    return registry[key] if key else None


def write_leaderboard_csvs(folder: Path, by_category: dict[str, dict], model: str, mode: str,
                           format_sensitivity: dict | None = None) -> dict[str, Path]:
    """Write the six CSVs into ``folder``; returns them by file stem. Nothing is written when
    ``WANDB_BFCL_PROJECT`` is set, since bfcl's writer would then upload the tables to W&B.
    ``format_sensitivity`` is the header of bfcl's format-sensitivity score file (the table row
    ``bfcl evaluate`` reads back from it), when the run has that category."""
    if os.getenv("WANDB_BFCL_PROJECT") not in (None, "", "ENTITY:PROJECT"):
        return {}
    from evalui.benchmarks.bfcl.registry import RegistryEntry

    eval_runner_helper = official_helper()
    generate_leaderboard_csv = eval_runner_helper.generate_leaderboard_csv
    # The registry the writer reads: bfcl-eval's own, or its stand-in (evalui.benchmarks.bfcl.registry).
    registry = eval_runner_helper.MODEL_CONFIG_MAPPING

    key = _registered(registry, model)
    temporary = None
    if key is None:
        # bfcl joins cells with bare commas: a comma or a line break in the name would shift columns.
        shown = re.sub(r"[,\r\n]+", " ", model).strip() or "model"
        temporary = key = f"evalui-{uuid.uuid4().hex}"
        # The writer reads only plain fields of an entry: bfcl's ModelConfig is not needed for it.
        registry[key] = RegistryEntry(model_name=model, display_name=shown, url="N/A", org="N/A",
                                      license="N/A", model_handler="", is_fc_model=mode == "fc",
                                      underscore_to_dot=mode == "fc")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # its progress line is not the CLI's output
            table = official_table(by_category)
            if format_sensitivity:
                table["format_sensitivity"] = dict(format_sensitivity)
            generate_leaderboard_csv({key: table}, folder)
    finally:
        if temporary:
            registry.pop(temporary, None)
    return {name.removesuffix(".csv"): folder / name for name in CSV_FILES}
