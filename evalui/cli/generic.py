"""Every benchmark's commands: the run commands (``evalui NAME run``, or the group and command its spec
names), built from its options: each option is a flag, and the benchmark's hooks add what is not an
option and choose what the summary prints; and the commands a benchmark adds of its own in its
group (its spec's ``cli_commands``), which get what they need of the CLI from ``KIT``. Nothing here
names a benchmark: the registry lists them."""

from __future__ import annotations

import types
import typing

from evalui.cli.common import (
    ProgressBar,
    add_endpoint_flags,
    add_run_flags,
    endpoint_from_args,
    interrupt_on_sigterm,
)
from evalui.core.benchmark import base_type, option_default
from evalui.errors import InputError


def specs() -> list:
    """Every registered benchmark's spec, in the registry's order."""
    from evalui.core import registry

    return [registry.get(name) for name in registry.names()]


def own_groups(all_specs: list) -> list[str]:
    """The groups of the benchmarks that add commands of their own, in the registry's order."""
    return list(dict.fromkeys(spec.cli_command()[0] for spec in all_specs if spec.cli_commands))


def register_own(benchmarks, all_specs: list) -> dict:
    """A group per benchmark that adds commands of its own, with them; returns the groups by name
    (register adds the run commands to them)."""
    groups: dict = {}
    for spec in all_specs:
        if spec.cli_commands is None:
            continue
        group = spec.cli_command()[0]
        if group not in groups:
            parser = benchmarks.add_parser(group, help=spec.cli_help or spec.title)
            groups[group] = parser.add_subparsers(dest="command", required=True)
        spec.cli_commands(groups[group], KIT)
    return groups


def register(benchmarks, groups: dict) -> None:
    """A run command per registered benchmark, in its group's sub-commands (``groups``: the groups
    already made, by name; a benchmark with a group of its own gets one)."""
    from evalui.core import registry

    for name in registry.names():
        spec = registry.get(name)
        group, command = spec.cli_command()
        if group not in groups:
            parser = benchmarks.add_parser(group, help=spec.cli_help or spec.title)
            groups[group] = parser.add_subparsers(dest="command", required=True)
        add_run_command(groups[group], command, spec)


def add_run_command(commands, command: str, spec) -> None:
    run = commands.add_parser(command, help=f"{spec.title}: run it against an OpenAI-compatible endpoint")
    if spec.cli_flags:
        spec.cli_flags(run)
    hints = typing.get_type_hints(spec.options)
    shared = {}  # options named like a common flag (--seed) read that flag
    add_endpoint_flags(run, model_help=spec.model_help)
    add_run_flags(run, epochs=spec.epochs)
    for field in spec.asked_fields():
        meta = field.metadata
        flag = meta.get("flag") or f"--{field.name.replace('_', '-')}"
        existing = run._option_string_actions.get(flag)
        if existing is not None:
            shared[field.name] = existing.dest
            continue
        kind = base_type(hints.get(field.name))
        default = option_default(field)
        help_text = meta.get("help") or _type_name(kind)
        if default not in (None, "", []) and "default" not in help_text:
            help_text += f" (default: {','.join(default) if isinstance(default, list) else default})"
        run.add_argument(flag, dest=f"option_{field.name}", required=bool(meta.get("required")),
                         choices=meta.get("choices"), type=kind if kind in (int, float) else None, help=help_text,
                         metavar=None if meta.get("choices") else flag.lstrip("-").replace("-", "_").upper())
    run.set_defaults(handler=run_benchmark, benchmark_name=spec.name, shared_options=shared)


def _type_name(kind) -> str:
    return getattr(kind, "__name__", None) or str(kind).replace("typing.", "")


def options_from(spec, args):
    """The options a command line gives: its flags, then the benchmark's own reading of its extras."""
    given = {f.name: getattr(args, args.shared_options.get(f.name, f"option_{f.name}")) for f in spec.asked_fields()}
    try:
        return spec.make_options(spec.cli_options(args, {k: v for k, v in given.items() if v is not None}))
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None


def settings_for(spec, options, args):
    """The endpoint, unless the options name who answers instead (GAIA's --agent)."""
    return None if spec.answered_by(options) else endpoint_from_args(args)


def start(spec, options, args, settings, store, *, exp_id: str | None = None) -> str:
    """Check the endpoint, then register the command's run (or reopen it to resume), as the dashboard
    does (evalui.run.run.prepare); bad input and a dead endpoint become a one-line error."""
    from evalui.run.run import prepare

    try:
        run = prepare(store, spec, options, settings, epochs=getattr(args, "epochs", None),
                      max_cost_usd=getattr(args, "max_cost", None), check=getattr(args, "check_endpoint", True),
                      exp_id=exp_id or args.exp_id, concurrency=args.concurrency, requests_per_minute=args.rpm,
                      out=args.out)
    except (ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None
    return run.exp_id


def run_to_end(spec, args, settings, store, run_id: str, phases=None) -> dict:
    from evalui.run import lifecycle

    bar = ProgressBar(f"{spec.name} {run_id}")
    try:
        return lifecycle.execute(store, run_id, settings, concurrency=args.concurrency,
                                 requests_per_minute=args.rpm, on_progress=bar, phases=phases)
    finally:
        bar.close()


def run_benchmark(args) -> int:
    interrupt_on_sigterm()
    from evalui.cli.summary import print_summary
    from evalui.core import registry
    from evalui.run.phases import RunPhases
    from evalui.store.run_store import RunStore

    phases = RunPhases.since_process_start()  # where the command's time went: its summary's ``timings``

    spec = registry.get(args.benchmark_name)
    options = options_from(spec, args)
    settings = settings_for(spec, options, args)
    store = RunStore()
    try:
        summary = run_to_end(spec, args, settings, store, start(spec, options, args, settings, store), phases)
    finally:
        store.close()
    print_summary({**spec.cli_summary(summary), "timings": phases.timings()})
    return 0


def _print_summary(summary: dict) -> None:
    from evalui.cli.summary import print_summary

    print_summary(summary)


# What a benchmark's own commands (Benchmark.cli_commands) use of the CLI: they live in the benchmark's
# package, which may not import the CLI, so the CLI lends it to them.
KIT = types.SimpleNamespace(
    add_endpoint_flags=add_endpoint_flags,  # (parser, model_help=…): --base-url, --model, --api-key-env, …
    add_run_flags=add_run_flags,  # (parser): --exp-id, --concurrency, --rpm, --out, --seed, …
    endpoint_from_args=endpoint_from_args,  # (args) -> EndpointSettings
    interrupt_on_sigterm=interrupt_on_sigterm,
    start=start,  # (spec, options, args, settings, store, exp_id=…) -> run id
    run_to_end=run_to_end,  # (spec, args, settings, store, run id) -> summary
    print_summary=_print_summary,  # the command's last line: its JSON summary, judged by the CI gate
)
