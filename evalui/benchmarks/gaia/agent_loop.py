"""The built-in GAIA agent: the model calls tools until it replies without one, then is scored.

It keeps GAIA's official system prompt (and so its ``FINAL ANSWER:`` contract), adds a note about
the tools, and records every model call as a step with the tool calls it made and their results.
Native OpenAI tool calls are used; an endpoint that refuses them (HTTP 400 on the first call) is
asked again with the plain-text protocol of ``tools.text_protocol``. A task cut off mid-way stores
nothing but an error, so a resume starts it again from the beginning. A reply past the caps of
``budget`` (calls or characters per step, characters per sample) ends the task there, scored wrong
with the error type ``too_many_calls`` or ``too_large``, and is stored as a note and a preview.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from evalui.benchmarks.gaia.budget import AgentBudget, shrink_results
from evalui.benchmarks.gaia.instructions import AGENT_NOTE, GAIA_SYSTEM_PROMPT
from evalui.benchmarks.gaia.prompt import user_content
from evalui.benchmarks.gaia.task import GaiaTask, _has_image, question_from_payload
from evalui.benchmarks.gaia.tools import text_protocol
from evalui.benchmarks.gaia.tools.base import Tool, ToolContext, ToolResult, parse_arguments
from evalui.benchmarks.gaia.tools.files_tool import files_tool
from evalui.benchmarks.gaia.tools.python_tool import limits_note, python_tool
from evalui.benchmarks.gaia.tools.web import load_backend, web_tools
from evalui.endpoint.client import EndpointError
from evalui.run.step_limits import StepLimitExceeded, shrink_step
from evalui.run.trajectory import Recorder, TaskResult
from evalui.sandbox.base import Limits
from evalui.store.run_store import Sample

PROTOCOLS = ("auto", "native", "text")


def local_sandbox(cancel: threading.Event | None):
    """The local sandbox, never inside the data folder; a cancel stops the program in flight."""
    from evalui.config import data_dir
    from evalui.sandbox.local import LocalSandbox

    return LocalSandbox(forbidden=data_dir(), cancel=cancel)
LAST_STEP_NOTE = "You have reached the step limit: give your FINAL ANSWER now, without calling a tool."
IMAGE_REFUSED = "(the endpoint does not take images, so the image is not shown)"


@dataclass
class AgentSettings:
    tools: list[str]
    tool_timeout_s: float = 30.0
    max_steps: int = 12
    protocol: str = "auto"


def build_tools(names: list[str], limits: Limits) -> list[Tool]:
    tools = []
    if "python" in names:
        tools.append(python_tool(limits_note(limits)))
    if "files" in names:
        tools.append(files_tool())
    if "web" in names:
        tools.extend(web_tools())
    return tools


def first_messages(question, names: list[str], tools: list[Tool], text_mode: bool) -> list[dict]:
    system = f"{GAIA_SYSTEM_PROMPT}\n\n{AGENT_NOTE}"
    if text_mode:
        system += "\n\n" + text_protocol.describe(tools)
    if question.file_name and ("python" in names or "files" in names):
        where = " and ".join(w for w, on in (("in the python tool's working folder", "python" in names),
                                             ("through the files tool", "files" in names)) if on)
        user = f"{question.question}\n\nAttached file: {question.file_name} (available {where})."
    else:
        user = user_content(question)  # no tool reads files: the attachment is inlined as without tools
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _without_images(messages: list[dict]) -> list[dict]:
    def plain(content):
        if not isinstance(content, list):
            return content
        return "\n".join(p.get("text", "") if p.get("type") == "text" else IMAGE_REFUSED for p in content)

    return [{**m, "content": plain(m.get("content"))} for m in messages]


@dataclass
class ToolAgentTask(GaiaTask):
    settings: AgentSettings = field(default_factory=lambda: AgentSettings(["python", "files"]))
    sandbox: object = None  # evalui.sandbox.base.Sandbox; the local one by default
    web: object = None

    def __post_init__(self):
        self.limits = Limits(wall_s=self.settings.tool_timeout_s)
        self.tools = {t.name: t for t in build_tools(self.settings.tools, self.limits)}
        if "web" in self.settings.tools and self.web is None:
            self.web = load_backend()
        self._text_mode = self.settings.protocol == "text"
        if self.sandbox is None and "python" in self.settings.tools:
            self.sandbox = local_sandbox(None)

    def build_request(self, sample: Sample) -> dict:
        question = question_from_payload(sample.payload)
        return {"tools": list(self.settings.tools), "max_steps": self.settings.max_steps,
                "messages": first_messages(question, self.settings.tools, list(self.tools.values()), self._text_mode)}

    def call(self, client, sample: Sample, request: dict) -> TaskResult:
        question = question_from_payload(sample.payload)
        files = {question.file_name: question.file_path} if question.file_name and question.file_path else {}
        context = ToolContext(question, self.limits, open_session=lambda: self.sandbox.open(files), web=self.web,
                              images=self.images)
        recorder = Recorder(client)
        try:
            return self._loop(client, recorder, context, list(request["messages"]))
        except EndpointError as exc:
            exc.steps = recorder.steps  # the steps taken so far are stored with the error
            raise
        finally:
            context.close()

    def _loop(self, client, recorder: Recorder, context: ToolContext, messages: list[dict]) -> TaskResult:
        text_mode = self._text_mode
        budget = AgentBudget()
        for step in range(self.settings.max_steps):
            last = step == self.settings.max_steps - 1
            if last and step:
                messages.append({"role": "user", "content": LAST_STEP_NOTE})
            reply, messages, text_mode = self._ask(recorder, context, messages, text_mode, first=step == 0)
            try:
                budget.check_reply(reply.text, [] if text_mode else reply.tool_calls)
                calls = text_protocol.parse(reply.text) if text_mode else reply.tool_calls
                budget.check_count(calls)
            except StepLimitExceeded as exc:
                shrink_step(recorder.steps[-1], str(exc))
                return self._stopped(recorder, exc)
            if not calls:
                return recorder.result({"text": reply.text, "tool_calls": []})
            if last:
                recorder.reject_last("the step limit was reached while the model still called tools")
                return recorder.result({"text": reply.text, "tool_calls": []})
            results = [self._run_tool(call.name, call.arguments, context) for call in calls]
            recorder.steps[-1].tool_results = [{"name": c.name, "content": r.content, "error": r.error}
                                               for c, r in zip(calls, results)]
            try:
                budget.add_results(results)
            except StepLimitExceeded as exc:
                shrink_results(recorder.steps[-1], str(exc))
                return self._stopped(recorder, exc)
            messages.extend(self._next_messages(step, reply, calls, results, text_mode, context))
        return recorder.result({"text": "", "tool_calls": []})  # max_steps < 1

    @staticmethod
    def _stopped(recorder: Recorder, exc: StepLimitExceeded) -> TaskResult:
        """The task ends at a step past the caps; the judge reads the kind, the store keeps the note."""
        return recorder.result({"text": "", "tool_calls": [], "limit_exceeded": exc.kind, "note": str(exc)})

    def judge(self, sample: Sample, response: dict) -> tuple[object, bool, dict]:
        kind = response.get("limit_exceeded") if isinstance(response, dict) else None
        if not kind:
            return super().judge(sample, response)
        scored = question_from_payload(sample.payload).has_truth
        return None, False, {"scored": scored, "model_answer": None, "exact": False if scored else None,
                             "lenient": False if scored else None, "error_type": kind,
                             "note": str(response.get("note", ""))[:500]}

    def _ask(self, recorder: Recorder, context: ToolContext, messages: list[dict], text_mode: bool, first: bool):
        tools = None if text_mode else [t.openai() for t in self.tools.values()]
        try:
            return recorder.chat(messages, tools=tools), messages, text_mode
        except EndpointError as exc:
            if exc.kind != "http_400":
                raise
            if _has_image(messages):  # a text-only endpoint: go on without images
                context.images = False
                messages = _without_images(messages)
                return recorder.chat(messages, tools=tools), messages, text_mode
            if first and not text_mode and self.settings.protocol == "auto":
                self._text_mode = True  # this endpoint takes no tools: the next tasks ask in text at once
                question = context.question
                messages = first_messages(question, self.settings.tools, list(self.tools.values()), True)
                return recorder.chat(messages, new_conversation=True), messages, True
            raise

    def _run_tool(self, name: str, arguments: str, context: ToolContext) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            if name == text_protocol.BAD_CALL:
                return ToolResult("a <tool_call> block was not a JSON object with \"name\" and \"arguments\"",
                                  error="bad_call")
            return ToolResult(f"there is no tool {name!r}; the tools are {', '.join(self.tools)}", error="unknown_tool")
        try:
            return tool.run(parse_arguments(arguments), context)
        except ValueError as exc:
            return ToolResult(f"{name}: {exc}", error="bad_arguments")

    @staticmethod
    def _next_messages(step: int, reply, calls, results: list[ToolResult], text_mode: bool,
                       context: ToolContext) -> list[dict]:
        if text_mode:
            out = [{"role": "assistant", "content": reply.text},
                   text_protocol.results_message([(c.name, r.content) for c, r in zip(calls, results)])]
        else:
            ids = [f"call_{step}_{i}" for i in range(len(calls))]
            out = [{"role": "assistant", "content": reply.text or None, "tool_calls": [
                {"id": i, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for i, c in zip(ids, calls)]}]
            out += [{"role": "tool", "tool_call_id": i, "content": r.content} for i, r in zip(ids, results)]
        images = [r.image for r in results if r.image and context.images]
        if images:
            out.append({"role": "user", "content": [{"type": "text", "text": "The image you asked for:"}, *images]})
        return out
