"""BFCL's ``WebSearchAPI`` with evalui's web under it: real providers, record and replay.

The class the model talks to is bfcl-eval's own: its function docs, ``_load_scenario`` (which sets
``show_snippet`` for ``web_search_no_snippet``), its result formatting and fetch modes (raw,
markdown through html2text, truncate through BeautifulSoup) and its error texts. Only the network
is evalui's: bfcl's two methods run as they are, byte code and all, with the two names through
which they reach the network (``GoogleSearch`` and ``requests``) bound to a ``WebSource``. Copying
their bodies instead would let them drift from the version installed; ``_checked_official``
refuses a bfcl whose methods reach anything else at module level, so nothing can go online
around the source.

bfcl's random "fake errors" (``_fake_requests_get_error_msg``, seeded 337 and 1053 per instance)
are commented out in bfcl-eval 2026.3.23, and evalui runs that same code: no error is injected.
Were a later bfcl to enable them, they would come from the per-instance generators, which a fresh
instance per entry makes reproducible per entry, and after the source, so a replay repeats them.

Providers: ``serpapi`` (as upstream: SERPAPI_API_KEY, base URL EVALUI_SERPAPI_URL), ``searxng``
(EVALUI_WEB_SEARCH_URL, as the GAIA web tool), or ``module:attr``. Chosen by the option, else
EVALUI_BFCL_WEB_SEARCH, else serpapi when its key is set, else searxng when its URL is set.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
import types
from pathlib import Path

from evalui.benchmarks.bfcl import settings as bfcl_settings
from evalui.benchmarks.bfcl.agentic.web_record import WebStore, recording_files, recording_hash
from evalui.benchmarks.bfcl.agentic.web_sources import (
    ModuleProvider,
    SearxngProvider,
    SerpApiProvider,
    WebSource,
    scrub,
    serpapi_key,
)
from evalui.benchmarks.gaia.tools.web import SEARCH_URL_ENV, HttpWebBackend
from evalui.endpoint.url_policy import url_secrets
from evalui.errors import InputError
from evalui.settings import read

PROVIDER_ENV = "EVALUI_BFCL_WEB_SEARCH"
SERPAPI_KEY_ENV = "SERPAPI_API_KEY"
# The module-level names each official method uses; the network ones are replaced.
OFFICIAL_GLOBALS = {
    "search_engine_query": frozenset({"GoogleSearch", "os", "random", "time"}),
    "fetch_url_content": frozenset({"BeautifulSoup", "html2text", "requests"}),
}
log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class WebSearchOptions:
    """How a run reaches the web; plain strings, so it travels to the worker processes."""

    provider: str = ""  # serpapi | searxng | module:attr; "" picks (see the module's doc)
    record_dir: str = ""  # --web-record DIR
    replay_dir: str = ""  # --web-replay DIR: answers from there only, never online

    @property
    def mode(self) -> str:
        return "replay" if self.replay_dir else "record" if self.record_dir else "live"


def _picked_provider(options: WebSearchOptions) -> str:
    chosen = (options.provider or bfcl_settings.read("bfcl_web_search")).strip()
    if chosen:
        return chosen
    if serpapi_key():
        return "serpapi"
    return "searxng" if read("web_search_url") else "serpapi"


def check_web_options(options: WebSearchOptions | None = None) -> WebSearchOptions:
    """The options with the provider picked, checked before a run starts; InputError says what is wrong."""
    options = options or WebSearchOptions()
    if options.record_dir and options.replay_dir:
        raise InputError("--web-record and --web-replay cannot be used together")
    if options.replay_dir:
        if not recording_files(options.replay_dir):
            raise InputError(f"--web-replay: {options.replay_dir} holds no web recording")
        return dataclasses.replace(options, provider="replay")
    provider = _picked_provider(options)
    if provider == "serpapi":
        if not serpapi_key():
            raise InputError(f"BFCL web search through SerpAPI needs {SERPAPI_KEY_ENV} (or choose another "
                             f"provider with {PROVIDER_ENV}=searxng or module:attr, or replay a recording)")
    elif provider == "searxng":
        if "{query}" not in read("web_search_url"):
            raise InputError(f"BFCL web search through SearXNG needs {SEARCH_URL_ENV}, a URL with {{query}} in it")
    elif ":" in provider:
        _provider(provider)  # raises InputError if it cannot be loaded; built once per process
    else:
        raise InputError(f"the web search provider is serpapi, searxng or module:attr, not {provider!r}")
    return dataclasses.replace(options, provider=provider)


def _secrets() -> tuple[str, ...]:
    return (serpapi_key(), *url_secrets(read("web_search_url")), *url_secrets(bfcl_settings.read("serpapi_url")))


def _provider(name: str):
    if name == "serpapi":
        return _built_provider(name, bfcl_settings.read("serpapi_url"))
    return _built_provider(name, read("web_search_url") if name == "searxng" else "")


@functools.lru_cache(maxsize=8)
def _built_provider(name: str, address: str):
    # One per worker process, provider and address: a plug-in may be costly to build.
    if name == "serpapi":
        return SerpApiProvider(address)
    return SearxngProvider(address) if name == "searxng" else ModuleProvider(name)


def web_source(options: WebSearchOptions) -> WebSource:
    """The web for one conversation under checked options."""
    secrets = _secrets()
    deadline_s = HttpWebBackend("").deadline_s  # EVALUI_WEB_FETCH_DEADLINE_S, as for the GAIA web tool
    if options.replay_dir:
        return WebSource(None, store=WebStore(options.replay_dir, secrets), replay=True, secrets=secrets)
    store = WebStore(options.record_dir, secrets) if options.record_dir else None
    return WebSource(_provider(options.provider), store=store, deadline_s=deadline_s, secrets=secrets)


def _official_module():
    from evalui.benchmarks.bfcl.scoring.official import load_official

    load_official()  # sets BFCL_PROJECT_ROOT before bfcl_eval modules are imported
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    return importlib.import_module(CLASS_FILE_PATH_MAPPING["WebSearchAPI"])


def _checked_official(module) -> type:
    official = module.WebSearchAPI
    for name, expected in OFFICIAL_GLOBALS.items():
        used = {n for n in getattr(official, name).__code__.co_names if n in vars(module)}
        if used != expected:
            raise RuntimeError(f"bfcl-eval's WebSearchAPI.{name} uses {sorted(used)}, not {sorted(expected)}: "
                               "evalui cannot put its web under it safely")
    return official


class _SearchCall:
    """What bfcl's ``GoogleSearch(params)`` builds: ``get_dict()`` asks the source."""

    def __init__(self, source: WebSource, params: dict):
        self.source, self.params = source, params

    def get_dict(self) -> dict:
        return self.source.search(self.params)


