"""The ``evalui`` command line. It never imports gradio."""

from __future__ import annotations

import argparse
import json
import sys

from evalui.errors import InputError


def build_parser() -> argparse.ArgumentParser:
    from evalui.cli import aime, bfcl, gaia, generic, verify

    parser = argparse.ArgumentParser(prog="evalui", description="Evaluate LLM agents: BFCL, GAIA, AIME.")
    benchmarks = parser.add_subparsers(dest="benchmark", required=True, metavar="{bfcl,gaia,aime,verify,…}")
    bfcl.register(benchmarks)
    gaia.register(benchmarks)
    aime.register(benchmarks)
    verify.register(benchmarks)
    generic.register(benchmarks)  # benchmarks added through the registry
    return parser


def print_summary(summary: dict) -> None:
    """The JSON summary is always the last line printed, so scripts can read it with tail -1."""
    sys.stdout.flush()
    print(json.dumps(summary, ensure_ascii=False), flush=True)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _unreadable(exc: BaseException) -> str:
    """A sentence for failures raised while reading input that no reader turned into an InputError."""
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(exc, UnicodeDecodeError):
        return f"the input is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    return "the input is too large to read in memory"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except InputError as exc:
        print(f"evalui: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (RecursionError, UnicodeDecodeError, MemoryError) as exc:
        print(f"evalui: error: {_unreadable(exc)}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # missing optional dependency, unreachable endpoint, …
        print(f"evalui: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("evalui: interrupted; run again with the same --exp-id to resume", file=sys.stderr)
        return 130
