"""What every tool shares: its result, the task's context, and which tools a deployment allows."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evalui.benchmarks.gaia import settings as gaia_settings
from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.errors import InputError
from evalui.sandbox.base import Limits, Session

CHOICES = ("python", "files", "web")
ALLOW_CODE_ENV = "EVALUI_ALLOW_CODE"
WEB_BACKEND_ENV = "EVALUI_WEB_BACKEND"


@dataclass
class ToolResult:
    content: str
    error: str | None = None  # set when the tool could not do what was asked
    image: dict | None = None  # an image_url content part, shown to the model after the result


@dataclass
class ToolContext:
    question: GaiaQuestion
    limits: Limits
    session: Session | None = None  # the python tool's sandbox session, opened on first use
    open_session: Callable[[], Session] | None = None
    web: object | None = None
    images: bool = True
    image_shown: bool = False  # the attachment is shown once a sample: each showing is megabytes

    def sandbox(self) -> Session:
        if self.session is None:
            self.session = self.open_session()
        return self.session

    def attachment(self) -> Path | None:
        path = self.question.file_path
        return Path(path) if path and Path(path).is_file() else None

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict
    run: Callable[[dict, ToolContext], ToolResult] = field(compare=False)

    def openai(self) -> dict:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


def parse_arguments(text: str) -> dict:
    """A tool call's arguments as a dict; ValueError says what is wrong with them."""
    try:
        value = json.loads(text or "{}")
    except (ValueError, RecursionError):
        raise ValueError("the arguments are not valid JSON") from None
    if not isinstance(value, dict):
        raise ValueError("the arguments must be a JSON object")
    return value


def on_space() -> bool:
    return bool(os.environ.get("SPACE_ID"))


def code_allowed() -> bool:
    """Running the model's code is off on a Hugging Face Space unless the operator allows it."""
    return not on_space() or gaia_settings.read("allow_code")


def web_configured() -> bool:
    return bool(gaia_settings.read("web_backend"))


def parse_choices(value) -> list[str]:
    """The tools asked for, checked against what this deployment allows; [] is no agent at all."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    chosen = []
    for item in (str(i).strip().lower() for i in items):
        if not item or item in chosen:
            continue
        if item not in CHOICES:
            raise InputError(f"unknown tool {item!r}; choose from {', '.join(CHOICES)}")
        chosen.append(item)
    if "python" in chosen and not code_allowed():
        raise InputError(f"the python tool is off on a Hugging Face Space; the operator may set {ALLOW_CODE_ENV}=1")
    if "web" in chosen and not web_configured():
        raise InputError(f"the web tool is off: the operator configures a backend with {WEB_BACKEND_ENV}")
    return chosen
