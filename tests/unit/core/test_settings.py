"""evalui.settings.read: the one reader of EVALUI_* variables (issue 37). It reads the environment at
each call, validates by the field's type and bounds, and falls back to the default with a warning
that names the variable and never repeats its value."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import SecretStr

from evalui.benchmarks.bfcl import settings as bfcl_settings
from evalui.settings import SettingError, parse, read, read_list


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "evalui.settings" and r.levelno == logging.WARNING]


@pytest.fixture(autouse=True)
def _warnings_logged(caplog):
    caplog.set_level(logging.WARNING, logger="evalui.settings")


def test_a_good_value_is_read_by_the_fields_type(monkeypatch, caplog):
    monkeypatch.setenv("EVALUI_CALL_SECONDS", " 2.5 ")
    monkeypatch.setenv("EVALUI_CALL_WORKERS", "3")
    monkeypatch.setenv("EVALUI_DATA_DIR", "/srv/evalui")
    monkeypatch.setenv("EVALUI_PUBLIC_READ", "yes")
    assert read("call_seconds") == 2.5
    assert read("call_workers") == 3 and isinstance(read("call_workers"), int)
    assert read("data_dir") == Path("/srv/evalui")
    assert read("public_read") is True
    monkeypatch.setenv("EVALUI_SIZE_ARGUMENT_LIMIT", "0")  # a benchmark's own model; ge=0 takes 0
    assert bfcl_settings.read("size_argument_limit") == 0
    assert not warnings(caplog)


def test_the_value_is_read_at_each_call(monkeypatch):
    monkeypatch.setenv("EVALUI_LEASE_S", "7")
    assert read("lease_s") == 7.0
    monkeypatch.setenv("EVALUI_LEASE_S", "8")
    assert read("lease_s") == 8.0
    monkeypatch.delenv("EVALUI_LEASE_S")
    assert read("lease_s") == 60.0


@pytest.mark.parametrize("value", [None, "", "   "])
def test_unset_or_empty_is_the_default_without_a_warning(monkeypatch, caplog, value):
    for name in ("EVALUI_LINE_SECONDS", "EVALUI_MAX_CALLS_PER_STEP", "EVALUI_SHARED", "EVALUI_HUB_TOKEN"):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert read("line_seconds") == 30.0
    assert read("max_calls_per_step") is None  # unset: the benchmark's own
    assert read("shared") is False
    assert read("hub_token") is None
    assert not warnings(caplog)


def test_a_refused_value_falls_back_with_one_warning_that_never_shows_it(monkeypatch, caplog):
    monkeypatch.setenv("EVALUI_CALL_SECONDS", "soon-ish")
    assert read("call_seconds") == 5.0
    assert read("call_seconds") == 5.0  # read again (a page refresh): not warned again
    [message] = warnings(caplog)
    assert "EVALUI_CALL_SECONDS" in message and "soon-ish" not in message

    secret = "hf_Sentinel5c2e8d1a7bValue"  # a token pasted into the wrong variable
    monkeypatch.setenv("EVALUI_PUBLIC_READ", secret)
    assert read("public_read") is False
    assert len(warnings(caplog)) == 2
    assert "EVALUI_PUBLIC_READ" in warnings(caplog)[1]
    assert secret not in caplog.text and "Sentinel5c2e" not in caplog.text


@pytest.mark.parametrize("value", ["0", "-3", "0.0"])
def test_a_value_out_of_bounds_falls_back(monkeypatch, caplog, value):
    monkeypatch.setenv("EVALUI_REVIEWS_REFRESH_S", value)
    assert read("reviews_refresh_s") == 4.0
    monkeypatch.setenv("EVALUI_MAX_STEP_BYTES", value)  # int | None with gt=0: back to unset
    assert read("max_step_bytes") is None
    found = warnings(caplog)
    assert any("EVALUI_REVIEWS_REFRESH_S" in m and "greater than 0" in m for m in found)
    assert any("EVALUI_MAX_STEP_BYTES" in m for m in found)
    monkeypatch.setenv("EVALUI_WEB_FETCH_DEADLINE_S", "601")  # le=600
    assert read("web_fetch_deadline_s") == 20.0


def test_parse_refuses_instead_of_falling_back(monkeypatch):
    monkeypatch.setenv("EVALUI_MAX_INPUT_MB", "-1e9")
    with pytest.raises(SettingError, match="EVALUI_MAX_INPUT_MB") as refused:
        parse("max_input_mb")
    assert "-1e9" not in str(refused.value)
    monkeypatch.setenv("EVALUI_MAX_INPUT_MB", "0.5")
    assert parse("max_input_mb") == 0.5


def test_a_token_stays_secret(monkeypatch):
    monkeypatch.setenv("EVALUI_HUB_TOKEN", "hf_token_value_1234")
    token = read("hub_token")
    assert isinstance(token, SecretStr) and token.get_secret_value() == "hf_token_value_1234"
    assert "hf_token_value_1234" not in repr(token) + str(token)


def test_lists_and_unknown_fields(monkeypatch):
    monkeypatch.setenv("EVALUI_ALLOWED_USERS", " alice, ,bob,")
    assert read_list("allowed_users") == ["alice", "bob"]
    monkeypatch.delenv("EVALUI_ALLOWED_USERS")
    assert read_list("allowed_users") == []
    with pytest.raises(KeyError):
        read("no_such_setting")


def test_the_callers_keep_their_own_fallbacks(monkeypatch, tmp_path):
    from evalui.errors import InputError
    from evalui.jsonl import check_input_file
    from evalui.run.step_limits import StepLimits
    from evalui.ui.web import visitor_runs

    # A benchmark's own step limits stand wherever the operator's are unset or refused.
    monkeypatch.setenv("EVALUI_MAX_CALLS_PER_STEP", "many")
    monkeypatch.setenv("EVALUI_MAX_STEP_BYTES", "1000")
    monkeypatch.delenv("EVALUI_MAX_SAMPLE_BYTES", raising=False)
    assert StepLimits.from_env(8, 64, 512) == StepLimits(8, 1000, 512)

    # The input size limit is refused, not defaulted, and the message names the variable only.
    small = tmp_path / "small.jsonl"
    small.write_text("{}\n")
    monkeypatch.setenv("EVALUI_MAX_INPUT_MB", "fifty")
    with pytest.raises(InputError, match="EVALUI_MAX_INPUT_MB") as refused:
        check_input_file(small)
    assert "fifty" not in str(refused.value)

    # A typo in the visitors' cap keeps a shared server's cap of 2.
    for name in ("SPACE_ID", "EVALUI_ALLOWED_USERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EVALUI_SHARED", "1")
    monkeypatch.setenv(visitor_runs.MAX_RUNS_ENV, "lots")
    assert visitor_runs.max_runs() == visitor_runs.SHARED_DEFAULT == 2
