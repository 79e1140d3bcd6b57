"""The evalui command makes fewer full collections while it works, and leaves Python's defaults
in place before it returns, also after an error (its shutdown is then Python's usual one)."""
from __future__ import annotations

import gc

from evalui import cli


def test_the_cli_restores_the_thresholds_when_a_command_fails(tmp_path, capsys):
    before = gc.get_threshold()
    missing = tmp_path / "missing.json"
    status = cli.main(["bfcl", "score", "--results", str(missing), "--category", "simple_python"])
    assert status == 2 and "missing.json" in capsys.readouterr().err
    assert gc.get_threshold() == before
