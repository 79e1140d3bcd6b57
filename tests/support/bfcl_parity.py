"""What bfcl-eval's own OpenAI chat-completions handler sends, next to what evalui sends.

``OfficialHandler`` runs bfcl's ``OpenAICompletionsHandler.inference`` (its single-turn and
multi-turn loops, unchanged), in process with scripted replies or over HTTP to an endpoint.
``evalui_bodies`` plays the same entry through evalui's task code with ``ModelClient.request_body``
and ``parse_completion`` (the body evalui puts on the wire, the reply as evalui reads it), fed by
the same script.
``first_difference`` names the first field where two bodies differ.

Agentic entries (memory, web search) are compared by ``AgenticSides``: bfcl's handler plays bfcl's
own entry (``initial_config`` filled as ``bfcl generate`` fills it, memory snapshots under a folder
of its own), evalui plays its entry through its agentic player and backends (snapshots under
another folder), a memory scenario's prereq conversations first, on both sides, in order. Their
scripts are the agentic oracles (support.bfcl_agentic_oracle), which answer from the request.

The script (``ScriptedModel``) answers from the request alone, so both sides get the same replies
whenever they sent the same requests: per conversation step, the entry's gold calls for the turn
(FC tool calls or prompt text), sometimes preceded by a call the backend rejects and with extra
message fields, then a text answer that ends the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import io
import json
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

from evalui.benchmarks.bfcl.gold import fc_arguments, gold_calls, prompt_text
from evalui.benchmarks.bfcl.request import official_entries, sanitise_name
from evalui.benchmarks.bfcl.scoring.single_turn import MULTI_TURN_CATEGORIES, RELEVANCE_CATEGORIES, language_of
from support.openai_peer import Reply

PARITY_MODEL = "bfcl-parity-model"
TEMPERATURE = 0.001  # bfcl generate's default, which the handler sends


def completion_body(message: dict) -> dict:
    return {"id": "chatcmpl-parity", "object": "chat.completion", "created": 0, "model": PARITY_MODEL,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}


def _digest(*parts) -> int:
    return int(hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:8], 16)


class ScriptedModel:
    """Replies that depend only on the entry, the mode and the request's messages."""

    def __init__(self, entry: dict, category: str, mode: str, gold: list | None, planted: bool = False):
        self.entry, self.category, self.mode, self.gold = entry, category, mode, gold
        self.planted = planted  # multi-turn: a first step that bfcl's executor treats specially
        self.variant = _digest(entry["id"], mode) % 4
        self._steps = None

    def _message(self, calls: list[tuple[str, dict]], language: str, step: int) -> dict:
        if not calls:
            return {"role": "assistant", "content": "I have nothing more to do here."}
        if self.mode == "fc":
            message = {"role": "assistant", "content": "Calling the functions." if self.variant == 1 else None,
                       "tool_calls": [{"id": f"call_{step}_{i}_{self.variant}", "type": "function",
                                       "function": {"name": sanitise_name(name),
                                                    "arguments": fc_arguments(args, language)}}
                                      for i, (name, args) in enumerate(calls)]}
        else:
            message = {"role": "assistant", "content": prompt_text(calls, language)}
        if self.variant == 2:  # fields a real endpoint sets, which the SDK sends back
            message.update(refusal=None, annotations=[])
        return message

    def single_turn(self) -> dict:
        language = language_of(self.category)
        if self.category in RELEVANCE_CATEGORIES or not self.gold:
            return self._message([], language, 0)
        return self._message(gold_calls(self.gold), language, 0)

    def multi_turn(self, messages: list[dict]) -> dict:
        """The k-th reply of the conversation (k: assistant messages so far) from a flat plan."""
        step = sum(1 for m in messages if m.get("role") == "assistant")
        if self._steps is None:
            self._steps = self._plan()
        plan = self._steps
        if step >= len(plan):
            return self._message([], "python", step)
        return self._message(plan[step], "python", step)

    def _plan(self) -> list[list[tuple[str, dict]]]:
        from support.bfcl_oracle import gold_call_parts

        plan = []
        for turn, calls in enumerate(self.gold or []):
            parts = [gold_call_parts(call, self.entry["involved_classes"]) for call in calls]
            if parts and self.planted and turn == 0:
                plan.append(planted_step(parts[0]))
            if parts and self.variant == 3 and turn == 0:  # a call the backend rejects first
                name, args = parts[0]
                plan.append([(name, {**args, "zz_not_a_parameter": 1})])
            if parts:
                plan.append(parts)
            plan.append([])
        return plan

    def reply(self, body: dict) -> dict:
        if self.category in MULTI_TURN_CATEGORIES:
            return completion_body(self.multi_turn(body.get("messages") or []))
        return completion_body(self.single_turn())


