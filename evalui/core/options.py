"""A benchmark's options: a pydantic model whose fields are the run's options.

The CLI's flags and the tabs' inputs are built from the fields (``option`` says how each one is
asked for); the values typed there, and the values a stored run's config holds, are validated by
the model, so every option set a benchmark sees has already been read in its types and passed its
validators. Normalising (``0`` meaning "no limit", spaces around a name) belongs in the model's
validators; checks that need the endpoint or the stored run stay in the spec's ``check``, which
returns a new options object (``model_copy``) rather than changing the one it was given.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticUndefined

# The metadata an option carries besides its type and default, with the value a plain field has.
ASKED = {"help": "", "flag": None, "choices": None, "required": False, "shown": True, "label": None}


class InvalidOptions(ValueError):
    """Option values the benchmark's options model refuses."""


class Options(BaseModel):
    """The base of every benchmark's options. Unknown names are refused; a value assigned later
    (a tab that sets the agent after building the options) is validated as one given at the start."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def __init__(self, **values: Any) -> None:
        # Options are typed by people (the CLI, a tab): a refused value is said as one line naming
        # the option, a ValueError as every other refusal of a run's input.
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise InvalidOptions(refusal(exc)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _typed_as_text(cls, value, info):
        # The CLI and the page give lists as one comma-separated text; pydantic reads numbers and
        # booleans from text itself ("5", "yes"), but a list from text only as JSON.
        if info.field_name is None or not isinstance(value, str):
            return value
        kind = base_type(cls.model_fields[info.field_name].annotation)
        if kind in (list, tuple) or typing.get_origin(kind) in (list, tuple):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("*")
    @classmethod
    def _one_of_its_choices(cls, value, info):
        # The CLI and the tabs offer only the choices; a stored config or an API caller may say anything.
        choices = asked_of(cls.model_fields[info.field_name])["choices"] if info.field_name else None
        if choices and value is not None and value not in choices:
            raise ValueError(f"{value!r} is not one of {', '.join(map(str, choices))}")
        return value


def limit_or_none(limit: int | None, items: str) -> int | None:
    """A "at most N" option: 0 asks for every item, as no limit does; a negative one is refused."""
    if limit is not None and limit < 0:
        raise ValueError(f"the limit must be 0 (all {items}) or more")
    return limit or None


def asked_of(info) -> dict:
    """How a field is asked for (the keys of ASKED), a plain field's defaults included."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return {**ASKED, **(extra.get("asked") or {})}


def option(default: Any = PydanticUndefined, *, default_factory: Callable[[], Any] | None = None, help: str = "",
           flag: str | None = None, choices: tuple | None = None, required: bool = False, shown: bool = True,
           label: str | None = None) -> Any:
    """An option field that says how it is asked for: its help text, its CLI flag (by default
    ``--name-with-dashes``), the values it takes, whether the CLI requires it, and whether it is
    asked for at all (``shown=False``: set by the benchmark itself, such as a generated file name).
    A plain annotated field with a default is an option too, asked for with no help text."""
    # Not JSON (choices may be a tuple): pydantic keeps it as given, and only the front ends read it.
    asked: Any = {"asked": {"help": help, "flag": flag, "choices": choices, "required": required, "shown": shown,
                            "label": label}}
    if default_factory is not None:
        return Field(default_factory=default_factory, description=help or None, json_schema_extra=asked)
    return Field(default, description=help or None, json_schema_extra=asked)


class OptionField(NamedTuple):
    """One option as the front ends read it: its name, its type, how it is asked for (``metadata``,
    the keys of ASKED), and a function giving its default."""

    name: str
    kind: Any
    metadata: dict
    default: Callable[[], Any]


def option_fields(model: type[BaseModel]) -> list[OptionField]:
    fields = []
    for name, info in model.model_fields.items():
        fields.append(OptionField(name, info.annotation, asked_of(info),
                                  functools.partial(info.get_default, call_default_factory=True)))
    return fields


def option_default(field: OptionField) -> Any:
    return field.default()


def base_type(kind):
    """``int`` for ``int | None``: the type an option's typed text is read as."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    return args[0] if typing.get_origin(kind) in (typing.Union, types.UnionType) and args else kind


def make_options(model: type[BaseModel], values: dict, benchmark: str) -> Any:
    """Options from stored or typed values: unknown names are refused, missing ones defaulted, and
    a value the model refuses raises InvalidOptions."""
    known = set(model.model_fields)
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"{benchmark} has no option {', '.join(sorted(unknown))}; its options are "
                         f"{', '.join(sorted(known))}")
    return model(**values)


def refusal(exc: ValidationError) -> str:
    """A validation error as one line a person reads: each refused option and why."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
