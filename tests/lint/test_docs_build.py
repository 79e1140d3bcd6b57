"""The docs site builds strictly, and README stays short.

`mkdocs build --strict` fails on a broken link, a missing page or an include (SECURITY.md and
bench/RESULTS.md are pulled into the site by pymdownx.snippets) that is not there. The build needs no
network: Material's fonts are off (`theme.font: false`) and no plugin fetches anything.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
README_LIMIT = 10_240  # bytes (issue 40: a README people read in two minutes)


class _Loader(yaml.SafeLoader):
    """mkdocs.yml uses mkdocs' own tags (`!relative`); the nav check only needs their presence."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _nav_pages(items):
    for item in items:
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for value in item.values():
                if isinstance(value, str):
                    yield value
                else:
                    yield from _nav_pages(value)


def test_readme_is_at_most_10_kb():
    size = (ROOT / "README.md").stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes; move detail into docs/ (limit {README_LIMIT})"


def _generated_pages() -> set[str]:
    """The reference pages the docs build's hook (docs/hooks/reference.py) adds: not files in docs/."""
    hook = ROOT / "docs" / "hooks" / "reference.py"
    spec = importlib.util.spec_from_file_location("evalui_docs_reference_hook", hook)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.PAGES)


def test_every_page_in_the_nav_exists():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    docs_dir = ROOT / config.get("docs_dir", "docs")
    pages = [p for p in _nav_pages(config["nav"]) if "://" not in p]
    assert pages
    generated = _generated_pages()
    missing = [p for p in pages if p not in generated and not (docs_dir / p).is_file()]
    assert not missing, f"pages in mkdocs.yml's nav that docs/ does not have: {missing}"


def test_mkdocs_build_strict_passes(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    # the included files are really in the site, not an empty page
    assert "Limits" in (tmp_path / "site" / "deploy" / "security" / "index.html").read_text()
    assert "History" in (tmp_path / "site" / "benchmarks-and-timings" / "index.html").read_text()
