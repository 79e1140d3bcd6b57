"""Endpoint settings for any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, HF router)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from urllib.parse import urlparse

from evalui.endpoint.url_policy import redact_url, url_secrets

HF_ROUTER_URL = "https://router.huggingface.co/v1"
DEFAULT_TEMPERATURE = 0.001  # bfcl-eval's default (`bfcl generate --temperature`)


@dataclass(frozen=True)
class EndpointSettings:
    base_url: str
    model: str
    # The key is held only in memory: repr() hides it and nothing persists it.
    api_key: str = field(default="", repr=False)
    # bfcl generate's defaults, for every benchmark: temperature 0.001, and no max_tokens in the
    # request (the server's own limit applies), so a long answer is never cut short by evalui.
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    # None: EVALUI_MAX_RESPONSE_BYTES, or 2 MB.
    max_response_bytes: int | None = None
    # Optional prices per million tokens, for a run's cost; nothing is charged or checked.
    price_input_per_m: float | None = None
    price_output_per_m: float | None = None

    def public(self) -> dict:
        """What may be stored, logged or exported: everything but the key."""
        return {
            "base_url": redact_url(self.base_url),
            "host": self.host,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "max_response_bytes": self.max_response_bytes,
            "price_input_per_m": self.price_input_per_m,
            "price_output_per_m": self.price_output_per_m,
        }

    @property
    def host(self) -> str:
        """host[:port], never the user:password a URL may carry."""
        netloc = urlparse(self.base_url).netloc.rsplit("@", 1)[-1]
        return netloc or redact_url(self.base_url)

    def secrets(self) -> list[str]:
        """Everything that must never be stored or shown: the key and what the URL carries."""
        return [s for s in (self.api_key, *url_secrets(self.base_url)) if s and len(s) >= 4]

    def with_key_from_env(self, variable: str | None) -> EndpointSettings:
        if not variable:
            return self
        return replace(self, api_key=os.environ.get(variable, ""))


def default_endpoint() -> tuple[str, str, str]:
    """(base URL, key, where it came from) from the environment.

    OPENAI_BASE_URL / OPENAI_API_KEY win; with only HF_TOKEN set, the Hugging Face router is used.
    """
    base = os.environ.get("OPENAI_BASE_URL", "")
    key = os.environ.get("OPENAI_API_KEY", "")
    if base or key:
        return base or "https://api.openai.com/v1", key, "OPENAI_BASE_URL / OPENAI_API_KEY"
    token = os.environ.get("HF_TOKEN", "")
    if token:
        return HF_ROUTER_URL, token, "HF_TOKEN (Hugging Face router)"
    return "", "", "not set"
