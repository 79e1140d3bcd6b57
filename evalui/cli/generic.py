"""``evalui <name> run …`` for a benchmark added through the registry: flags come from its options."""

from __future__ import annotations

import dataclasses
import typing

from evalui.cli.common import (ProgressBar, add_endpoint_flags, add_run_flags, apply_budget, endpoint_from_args,
                               interrupt_on_sigterm)
from evalui.errors import InputError


def register(benchmarks) -> None:
    from evalui.engine import registry

    for name in registry.extra_names():
        spec = registry.get(name)
        parser = benchmarks.add_parser(name, help=spec.title)
        commands = parser.add_subparsers(dest="command", required=True)
        run = commands.add_parser("run", help=f"run {spec.title} against an OpenAI-compatible endpoint")
        add_endpoint_flags(run)
        add_run_flags(run, epochs=True)
        hints = typing.get_type_hints(spec.options)
        shared = {}  # options named like a common flag (--seed) read that flag
        for field in spec.option_fields():
            flag = f"--{field.name.replace('_', '-')}"
            existing = run._option_string_actions.get(flag)
            if existing is not None:
                shared[field.name] = existing.dest
                continue
            default = None if field.default is dataclasses.MISSING else field.default
            run.add_argument(flag, dest=f"option_{field.name}",
                             help=f"{_type_name(hints.get(field.name))} (default: {default!r})")
        run.set_defaults(handler=run_generic, benchmark_name=name, shared_options=shared)


def _type_name(kind) -> str:
    return getattr(kind, "__name__", None) or str(kind).replace("typing.", "")


def run_generic(args) -> int:
    interrupt_on_sigterm()
    from evalui.engine import registry
    from evalui.cli import print_summary
    from evalui.engine import lifecycle
    from evalui.engine.epochs import add_epochs
    from evalui.engine.store import RunStore

    spec = registry.get(args.benchmark_name)
    given = {f.name: getattr(args, args.shared_options.get(f.name, f"option_{f.name}")) for f in spec.option_fields()}
    values = {name: value for name, value in given.items() if value is not None}
    settings = endpoint_from_args(args)
    store = RunStore()
    try:
        options = spec.make_options(values)
        exp_id = lifecycle.prepare(store, spec, options, settings, exp_id=args.exp_id, concurrency=args.concurrency,
                                   requests_per_minute=args.rpm, out=args.out)
        add_epochs(store, exp_id, args.epochs)
        apply_budget(store, exp_id, args)
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None
    bar = ProgressBar(f"{spec.name} {exp_id}")
    try:
        summary = lifecycle.execute(store, exp_id, settings, on_progress=bar)
    finally:
        bar.close()
    print_summary({key: summary.get(key) for key in ("exp_id", "total", "correct", "accuracy", "errors", "duration_s",
                                                     "out_dir", "status", "headline", "epochs", "cost")
                   if key in summary})
    return 0
