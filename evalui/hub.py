"""Whether the Hugging Face Hub can be reached, asked once and quickly before the libraries retry for minutes."""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request

from evalui.settings import Settings, read

HUB_UNREACHABLE = "The Hugging Face Hub cannot be reached"
HUB_PROBE_ENV = "EVALUI_HUB_PROBE_S"
HUB_PROBE_TIMEOUT_S: float = Settings.model_fields["hub_probe_s"].default  # bench/ names the default


def hub_probe_timeout_s() -> float:
    """How long the probe waits for the Hub: 3 s, or ``EVALUI_HUB_PROBE_S`` (longer for a slow link)."""
    return read("hub_probe_s")


def hub_endpoint() -> str:
    """The Hub huggingface_hub and datasets talk to: ``HF_ENDPOINT``, else huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def hub_unreachable(timeout: float | None = None) -> str | None:
    """None when the Hub answers within ``timeout`` seconds (by default ``hub_probe_timeout_s()``);
    otherwise a sentence saying it cannot be reached.

    huggingface_hub and datasets retry a silent Hub for minutes, so one quick request first lets a
    caller say so and fall back at once. Any HTTP answer, an error status included, means reachable.
    In offline mode the libraries read their caches without the network: there is nothing to probe.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}:
        return None
    timeout = hub_probe_timeout_s() if timeout is None else timeout
    endpoint = hub_endpoint()
    outcome: list[str | None] = []

    def probe():
        try:
            # The socket waits a little longer than the caller, so a silent Hub always reads as "no answer".
            request = urllib.request.Request(endpoint + "/", method="HEAD")
            urllib.request.urlopen(request, timeout=timeout + 1).close()
            outcome.append(None)
        except urllib.error.HTTPError as exc:
            exc.close()
            outcome.append(None)
        except Exception as exc:  # refused, unresolvable, TLS, timeout: all mean no Hub to talk to
            outcome.append(str(getattr(exc, "reason", None) or exc))

    # A thread, because name resolution ignores socket timeouts and can hang for longer.
    worker = threading.Thread(target=probe, name="hub-probe", daemon=True)
    worker.start()
    worker.join(timeout)
    if outcome and outcome[0] is None:
        return None
    reason = outcome[0] if outcome else f"no answer within {timeout:g} s"
    return f"{HUB_UNREACHABLE} ({endpoint}: {reason})"
