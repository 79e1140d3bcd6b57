"""The sample inspector is now the sample viewer (evalui.ui.viewer): a paged, sortable, filterable list
beside a transcript pane. This name stays for the tabs that include it with one line."""

from __future__ import annotations

from evalui.ui.viewer import ViewerParts as InspectorParts  # noqa: F401  (re-exported)
from evalui.ui.viewer import build, include, open_run  # noqa: F401  (re-exported)
from evalui.ui.viewer_labels import precision_line  # noqa: F401  (re-exported)
