"""Flags and helpers shared by the run commands."""

from __future__ import annotations

import contextlib

import os
import signal
import time

from evalui.cli.gate import add_gate_flags
from evalui.errors import InputError


def interrupt_on_sigterm() -> None:
    """SIGTERM stops a run as Ctrl-C does: answered samples are kept and the run can resume."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def add_endpoint_flags(parser, *, model_help: str = "model name at the endpoint") -> None:
    from evalui.engine.settings import DEFAULT_TEMPERATURE

    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY",
                        help="environment variable that holds the API key (the key itself is never a flag)")
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                        help=f"sampling temperature (default {DEFAULT_TEMPERATURE}, bfcl-eval's)")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="cap on each reply's tokens (default: none sent, as bfcl-eval sends none; "
                        "the server's own limit applies)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=4)
    parser.add_argument("--price-input", type=float, help="price per million input tokens, for the run's cost")
    parser.add_argument("--price-output", type=float, help="price per million output tokens, for the run's cost")


DEFAULT_CONCURRENCY = 8


def add_run_flags(parser, *, epochs: bool = False) -> None:
    """``epochs``: the command passes --epochs to evalui.engine.epochs.add_epochs after preparing its run."""
    parser.add_argument("--concurrency", type=int, help=f"requests in flight at once (default {DEFAULT_CONCURRENCY}, "
                        "or what a resumed run was started with)")
    parser.add_argument("--rpm", type=float, help="at most this many requests per minute")
    parser.add_argument("--exp-id", help="name of the run; an existing one resumes")
    parser.add_argument("--out", help="folder for the exports (default: $EVALUI_DATA_DIR/runs/EXP_ID)")
    parser.add_argument("--seed", type=int, default=0, help="seed for any sampling the run does")
    if epochs:
        parser.add_argument("--epochs", type=int, help="ask each sample this many times (default 1, or what a "
                            "resumed run was started with): mean accuracy with its standard error, and pass@k")
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


def endpoint_from_args(args):
    from evalui.engine.settings import EndpointSettings

    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL", "")
    if not base_url:
        raise InputError("--base-url is required (or set OPENAI_BASE_URL)")
    from evalui.engine.url_policy import RefusedURL, check_base_url

    try:
        check_base_url(base_url)
    except RefusedURL as exc:
        raise InputError(f"--base-url: {exc}") from None
    if not args.model:
        raise InputError("--model is required")
    if args.concurrency is not None and args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
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
        self._bar.set_postfix(correct=progress.correct, errors=progress.errors, tokens=progress.tokens, refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()


@contextlib.contextmanager
def stored_run_operation(*refusals: type[Exception]):
    """The run store for one command: closed after it, and a refusal (an unknown run, a bad option)
    said in one line instead of a traceback."""
    from evalui.engine.store import RunStore

    store = RunStore()
    try:
        yield store
    except (ValueError, *refusals) as exc:
        raise InputError(str(exc)) from None
    finally:
        store.close()
