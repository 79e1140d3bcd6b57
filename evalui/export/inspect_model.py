"""The run's model as Inspect AI names one: ``<provider>/<model>``.

Inspect reads a log's model name to rebuild the model (``inspect score`` does so before it
scores), and refuses a name without a provider. evalui talks to an OpenAI-compatible endpoint:
where that is a provider Inspect has its own client for, the name is that provider's
(``openai/gpt-4o-mini`` for api.openai.com); any other endpoint is ``openai-api/<service>/<model>``,
Inspect's name for an OpenAI-compatible service, with the log's base URL pointing at it, so only
``<SERVICE>_API_KEY`` is needed to call it again. A run answered by a user's own agent has no
model Inspect could call: ``none/<agent>``.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# Hosts whose OpenAI-compatible API takes the same model names as Inspect's own client for them.
PROVIDERS = {"api.openai.com": "openai", "openrouter.ai": "openrouter", "api.together.xyz": "together",
             "api.fireworks.ai": "fireworks", "api.deepseek.com": "deepseek", "api.perplexity.ai": "perplexity",
             "api.groq.com": "groq", "api.mistral.ai": "mistral", "api.x.ai": "grok",
             "generativelanguage.googleapis.com": "google", "api.anthropic.com": "anthropic"}
LOCAL_SERVICE = "local"  # a server on this machine or a private address, which has no name of its own
# Labels that say what a host is, not whose: api.example.com and example.co.uk are "example".
_GENERIC_LABELS = {"api", "www", "llm", "inference", "co", "com", "org", "net", "ac", "gov", "edu"}


def _hostname(endpoint: dict | None) -> str:
    try:
        return (urlsplit(str((endpoint or {}).get("base_url") or "")).hostname or "").lower()
    except ValueError:
        return ""


def service_of(hostname: str) -> str:
    """A name for the endpoint's service, from its host (``api.example.com`` -> ``example``); Inspect
    derives the environment variables it reads from it, so it keeps to letters, digits and dashes."""
    try:
        ipaddress.ip_address(hostname)
        return LOCAL_SERVICE
    except ValueError:
        pass
    labels = [label for label in hostname.split(".") if label]
    if not labels or labels == ["localhost"]:
        return LOCAL_SERVICE
    named = [label for label in (labels[:-1] if len(labels) > 1 else labels) if label not in _GENERIC_LABELS]
    return re.sub(r"[^a-z0-9-]", "-", named[-1] if named else labels[0])


def inspect_model_name(model: str | None, endpoint: dict | None) -> str:
    """``<provider>/<model>`` for the run's model at its endpoint (``endpoint``: the stored, public
    endpoint settings; None when no endpoint answered)."""
    model = (model or "").strip() or "none"
    if endpoint is None:
        return f"none/{model}"
    hostname = _hostname(endpoint)
    provider = PROVIDERS.get(hostname)
    return f"{provider}/{model}" if provider else f"openai-api/{service_of(hostname)}/{model}"


def base_url(endpoint: dict | None) -> str | None:
    """The endpoint's base URL without what a stored URL may hide (a user, a query): where to call it."""
    raw = str((endpoint or {}).get("base_url") or "")
    try:
        parts = urlsplit(raw)
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{netloc}{parts.path}".rstrip("/") or None
