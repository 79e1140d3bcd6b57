"""GAIA's own ``EVALUI_*`` variables (the generic ones are in evalui.settings; the configuration
reference merges both)."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from evalui import settings
from evalui.settings import ENV_PREFIX


class Settings(BaseSettings):
    """GAIA's environment variables."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    web_backend: str = Field("", description=(
        "The GAIA agent's web tool: http (evalui's own fetcher and EVALUI_WEB_SEARCH_URL) or module:attr; "
        "unset, the web tool is off."))
    allow_code: bool = Field(False, description=(
        "1 lets the GAIA agent's python tool run on a Hugging Face Space, where it is off otherwise."))
    agents: str = Field("", description=(
        "GAIA agents the dashboard offers besides the built-in one, comma-separated module:attr; visitors "
        "cannot name others."))


def read(field: str) -> Any:
    """One of GAIA's variables as it is now (``evalui.settings.read`` on this model)."""
    return settings.read(field, Settings)
