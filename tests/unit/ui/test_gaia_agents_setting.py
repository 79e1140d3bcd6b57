"""The GAIA tab offers the agents the operator names in EVALUI_AGENTS, and no others."""

from __future__ import annotations

import pytest

from evalui.ui.tabs.gaia import allowed_agents

pytestmark = pytest.mark.unit


def test_the_operators_agents_are_offered_in_order(monkeypatch):
    monkeypatch.setenv("EVALUI_AGENTS", " my_pkg.agent:answer , ,other:Agent.run ")
    assert allowed_agents() == ["my_pkg.agent:answer", "other:Agent.run"]


@pytest.mark.parametrize("value", [None, "", "  ,  "])
def test_unset_or_empty_offers_none(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("EVALUI_AGENTS", raising=False)
    else:
        monkeypatch.setenv("EVALUI_AGENTS", value)
    assert allowed_agents() == []