PLANTED_TEXT = " note (x) and f (y)"


def planted_step(call: tuple[str, dict]) -> list[tuple[str, dict]]:
    """A gold call whose first string argument gains words before brackets (bfcl's executor rewrites
    them), and a call of a function that no backend defines."""
    name, args = call
    text_key = next((key for key, value in args.items() if isinstance(value, str)), None)
    planted = [(name, {**args, text_key: args[text_key] + PLANTED_TEXT})] if text_key else []
    return planted + [("not_a_function", {"a": 1})]


def gold_of(category: str) -> dict[str, list]:
    if category in RELEVANCE_CATEGORIES:
        return {}
    from bfcl_eval.utils import load_ground_truth_entry

    return {record["id"]: record["ground_truth"] for record in load_ground_truth_entry(category)}


class ByFirstTurn:
    """The entry a request belongs to (the first ``per_category`` of each category), found by the
    messages of bfcl's own first request for it (built in process), which every later request of
    the conversation starts with; and its ScriptedModel's reply."""

    def __init__(self, categories: list[str], mode: str, per_category: int):
        self.scripts: dict[str, tuple[str, object]] = {}
        self.entries: list[tuple[str, dict]] = []
        builder = OfficialHandler(mode)
        for category in categories:
            for entry in list(official_entries(category).values())[:per_category]:
                script = ScriptedModel(entry, category, mode, gold_of_cached(category).get(entry["id"]))
                first, _ = builder.run(entry, lambda body: completion_body({"role": "assistant", "content": "ok"}))
                key = self.key(first[0]["messages"], len(first[0]["messages"]))
                assert key not in self.scripts, f"{entry['id']} starts like {self.scripts[key][0]}"
                self.scripts[key] = (entry["id"], script)
                self.entries.append((category, entry))
        self.lengths = sorted({json.loads(k)[0] for k in self.scripts})

    @staticmethod
    def key(messages: list[dict], length: int) -> str:
        return json.dumps([length, messages[:length]], sort_keys=True)

    def find(self, body: dict) -> tuple[str, object] | None:
        for length in self.lengths:
            found = self.scripts.get(self.key(body.get("messages") or [], length))
            if found:
                return found
        return None

    def reply(self, body: dict, number: int = 0) -> Reply:
        """A ScriptedPeer script: the entry's scripted reply."""
        found = self.find(body)
        if found is None:
            return Reply(status=400, body={"error": {"message": "no sampled entry starts like this request"}})
        return Reply(body=found[1].reply(body))

    def by_entry(self, bodies: list[dict]) -> dict[str, list[dict]]:
        """The bodies grouped by entry id, in the order they came ("?" for none of the entries)."""
        grouped: dict[str, list[dict]] = {}
        for body in bodies:
            found = self.find(body)
            grouped.setdefault(found[0] if found else "?", []).append(body)
        return grouped


# --- bfcl-eval's side ------------------------------------------------------------------------------
def _sdk_json(value):
    """How the OpenAI SDK puts an SDK object (the assistant message bfcl appends) on the wire."""
    from openai._compat import model_dump

    return model_dump(value, exclude_unset=True, mode="json")


class OfficialHandler:
    """bfcl's OpenAICompletionsHandler for one mode, running its own ``inference``.

    With ``base_url`` it posts through the OpenAI SDK to that endpoint, as ``bfcl generate`` does.
    Without, its ``generate_with_backoff`` (the one method that calls the SDK) is replaced: the
    keyword arguments the handler built become the body as the SDK serialises them, and the
    script's reply comes back as the SDK's own response object."""

    def __init__(self, mode: str, base_url: str | None = None, model: str = PARITY_MODEL,
                 temperature: float = TEMPERATURE):
        from evalui.benchmarks.bfcl.scoring.official import load_official

        load_official()
        from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

        parity = self

        class Capturing(OpenAICompletionsHandler):
            def generate_with_backoff(self, **kwargs):
                from openai.types.chat import ChatCompletion

                body = orjson.loads(orjson.dumps(kwargs, default=_sdk_json))
                parity.bodies.append(body)
                return ChatCompletion.construct(**parity.script(body)), 0.0

        self.mode = mode
        # bfcl keeps backend instances in module globals under the model name: one of its own.
        self.owner = f"parity_{uuid.uuid4().hex[:12]}"
        environment = {"OPENAI_API_KEY": "sk-parity"}
        if base_url:
            environment["OPENAI_BASE_URL"] = base_url
        with _environment(**environment):
            self.handler = (OpenAICompletionsHandler if base_url else Capturing)(
                model_name=model, temperature=temperature,
                registry_name=f"{self.owner}-FC" if mode == "fc" else self.owner, is_fc_model=mode == "fc")
        self.handler.model_name_underline_replaced = self.owner
        self.script = None
        self.bodies: list[dict] = []

    def run(self, entry: dict, script=None) -> tuple[list[dict], object]:
        """bfcl's ``inference`` on a copy of the entry: (the request bodies, the result)."""
        from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

        self.script, self.bodies = script, []
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the multi-turn loop prints every step
                result, _ = self.handler.inference(copy.deepcopy(entry), include_input_log=False,
                                                   exclude_state_log=True)
        finally:
            for name in [n for n in vars(multi_turn_utils) if n.startswith(self.owner)]:
                vars(multi_turn_utils).pop(name)
        return self.bodies, result


