"""The Makefile installs llama-cpp-python on its own (through pip, whose cache keeps the compiled
wheel): that pin must stay the one the `local` extra declares, or uv would replace it."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_makefile_installs_the_llama_cpp_python_the_local_extra_pins():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["local"]
    declared = next(re.sub(r"\[.*?\]", "", spec) for spec in extra if spec.startswith("llama-cpp-python"))
    made = re.search(r"^LLAMA_CPP_PYTHON := (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert made and made.group(1) == declared
