"""Whether the dashboard runs as a Hugging Face Space (a module of its own: the tabs ask it too)."""

from __future__ import annotations

import os


def on_space() -> bool:
    """Hugging Face sets both on every Space; Gradio itself goes by SYSTEM."""
    return bool(os.environ.get("SPACE_ID")) and os.environ.get("SYSTEM") == "spaces"
