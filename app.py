"""Entry point of the evalui dashboard (also the Hugging Face Space's app_file)."""

from __future__ import annotations

from evalui.ui import build_demo


def main() -> None:
    demo = build_demo()
    demo.queue(default_concurrency_limit=4)
    demo.launch()


if __name__ == "__main__":
    main()
