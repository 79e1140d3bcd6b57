"""Outside code that evalui loads by name: benchmarks from installed distributions (the entry-point
group ``evalui.benchmarks``), from EVALUI_BENCHMARKS, a GAIA agent module and a web backend. Each
is a ``module:attr`` resolved by pkgutil.resolve_name, and each failure says what could not load.

The installed distribution is a dist-info folder made by the test, on the PYTHONPATH of a fresh
interpreter: what `pip install` of a package declaring the entry point leaves behind."""
from __future__ import annotations

import pytest

from evalui.benchmarks.gaia.agent import load_agent
from evalui.benchmarks.gaia.tools.web import load_backend
from evalui.core import registry
from evalui.errors import InputError


def test_a_registry_target_that_is_not_the_named_spec_is_refused(monkeypatch):
    monkeypatch.setenv(registry.EXTRA_ENV, "toy=toy_benchmark:BENCHMARK,other=toy_benchmark:BENCHMARK,"
                                           "module=toy_benchmark")
    assert registry.get("toy").title == "Toy sums"
    with pytest.raises(TypeError, match="toy_benchmark:BENCHMARK is not the Benchmark spec named 'other'"):
        registry.get("other")
    with pytest.raises(TypeError, match="toy_benchmark is not the Benchmark spec named 'module'"):
        registry.get("module")
    with pytest.raises(KeyError, match="unknown benchmark 'nope'"):
        registry.get("nope")


AGENT = """
class Agent:
    def answer(self, record):
        return "42"

class Web:
    def search(self, query, limit):
        return []

    def fetch(self, url):
        return ""

NOT_AN_AGENT = 3
"""


def test_agent_and_web_backend_modules_load_or_say_why_not(tmp_path, monkeypatch):
    (tmp_path / "plugin_agent_mod.py").write_text(AGENT)
    (tmp_path / "plugin_broken_mod.py").write_text("import os\nos.no_such_thing\n")
    monkeypatch.chdir(tmp_path)  # load_agent looks beside the working folder
    monkeypatch.syspath_prepend(str(tmp_path))

    assert load_agent("plugin_agent_mod:Agent").answer({}) == "42"
    refusals = {
        "plugin_agent_mod:Nope": "module 'plugin_agent_mod' has no attribute 'Nope'",
        "plugin_missing_mod:Agent": "cannot import the agent module 'plugin_missing_mod': No module named 'plugin_missing_mod'",
        "plugin_broken_mod:Agent": "cannot import the agent module 'plugin_broken_mod': module 'os' has no attribute 'no_such_thing'",
        "plugin_agent_mod:NOT_AN_AGENT": "plugin_agent_mod:NOT_AN_AGENT has no answer(record) method",
        "plugin_agent_mod": "--agent takes module:attr (for example my_agent:MyAgent), not 'plugin_agent_mod'",
        "my agent:Agent": "--agent takes module:attr (for example my_agent:MyAgent), not 'my agent:Agent'",
    }
    for spec, message in refusals.items():
        with pytest.raises(InputError) as refused:
            load_agent(spec)
        assert str(refused.value) == message

    assert load_backend("plugin_agent_mod:Web").search("q", 1) == []
    assert load_backend("") is None
    with pytest.raises(InputError, match=r"EVALUI_WEB_BACKEND: cannot load the web backend 'plugin_agent_mod:Gone' "
                                         r"\(AttributeError: module 'plugin_agent_mod' has no attribute 'Gone'\)"):
        load_backend("plugin_agent_mod:Gone")
    with pytest.raises(InputError, match="plugin_agent_mod:Agent has no search"):
        load_backend("plugin_agent_mod:Agent")
    with pytest.raises(InputError, match="EVALUI_WEB_BACKEND is http or module:attr, not 'ftp'"):
        load_backend("ftp")


def test_benchmarks_and_scanners_load_through_one_loader_with_one_error(monkeypatch, caplog):
    """evalui.core.plugins loads both registries' targets: a target that cannot load is a PluginError (an
    ImportError) for a benchmark, and the same words in a warning for a scanner, which is left out."""
    from evalui.core import plugins
    from evalui.scanners import registry as scanners

    monkeypatch.setenv(registry.EXTRA_ENV, "gone=toy_benchmark:NOPE, toy = toy_benchmark:BENCHMARK")
    assert plugins.from_env(registry.EXTRA_ENV) == {"gone": "toy_benchmark:NOPE", "toy": "toy_benchmark:BENCHMARK"}
    with pytest.raises(plugins.PluginError) as refused:
        registry.get("gone")
    assert isinstance(refused.value, ImportError) and registry.find("gone") is None
    assert str(refused.value) == ("benchmark 'gone': cannot load 'toy_benchmark:NOPE' "
                                  "(AttributeError: module 'toy_benchmark' has no attribute 'NOPE')")

    monkeypatch.setenv(scanners.EXTRA_ENV, "gone=toy_benchmark:NOPE,toy=toy_benchmark:BENCHMARK,refusal=x:y")
    with caplog.at_level("WARNING", logger=scanners.log.name):
        found = scanners.scanners()
    assert set(found) == set(scanners.built_in()) and found["refusal"] is scanners.built_in()["refusal"]
    assert [r.getMessage() for r in caplog.records] == [
        "scanner 'gone': cannot load 'toy_benchmark:NOPE' (AttributeError: module 'toy_benchmark' has no attribute 'NOPE')",
        "scanner 'toy': toy_benchmark:BENCHMARK is not the Scanner named 'toy'",
        "ignored the scanner refusal = x:y: 'refusal' is a built-in scanner"]
