"""evalui asks what the leaderboard asks: for every BFCL entry, in FC and prompt mode, evalui's
requests equal those of bfcl-eval's own OpenAI chat-completions handler.

bfcl's side is its ``OpenAICompletionsHandler.inference`` (single-turn, and the whole multi-turn
loop with its backends and ``miss_func`` additions), with its one SDK call replaced by a scripted
reply (support.bfcl_parity). evalui's side is its BFCL task code and ModelClient's request
body, fed the same replies. A difference fails the test with the entry, the request and the field.
The wire bodies through the OpenAI SDK and a real endpoint are compared in
test_bfcl_request_parity_http.py.

These take every 10th entry of each category; tests/integration/benchmarks/bfcl/test_bfcl_request_parity_all.py
takes every entry (3,641 single-turn and 800 multi-turn, about two minutes here).
"""

from __future__ import annotations

import pytest

from evalui.benchmarks.bfcl.request import official_entries, sanitise_name
from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES, MULTI_TURN_CATEGORIES
from support.bfcl_parity import (
    OfficialHandler,
    OfflineClient,
    compare_entry,
    first_difference,
)

MODES = ("fc", "prompt")
SAMPLE_EVERY = 10


@pytest.fixture(scope="module")
def sides():
    handlers = {mode: OfficialHandler(mode) for mode in MODES}
    client = OfflineClient()
    yield handlers, client
    client.close()


def sweep(sides, categories, mode: str, every: int = 1) -> tuple[int, list[str]]:
    handlers, client = sides
    compared, problems = 0, []
    for category in categories:
        for entry_id in list(official_entries(category))[::every]:
            problems += compare_entry(handlers[mode], client, category, entry_id)
            compared += 1
    return compared, problems


def assert_identical(compared: int, problems: list[str]) -> None:
    assert compared and not problems, (f"{len(problems)} of {compared} entries differ from bfcl's handler:\n"
                                       + "\n".join(problems[:20]))


@pytest.mark.parametrize("mode", MODES)
def test_single_turn_sample_equals_bfcl_handler(sides, mode):
    assert_identical(*sweep(sides, CATEGORIES, mode, SAMPLE_EVERY))


@pytest.mark.parametrize("mode", MODES)
def test_multi_turn_sample_equals_bfcl_loop(sides, mode):
    assert_identical(*sweep(sides, MULTI_TURN_CATEGORIES, mode, SAMPLE_EVERY))


def test_fc_tool_names_are_bfcls():
    """Every dotted function name becomes bfcl's FC tool name, and evalui's rule gives the same."""
    from evalui.benchmarks.bfcl.request import official_tools

    dotted = 0
    for category in CATEGORIES:
        for entry in official_entries(category).values():
            tools = official_tools(entry["function"])
            for function, tool in zip(entry["function"], tools, strict=True):
                assert tool["function"]["name"] == sanitise_name(function["name"]), (entry["id"], function["name"])
                dotted += "." in function["name"]
    assert dotted > 1000  # the rule is exercised (BFCL has many names like math.factorial)


def test_a_difference_names_the_entry_and_the_field(sides):
    """The comparison is not vacuous: what evalui sent before this issue fails it, by field."""
    from support.bfcl_parity import ScriptedModel, evalui_bodies, gold_of_cached

    handlers, client = sides
    entry = next(e for e in official_entries("simple_python").values() if any(
        p.get("type") == "float" for f in e["function"] for p in f["parameters"]["properties"].values()))
    script = ScriptedModel(entry, "simple_python", "fc", gold_of_cached("simple_python").get(entry["id"])).reply
    expected, _ = handlers["fc"].run(entry, script)
    actual, _ = evalui_bodies(client, "simple_python", entry["id"], "fc", script)
    assert first_difference(expected[0], actual[0]) is None
    parameters = actual[0]["tools"][0]["function"]["parameters"]["properties"]
    float_parameter = next(name for name, schema in parameters.items() if schema.get("format") == "float")
    del parameters[float_parameter]["format"]  # the float annotation evalui used to drop
    assert first_difference(expected[0], actual[0]) == (
        f".tools[0].function.parameters.properties.{float_parameter}.format: bfcl \"float\" / evalui \"<absent>\"")
    actual[0]["max_tokens"] = 1024
    del actual[0]["store"]
    assert ".store: bfcl false / evalui \"<absent>\"" in first_difference(expected[0], actual[0])


def test_the_comparison_runs_inside_a_thread_that_already_runs_a_loop(sides):
    """A browser test's app can leave an event loop running in the main thread; evalui's side of
    the comparison must not need that thread's loop (the full suite failed so once)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def inside_a_running_loop():
        handlers, client = sides
        return [p for entry_id in list(official_entries("multi_turn_base"))[:2]
                for p in compare_entry(handlers["fc"], client, "multi_turn_base", entry_id)]

    # The loop runs in a thread of the test's own: the main thread may hold Playwright's loop already.
    with ThreadPoolExecutor(max_workers=1) as thread:
        assert thread.submit(asyncio.run, inside_a_running_loop()).result() == []


@pytest.mark.parametrize("mode", MODES)
def test_multi_turn_with_bracketed_strings_and_undefined_calls_equals_bfcl_loop(sides, mode):
    """bfcl's executor rewrites words before brackets inside string arguments, and answers a call of
    an undefined function with Python's NameError text: the model reads both in later requests."""
    handlers, client = sides
    compared, problems = 0, []
    for category in MULTI_TURN_CATEGORIES:
        for entry_id in list(official_entries(category))[::SAMPLE_EVERY * 2]:
            problems += compare_entry(handlers[mode], client, category, entry_id, planted=True)
            compared += 1
    assert_identical(compared, problems)
