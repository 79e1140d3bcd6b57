"""The ``evalui`` command line. It never imports gradio."""

from __future__ import annotations

import argparse
import sys

from evalui.cli.summary import active_gate, print_summary  # noqa: F401  (print_summary: the CLI's face)
from evalui.errors import InputError


def build_parser() -> argparse.ArgumentParser:
    from evalui.cli import compare, export, generic, plan, rescore, runs, scan, verify, view

    specs = generic.specs()
    own = generic.own_groups(specs)  # the benchmarks with commands of their own, named first
    parser = argparse.ArgumentParser(prog="evalui", description=f"Evaluate LLM agents: {', '.join(g.upper() for g in own)}.")
    benchmarks = parser.add_subparsers(dest="benchmark", required=True, metavar=f"{{{','.join([*own, 'verify', 'compare'])},…}}")
    groups = generic.register_own(benchmarks, specs)
    verify.register(benchmarks)
    compare.register(benchmarks)
    plan.register(benchmarks)
    export.register(benchmarks)
    rescore.register(benchmarks)
    runs.register(benchmarks)
    scan.register(benchmarks)
    view.register(benchmarks)
    generic.register(benchmarks, groups)  # every benchmark's run command, from its options
    return parser


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
    from evalui.cli.gate import GATE_FAILED, GATE_INCONCLUSIVE, Gate
    from evalui.deploy.hub_sync import listen_for_runs
    from evalui.run import heap

    listen_for_runs()  # a run that ends here syncs to the Hub when EVALUI_HUB_SYNC asks for it

    try:
        gate = Gate.from_args(args)
        token = active_gate.set(gate)
        try:
            with heap.fewer_collections():
                status = int(args.handler(args) or 0)
            heap.freeze_at_exit()
        finally:
            active_gate.reset(token)
        if status == 0 and gate is not None and gate.failed:
            print(f"evalui: gate failed: {'; '.join(gate.reasons)}", file=sys.stderr)
            return GATE_FAILED
        if status == 0 and gate is not None and gate.inconclusive:
            print(f"evalui: gate inconclusive: {'; '.join(gate.reasons)}", file=sys.stderr)
            return GATE_INCONCLUSIVE
        return status
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