# --- evalui's side ---------------------------------------------------------------------------------
class OfflineClient:
    """evalui's ModelClient building each body and reading each reply, with no HTTP between them."""

    def __init__(self, settings=None):
        from evalui.endpoint.client import ModelClient
        from evalui.endpoint.settings import EndpointSettings

        self.client = ModelClient(settings or EndpointSettings(base_url="http://evalui-parity.invalid/v1",
                                                               model=PARITY_MODEL))
        self.loop = asyncio.new_event_loop()
        self._runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalui-parity-loop")
        self.script = None
        self.bodies: list[dict] = []

    def body(self, messages, tools=None, extra_body=None, **overrides) -> dict:
        from evalui.endpoint.completion import json_bytes

        body = orjson.loads(json_bytes(self.client.request_body(messages, tools, overrides, extra_body)))
        self.bodies.append(body)
        return body

    def chat(self, messages, *, tools=None, extra_body=None, **overrides):
        from evalui.endpoint.completion import parse_completion

        return parse_completion(self.script(self.body(messages, tools, extra_body, **overrides)))

    async def achat(self, messages, *, tools=None, extra_body=None, **overrides):
        return self.chat(messages, tools=tools, extra_body=extra_body, **overrides)

    def run(self, coroutine):
        """The coroutine's result, run on this client's loop in a thread of its own: the calling
        thread may already run a loop (a browser test's app leaves one in the main thread)."""
        return self._runner.submit(self.loop.run_until_complete, coroutine).result()

    def close(self) -> None:
        self._runner.submit(self.loop.close).result()
        self._runner.shutdown()
        self.client.close()


def evalui_bodies(client: OfflineClient, category: str, entry_id: str, mode: str, script):
    """evalui's requests for one entry, made by its BFCL tasks: (the bodies, the result-file value)."""
    from evalui.benchmarks.bfcl.data import entries_by_id
    from evalui.benchmarks.bfcl.request import build_request, result_from_response
    from evalui.run.trajectory import reply_output

    client.script, client.bodies = script, []
    entry = entries_by_id(category)[entry_id]
    if category in MULTI_TURN_CATEGORIES:
        from evalui.benchmarks.bfcl.multi_turn.play import play

        outcome = client.run(play(client, entry, mode))
        return client.bodies, outcome.output["turns"]
    request = build_request(entry, mode)
    reply = client.chat(request["messages"], tools=request["tools"], extra_body=request["extra_body"])
    return client.bodies, result_from_response(reply_output(reply), mode)


