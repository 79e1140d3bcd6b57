"""evalui's architecture as import-linter contracts (.importlinter): the layers, a pure scoring
package, a CLI without gradio, and no import cycle. The second test shows the contracts catch a
break, lazy imports included, on a copy of the package."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".importlinter"
STATUS = re.compile(r"^(.+) (KEPT|BROKEN)(?: \(\d+ ignored imports?\))?$")



def test_the_import_contracts_hold():
    # In a process of its own: lint-imports configures logging with dictConfig, which disables every
    # logger already made, so evalui's warnings would vanish from the later tests of this process.
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--config", str(CONFIG), "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _lint_copy(folder: Path) -> subprocess.CompletedProcess:
    """lint-imports over the copy in ``folder`` (found first on sys.path), with the project's config."""
    script = ("import sys, evalui\n"
              f"assert evalui.__file__.startswith({str(folder)!r}), evalui.__file__\n"
              "from importlinter.cli import lint_imports\n"
              f"sys.exit(lint_imports(config_filename={str(CONFIG)!r}, no_cache=True, no_logo=True))\n")
    return subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=600)


def test_the_contracts_catch_a_lazy_gradio_import_in_the_cli_and_a_cycle(tmp_path):
    shutil.copytree(ROOT / "evalui", tmp_path / "evalui", ignore=shutil.ignore_patterns("__pycache__", "data"))
    with (tmp_path / "evalui" / "cli" / "common.py").open("a") as cli:
        cli.write("\n\ndef _page():\n    import gradio  # noqa: F401\n")
    with (tmp_path / "evalui" / "benchmarks" / "gaia" / "results.py").open("a") as results:
        results.write("\n\ndef _entry_points():\n    from evalui.benchmarks.gaia.tables import tasks_frame  # noqa: F401\n")
    with (tmp_path / "evalui" / "stats" / "metrics.py").open("a") as metrics:
        metrics.write("\n\ndef _store():\n    from evalui.store.run_store import RunStore  # noqa: F401\n")
    with (tmp_path / "evalui" / "store" / "rows.py").open("a") as rows:
        rows.write("\n\ndef _client():\n    from evalui.endpoint.client import ModelClient  # noqa: F401\n")

    done = _lint_copy(tmp_path)

    assert done.returncode == 1, done.stdout + done.stderr
    status = dict(m.groups() for m in map(STATUS.match, done.stdout.splitlines()) if m)
    assert status == {
        "evalui's layers, top to bottom": "BROKEN",  # stats under the store; the store beside the endpoint
        "The run core: Run, then lifecycle, runner, a sample's run": "KEPT",
        "scoring stays pure": "BROKEN",
        "The CLI never imports gradio": "BROKEN",
        "No import cycles between sibling packages or modules, at any depth": "BROKEN",
    }, done.stdout
    assert "evalui.cli.common -> gradio" in done.stdout
    assert "evalui.store.rows -> evalui.endpoint.client" in done.stdout, done.stdout
    assert "evalui.stats.metrics -> evalui.store.run_store" in done.stdout, done.stdout
    # The planted cycle, named by either of its two edges (lint-imports picks which one to cut).
    assert "evalui.benchmarks.gaia" in done.stdout
    assert ".results -> .tables" in done.stdout or ".tables -> .results" in done.stdout, done.stdout
