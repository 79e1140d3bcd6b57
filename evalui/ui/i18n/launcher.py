"""The launcher's texts, in English and Chinese (merged into evalui.ui.i18n.strings.STRINGS): the
endpoint panel's one line once it is closed, and what the run bar says."""

from __future__ import annotations

LAUNCHER_STRINGS: dict[str, tuple[str, str]] = {
    # The closed endpoint panel's label; "✓" once the endpoint answered (a check, or a run's start).
    "endpoint.line": ("{model} @ {host}", "{model} @ {host}"),
    "endpoint.line_checked": ("{model} @ {host} ✓", "{model} @ {host} ✓"),
    # An empty base URL is the server's own endpoint, whose address never goes to the page.
    "endpoint.server_host": ("the server's endpoint", "服务器自己的端点"),
    # The run bar after its endpoint came back (the engine's circuit breaker resumed the run).
    "launcher.progress_resumed": ("resumed at {at}", "已于 {at} 恢复"),
}
