"""BFCL's own ``EVALUI_*`` variables (the generic ones are in evalui.settings; the configuration
reference merges both)."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from evalui import settings
from evalui.settings import ENV_PREFIX


class Settings(BaseSettings):
    """BFCL's environment variables."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    sample_call_seconds: float = Field(15.0, gt=0, description=(
        "The time all of one BFCL sample's calls may take together, replays included."))
    size_argument_limit: int | None = Field(None, ge=0, description=(
        "Replaces every bound on size arguments (counts, lengths) of BFCL's executable calls; unset, "
        "each argument's own bound."))
    bfcl_web_search: str = Field("", description=(
        "BFCL's web search provider: serpapi, searxng or module:attr; unset, serpapi when SERPAPI_API_KEY is "
        "set, else searxng when EVALUI_WEB_SEARCH_URL is set, else serpapi."))
    serpapi_url: str = Field("https://serpapi.com", description="The base URL of the serpapi provider.")


def read(field: str) -> Any:
    """One of BFCL's variables as it is now (``evalui.settings.read`` on this model)."""
    return settings.read(field, Settings)