class _Requests:
    """What bfcl's ``requests.get(url, headers=..., timeout=20, allow_redirects=True)`` reaches."""

    def __init__(self, source: WebSource):
        self.source = source

    def get(self, url, headers=None, timeout=None, allow_redirects=True):
        return self.source.fetch(url, headers)


@functools.cache
def web_search_class() -> type:
    """bfcl's WebSearchAPI with evalui's web under it; build instances with ``new_web_search_api``."""
    module = _official_module()
    official = _checked_official(module)

    class EvaluiWebSearchAPI(official):
        def __init__(self, source: WebSource):
            super().__init__()
            self.web = source
            namespace = {**vars(module), "GoogleSearch": lambda params: _SearchCall(source, params),
                         "requests": _Requests(source), "print": functools.partial(_log_print, source.secrets)}
            self._official_methods = {
                name: types.FunctionType(getattr(official, name).__code__, namespace, name,
                                         getattr(official, name).__defaults__)
                for name in OFFICIAL_GLOBALS}

        def search_engine_query(self, keywords, max_results=10, region="wt-wt"):
            return self._official_methods["search_engine_query"](self, keywords, max_results, region)

        def fetch_url_content(self, url, mode="raw"):
            return self._official_methods["fetch_url_content"](self, url, mode)

    for name in OFFICIAL_GLOBALS:  # the same docs and signature as bfcl's, for anything that reads them
        method = getattr(EvaluiWebSearchAPI, name)
        method.__doc__ = getattr(official, name).__doc__
        method.__annotations__ = dict(getattr(official, name).__annotations__)
    return EvaluiWebSearchAPI


def _log_print(secrets: tuple[str, ...], *parts, **_ignored) -> None:
    log.warning("%s", scrub(" ".join(str(p) for p in parts), secrets, query_strings=True))


def new_web_search_api(options: WebSearchOptions):
    """A fresh backend instance for one entry (call ``_load_scenario(initial_config)`` next, as for any)."""
    return web_search_class()(web_source(options))


def web_provenance(options: WebSearchOptions) -> dict:
    """What a run's provenance says of its web: the backend, the mode, and the recording and its hash."""
    record = {"web_backend": options.provider or "unchecked", "web_mode": options.mode}
    directory = options.replay_dir or options.record_dir
    if directory:
        record.update(web_recording=str(Path(directory)), web_recording_sha256=recording_hash(directory),
                      web_recording_entries=len(recording_files(directory)))
    return record
