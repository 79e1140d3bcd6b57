"""Entry point of the evalui dashboard (also the Hugging Face Space's app_file)."""

from __future__ import annotations

import threading

from evalui.config import runs_dir
from evalui.ui import build_demo
from evalui.ui.verify_tab import KEYBOARD_SHORTCUTS_JS

MAX_UPLOAD = "50mb"


def launch_options() -> dict:
    return {
        # Keys are typed into the page; the browser must not keep them in its run history.
        "run_history": False,
        # Only run artefacts are served, nothing else of the data folder.
        "allowed_paths": [str(runs_dir())],
        "max_file_size": MAX_UPLOAD,
        "head": KEYBOARD_SHORTCUTS_JS,
    }


def warm_up_checker() -> None:
    """Import bfcl-eval's checker in the background: its first import takes seconds."""
    from evalui.scoring.bfcl_official import BfclUnavailable, load_official

    try:
        load_official()
    except BfclUnavailable as exc:
        print(f"evalui: BFCL scoring is unavailable: {exc}")


def main() -> None:
    threading.Thread(target=warm_up_checker, name="evalui-warm-up", daemon=True).start()
    demo = build_demo()
    demo.queue(default_concurrency_limit=4)
    demo.launch(**launch_options())


if __name__ == "__main__":
    main()
