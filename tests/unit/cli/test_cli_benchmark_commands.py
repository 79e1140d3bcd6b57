"""A benchmark's own commands (Benchmark.cli_commands) live in its package and reach the CLI through
its spec: the generic CLI makes its group, lends it the kit, and adds the run command beside them."""

from __future__ import annotations

import argparse

import pytest

from evalui.cli import build_parser, generic
from evalui.core.benchmark import Benchmark, Options

pytestmark = pytest.mark.unit


class ToyOptions(Options):
    limit: int = 0


def _toy_commands(group, kit) -> None:
    hello = group.add_parser("hello", help="say hello")
    hello.set_defaults(handler=lambda args: kit.print_summary({"hello": "toy"}) or 0)


TOY = Benchmark(name="toy", title="Toy benchmark", options=ToyOptions, samples=lambda options: [],
                task=lambda options, store, exp_id: None, cli_commands=_toy_commands, cli_help="a toy")


def test_a_spec_s_own_commands_get_its_group_before_the_run_command(capsys):
    parser = argparse.ArgumentParser(prog="evalui")
    benchmarks = parser.add_subparsers(dest="benchmark", required=True)
    groups = generic.register_own(benchmarks, [TOY])
    generic.add_run_command(groups["toy"], "run", TOY)
    assert list(groups["toy"].choices) == ["hello", "run"] and generic.own_groups([TOY]) == ["toy"]
    args = parser.parse_args(["toy", "hello"])
    assert args.handler(args) == 0 and '"hello": "toy"' in capsys.readouterr().out


def test_the_built_in_benchmarks_bring_their_commands_through_their_specs():
    parser = build_parser()
    groups = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    commands = {name: list(next(a for a in groups[name]._actions if isinstance(a, argparse._SubParsersAction)).choices)
                for name in ("bfcl", "gaia", "aime")}
    assert commands == {"bfcl": ["score", "run"], "gaia": ["score", "run"],
                        "aime": ["evaluate", "calibrate", "generate", "judge", "winrate"]}