# --- comparing ----------------------------------------------------------------------------------------
def first_difference(expected, actual, path: str = "") -> str | None:
    """The path of the first place where two JSON values differ, with both values; None if equal."""
    if type(expected) is not type(actual):
        return f"{path or '.'}: bfcl {_short(expected)} / evalui {_short(actual)}"
    if isinstance(expected, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual or key not in expected:
                return (f"{path}.{key}: bfcl {_short(expected.get(key, '<absent>'))} / "
                        f"evalui {_short(actual.get(key, '<absent>'))}")
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        for index, (a, b) in enumerate(zip(expected, actual)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: bfcl has {len(expected)} items / evalui {len(actual)}"
        return None
    return None if expected == actual else f"{path or '.'}: bfcl {_short(expected)} / evalui {_short(actual)}"


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def compare_entry(handler: OfficialHandler, client: OfflineClient, category: str, entry_id: str,
                  planted: bool = False) -> list[str]:
    """Every difference between bfcl's and evalui's requests (and results) for one entry, named."""
    entry = official_entries(category)[entry_id]
    gold = gold_of_cached(category).get(entry_id)
    script = ScriptedModel(entry, category, handler.mode, gold, planted).reply
    expected, official_result = handler.run(entry, script)
    actual, result = evalui_bodies(client, category, entry_id, handler.mode, script)
    return differences(entry_id, handler.mode, expected, actual, official_result, result)


def differences(entry_id: str, mode: str, expected: list[dict], actual: list[dict], official_result,
                result) -> list[str]:
    """The first request that differs (later ones follow from it), or a count or result that does."""
    problems = []
    for index, (a, b) in enumerate(zip(expected, actual)):
        found = first_difference(a, b) if a != b else None
        if found:
            problems.append(f"{entry_id} ({mode}) request {index + 1}: {found}")
            break  # later requests follow from this one
    if len(expected) != len(actual) and not problems:
        problems.append(f"{entry_id} ({mode}): bfcl sent {len(expected)} requests, evalui {len(actual)}")
    if not problems and _normalised(official_result) != _normalised(result):
        problems.append(f"{entry_id} ({mode}) result: bfcl {_short(official_result)} / evalui {_short(result)}")
    return problems


def _normalised(result):
    # bfcl keeps a text reply's content as it came (null for none); evalui's ChatReply reads it as "".
    if result is None:
        return ""
    if isinstance(result, list):
        return [_normalised(item) for item in result]
    return result


_gold_cache: dict[str, dict] = {}


def gold_of_cached(category: str) -> dict:
    if category not in _gold_cache:
        _gold_cache[category] = gold_of(category)
    return _gold_cache[category]


@contextlib.contextmanager
def _environment(**values):
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# --- agentic entries ---------------------------------------------------------------------------------
def official_agentic_entry(category: str, entry_id: str, snapshot_root: Path) -> dict:
    """bfcl's own entry (a question or a memory prereq) with ``initial_config`` as ``bfcl generate``
    fills it: memory snapshots under ``snapshot_root``, the snippet setting for web search."""
    from bfcl_eval.utils import (
        is_memory,
        populate_initial_settings_for_memory_test_cases,
        populate_initial_settings_for_web_search_test_cases,
    )

    entry = copy.deepcopy(official_entries(category)[entry_id])
    if is_memory(category):
        return populate_initial_settings_for_memory_test_cases([entry], Path(snapshot_root))[0]
    return populate_initial_settings_for_web_search_test_cases([entry])[0]


def evalui_agentic_bodies(client: OfflineClient, entry, mode: str, script, snapshot_root: Path,
                          web_options=None) -> tuple[list[dict], list]:
    """evalui's requests for one agentic conversation, played by its agentic player on a fresh backend
    (a prereq then writes its snapshot, as the task does): (the bodies, the result-file value)."""
    from evalui.benchmarks.bfcl.agentic.backends import AgenticBackend, new_backend
    from evalui.benchmarks.bfcl.agentic.play import play_agentic

    client.script, client.bodies = script, []
    instance = new_backend(entry, snapshot_root, web_options)
    outcome = client.run(play_agentic(client, entry, mode, AgenticBackend(entry, instance)))
    if "prereq" in entry.id:
        instance._flush_memory_to_local_file()
    return client.bodies, outcome.output["turns"]


class AgenticSides:
    """bfcl's handler and evalui's player on the same agentic entries, each with its own snapshots.

    ``compare`` plays a memory question's scenario prereqs first (once per category and scenario, on
    both sides, every one compared too), then the question. For memory_vector, evalui's backend loader
    imports bfcl's module first (with its torch-free encoder), so bfcl's handler finds it imported."""

    def __init__(self, handler: OfficialHandler, client: OfflineClient, root: Path, web_options=None):
        self.handler, self.client, self.web_options = handler, client, web_options
        self.official_root, self.evalui_root = Path(root) / "bfcl", Path(root) / "evalui"
        self.played: set[tuple[str, str]] = set()
        self.requests = 0  # bfcl's requests compared, so a test can say the comparison was not vacuous

    def compare(self, category: str, entry_id: str, script) -> list[str]:
        from evalui.benchmarks.bfcl.agentic.data import prereq_chain, scenario_of
        from evalui.benchmarks.bfcl.data import entries_by_id

        if category.startswith("memory"):
            from evalui.benchmarks.bfcl.agentic.memory import load_memory_backend

            load_memory_backend(category)
        entry = entries_by_id(category)[entry_id]
        problems: list[str] = []
        scenario = scenario_of(entry)
        if scenario and (category, scenario) not in self.played:
            self.played.add((category, scenario))
            for prereq in prereq_chain(category, scenario):
                problems += self._compare_one(category, prereq, script)
        return problems + self._compare_one(category, entry, script)

    def _compare_one(self, category: str, entry, script) -> list[str]:
        official = official_agentic_entry(category, entry.id, self.official_root)
        expected, official_result = self.handler.run(official, script)
        self.requests += len(expected)
        actual, result = evalui_agentic_bodies(self.client, entry, self.handler.mode, script, self.evalui_root,
                                               self.web_options)
        return differences(entry.id, self.handler.mode, expected, actual, official_result, result)
