"""Flags and helpers shared by the run commands."""

from __future__ import annotations

import contextlib
import os
import signal
import time

from evalui.cli.gate import add_gate_flags
from evalui.errors import InputError


def share(value) -> str:
    """A proportion as the text summaries print it; "–" when there is none."""
    return "–" if value is None else f"{value:.1%}"


def interrupt_on_sigterm() -> None:
    """SIGTERM stops a run as Ctrl-C does: answered samples are kept and the run can resume."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def add_endpoint_flags(parser, *, model_help: str = "model name at the endpoint") -> None:
    from evalui.endpoint.settings import DEFAULT_TEMPERATURE

    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY",
                        help="environment variable that holds the API key (the key itself is never a flag)")
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                        help=f"sampling temperature (default {DEFAULT_TEMPERATURE}, the official function-calling harness's)")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="cap on each reply's tokens (default: none sent, as the official harnesses send none; "
                        "the server's own limit applies)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=4)
    parser.add_argument("--price-input", type=float, help="USD per million input tokens, for the run's cost (default: "
                        "the model's line in --prices FILE, else in evalui's pinned, dated table, else unpriced; "
                        "0 for both prices is no price, as on the dashboard)")
    parser.add_argument("--price-output", type=float, help="USD per million output tokens (give both prices)")
    parser.add_argument("--prices", type=_use_prices_file, metavar="FILE",
                        help='a JSON price table, {"models": {"NAME": {"input_per_m": X, "output_per_m": Y}}}, '
                        "consulted before evalui's own (default: $EVALUI_PRICES)")


DEFAULT_CONCURRENCY = 8


def add_run_flags(parser, *, epochs: bool = False) -> None:
    """``epochs``: the command passes --epochs to evalui.run.epochs.add_epochs after preparing its run."""
    parser.add_argument("--concurrency", type=int, help=f"requests in flight at once (default {DEFAULT_CONCURRENCY}, "
                        "or what a resumed run was started with)")
    parser.add_argument("--rpm", type=float, help="at most this many requests per minute")
    parser.add_argument("--exp-id", help="name of the run; an existing one resumes")
    parser.add_argument("--out", help="folder for the exports (default: $EVALUI_DATA_DIR/runs/EXP_ID)")
    parser.add_argument("--seed", type=int, default=0, help="seed for any sampling the run does")
    if epochs:
        parser.add_argument("--epochs", type=int, help="ask each sample this many times (default 1, or what a "
                            "resumed run was started with): mean accuracy with its standard error, and pass@k")
    parser.add_argument("--no-check", dest="check_endpoint", action="store_false",
                        help="skip the endpoint check: by default one tiny request (one token) refuses a dead or "
                        "misconfigured endpoint before anything is registered, as the dashboard does")
    parser.add_argument("--max-cost", type=float, metavar="USD",
                        help="stop the run cleanly once its samples have cost this much (needs a price; in-flight "
                        "samples finish); resume it with a higher --max-cost (default: none, or what a resumed run has)")
    add_gate_flags(parser)  # every run command can gate a CI job
    add_database_flag(parser)


def add_database_flag(parser) -> None:
    # The flag only sets the environment variable every RunStore() reads, before any store is opened.
    parser.add_argument("--database-url", type=_use_database_url, metavar="URL",
                        help="the run store: postgresql://user:pw@host/db shares runs between workers and "
                        "machines (default: $EVALUI_DATABASE_URL, else SQLite in the data folder)")


def _use_database_url(url: str) -> str:
    os.environ["EVALUI_DATABASE_URL"] = url
    return url


def _use_prices_file(path: str) -> str:
    # As --database-url: the environment variable every price look-up reads, checked before any run.
    import argparse

    from evalui.run.pricing import PRICES_ENV, load_prices

    try:
        load_prices(path)
    except (OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    os.environ[PRICES_ENV] = path
    return path


def endpoint_from_args(args):
    from evalui.endpoint.settings import EndpointSettings

    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL", "")
    if not base_url:
        raise InputError("--base-url is required (or set OPENAI_BASE_URL)")
    from evalui.endpoint.url_policy import RefusedURL, check_base_url

    try:
        check_base_url(base_url)
    except RefusedURL as exc:
        raise InputError(f"--base-url: {exc}") from None
    if not args.model:
        raise InputError("--model is required")
    if args.concurrency is not None and args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if (getattr(args, "price_input", None) is None) != (getattr(args, "price_output", None) is None):
        raise InputError("give both --price-input and --price-output (USD per million tokens), or neither")
    return EndpointSettings(
        base_url=base_url,
        model=args.model,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        price_input_per_m=getattr(args, "price_input", None),
        price_output_per_m=getattr(args, "price_output", None),
    ).with_key_from_env(args.api_key_env)


class ProgressBar:
    """A tqdm bar fed by the runner's progress events (which arrive from worker threads)."""

    def __init__(self, description: str):
        from tqdm import tqdm

        self._bar = tqdm(total=0, desc=description, unit="sample", dynamic_ncols=True)
        self._drawn_at = 0.0

    def __call__(self, progress) -> None:
        if self._bar.total != progress.total:
            self._bar.total = progress.total
        self._bar.n = progress.done
        # A redraw costs more than a fast sample: at most ten a second, and always the last one.
        now = time.monotonic()
        if now - self._drawn_at < 0.1 and progress.done < progress.total:
            return
        self._drawn_at = now
        cost = {}
        if progress.cost_usd is not None:
            cost["usd"] = f"{progress.cost_usd:.4f}"
        if progress.cost_estimate_usd is not None:  # after the first few samples: the whole run's, at their mean
            cost["usd_est"] = f"{progress.cost_estimate_usd:.4f}"
        # While the endpoint is down the run waits for it: the bar says so, not a frozen count.
        state = {"paused": "endpoint down, probing"} if getattr(progress, "paused", "") else {}
        self._bar.set_postfix(correct=progress.correct, errors=progress.errors, tokens=progress.tokens, **cost,
                              in_flight=getattr(progress, "in_flight", 0), **state, refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()


@contextlib.contextmanager
def stored_run_operation(*refusals: type[Exception]):
    """The run store for one command: closed after it, and a refusal (an unknown run, a bad option)
    said in one line instead of a traceback."""
    from evalui.store.run_store import RunStore

    store = RunStore()
    try:
        yield store
    except (ValueError, *refusals) as exc:
        raise InputError(str(exc)) from None
    finally:
        store.close()
