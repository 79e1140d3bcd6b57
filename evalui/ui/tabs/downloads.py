"""A run's files in one menu: a closed accordion that names how many files there are and holds the
download links, instead of a list of links down the run page."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from evalui.ui.i18n.strings import t
from evalui.ui.web.access import say


@dataclass
class DownloadMenu:
    box: gr.Accordion
    files: gr.File

    def outputs(self) -> list:
        """The components ``filled`` updates, in its order."""
        return [self.box, self.files]


def menu(elem_id: str, label=None) -> DownloadMenu:
    """The menu; the file list keeps ``elem_id``, the accordion is ``<elem_id>-menu``."""
    with gr.Accordion(t("run_page.downloads"), open=False, elem_id=f"{elem_id}-menu") as box:
        # Not interactive: a list of links to take, never an upload box.
        files = gr.File(label=label or t("run_page.files"), file_count="multiple", interactive=False,
                        elem_id=elem_id)
    return DownloadMenu(box, files)


def filled(paths) -> tuple:
    """The menu's updates for ``paths`` (none: the menu says so by its plain name)."""
    paths = [str(p) for p in paths or []]
    label = say("run_page.downloads_n", n=len(paths)) if paths else say("run_page.downloads")
    return gr.update(label=label), paths or None
