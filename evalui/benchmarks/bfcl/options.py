"""A BFCL run's options, as the CLI's flags and the tab's inputs ask for them, and the checks made
before a run is registered."""

from __future__ import annotations

from pydantic import field_validator

from evalui.core.benchmark import Options, option
from evalui.core.options import limit_or_none

MODES = ("fc", "prompt")


class BfclOptions(Options):
    categories: list[str] = option(
        default_factory=lambda: ["simple_python"], flag="--category", required=True, label="bfcl.categories",
        help="one category or several, comma-separated; 'all': the whole leaderboard set (BFCL v4 overall: "
             "non-live, live, irrelevance, multi-turn, memory and web search)")
    limit: int | None = option(None, help="at most N samples per category (0: all)", label="bfcl.limit")
    mode: str = option("fc", choices=MODES, label="bfcl.mode",
                       help="fc: native tool calls; prompt: the model writes [func(param=value)]")
    # Web search categories: the provider ("" picks from the environment), and a folder to record
    # every search and fetch to, or to replay them from (never going online).
    web_search: str = option("", help="web search categories: serpapi (SERPAPI_API_KEY), searxng "
                                      "(EVALUI_WEB_SEARCH_URL) or module:attr; by default picked from the environment")
    web_record: str = option("", help="store every web search and fetch in this folder")
    web_replay: str = option("", help="answer web searches and fetches from a recording in this folder, never "
                                      "going online")
    # The leaderboard prints a registered model's name, link, organisation and licence; an endpoint's
    # own model name (a vLLM served name, say) is not in bfcl-eval's registry.
    leaderboard_model: str = option("", help="write the leaderboard CSVs under this bfcl-eval registry model's name "
                                             "and metadata, as `bfcl evaluate --model NAME` writes them "
                                             "(default: the endpoint's model name)")

    @field_validator("categories")
    @classmethod
    def _expanded(cls, categories: list[str]) -> list[str]:
        return expand_categories(categories)

    @field_validator("limit")
    @classmethod
    def _limit(cls, limit: int | None) -> int | None:
        return limit_or_none(limit, "samples")

    @field_validator("leaderboard_model")
    @classmethod
    def _stripped(cls, name: str) -> str:
        return name.strip()

    def web_options(self):
        from evalui.benchmarks.bfcl.agentic.web_search import WebSearchOptions

        return WebSearchOptions(provider=self.web_search, record_dir=self.web_record, replay_dir=self.web_replay)


def check_options(options: BfclOptions, settings, stored: dict | None) -> tuple[BfclOptions, dict]:
    """Refuse, before anything is registered, what cannot run here (the model's validators have
    already read the values: ``all`` became its categories)."""
    from evalui.endpoint.local import model as local_model

    if settings is not None and settings.model == local_model.MODEL_NAME and options.mode not in local_model.MODES:
        raise ValueError(f"the local model ({local_model.MODEL_NAME}) has no function-calling format and supports "
                         "BFCL's prompt mode only: choose prompt mode")
    if options.leaderboard_model:
        check_leaderboard_model(options.leaderboard_model, options.mode)
    check_agentic_backends(options)
    return options, {}


def check_leaderboard_model(name: str, mode: str) -> None:
    """A registry model whose kind (function calling or prompt) is the run's mode: bfcl evaluates
    its result files by that kind, so another would not be the leaderboard's row for them."""
    from evalui.benchmarks.bfcl.leaderboard_csv import registry_entry
    from evalui.errors import InputError

    entry = registry_entry(name)
    if entry is None:
        raise InputError(f"{name!r} is not a model in bfcl-eval's registry (bfcl models lists them); leave the "
                         "leaderboard model empty to use the endpoint's model name")
    if bool(entry.is_fc_model) != (mode == "fc"):
        kind = "function-calling" if entry.is_fc_model else "prompt"
        raise InputError(f"{name!r} is a {kind} model in bfcl-eval's registry, and this run is in {mode} mode: choose "
                         f"a model of the run's kind (FC models end in -FC)")


def check_agentic_backends(options: BfclOptions) -> None:
    """Refuse a run whose memory or web backends cannot be built here."""
    from evalui.benchmarks.bfcl.agentic.backends import BackendUnavailable, memory_class
    from evalui.benchmarks.bfcl.scoring.single_turn import MEMORY_CATEGORIES, WEB_SEARCH_CATEGORIES
    from evalui.errors import InputError

    for category in set(options.categories) & set(MEMORY_CATEGORIES):
        try:
            memory_class(category)
        except BackendUnavailable as exc:
            raise InputError(str(exc)) from None
    if set(options.categories) & set(WEB_SEARCH_CATEGORIES):
        from evalui.benchmarks.bfcl.agentic.web_search import check_web_options

        check_web_options(options.web_options())


def expand_categories(categories: list[str]) -> list[str]:
    """The categories asked for, ``all`` standing for the whole leaderboard set (BFCL v4's overall score)."""
    from evalui.benchmarks.bfcl.scoring.leaderboard import LEADERBOARD_CATEGORIES

    chosen: list[str] = []
    for category in (c.strip() for c in categories):
        for name in (LEADERBOARD_CATEGORIES if category == "all" else (category,) if category else ()):
            if name not in chosen:
                chosen.append(name)
    return chosen


def cli_summary(summary: dict) -> dict:
    return {key: summary[key] for key in ("exp_id", "total", "correct", "accuracy", "errors", "duration_s", "out_dir",
                                          "status", "by_category", "leaderboard", "epochs", "cost") if key in summary}
