"""The viewer's look, shared by the dashboard (each part's scoped css_template) and the static bundle."""

from __future__ import annotations

VERDICT_COLOURS = {"correct": "#1a7f37", "wrong": "#cf222e", "error": "#bc4c00", "unscored": "#6e7781",
                   "pending": "#6e7781"}

_VERDICTS = "".join(
    f'tr[data-verdict="{v}"] td[data-col="verdict"], .evalui-pill.evalui-v-{v} {{ color: #fff; background: {c}; }}\n'
    for v, c in VERDICT_COLOURS.items())

LIST_CSS = """
.evalui-list { font-size: 13px; outline: none; overflow-x: auto; }
.evalui-list table { width: 100%; border-collapse: collapse; table-layout: auto; }
.evalui-list th { cursor: pointer; user-select: none; text-align: left; padding: 4px 6px; white-space: nowrap;
  border-bottom: 2px solid #d0d7de; }
.evalui-list th[data-col="findings"] { cursor: default; }
.evalui-list td { padding: 3px 6px; border-bottom: 1px solid #eaeef2; overflow-wrap: normal; word-break: normal; }
.evalui-list td[data-col="id"], .evalui-list td[data-col="verdict"], .evalui-list td[data-col="latency_s"],
.evalui-list td[data-col="tokens"], .evalui-list td[data-col="findings"] { white-space: nowrap; }
.evalui-list tr[data-id] { cursor: pointer; }
.evalui-list tr[data-id]:hover { background: rgba(84, 174, 255, 0.12); }
.evalui-list tr.evalui-selected { outline: 2px solid #0969da; outline-offset: -2px; background: rgba(84, 174, 255, 0.2); }
.evalui-list td[data-col="verdict"] { border-radius: 4px; text-align: center; font-weight: 600; }
.evalui-list .evalui-flags { color: #bc4c00; }
.evalui-list-top { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; justify-content: space-between;
  margin-bottom: 6px; }
.evalui-pager { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
.evalui-list-top .evalui-pager { margin-top: 0; }
.evalui-page { white-space: nowrap; }
.evalui-pager button { padding: 2px 10px; border: 1px solid #d0d7de; border-radius: 4px; background: none; cursor: pointer; }
.evalui-pager button[disabled] { opacity: 0.4; cursor: default; }
.evalui-chooser summary { cursor: pointer; white-space: nowrap; }
.evalui-chooser > div { display: flex; flex-wrap: wrap; gap: 2px 12px; padding: 4px 0; }
.evalui-chooser label { white-space: nowrap; cursor: pointer; }
""" + _VERDICTS

TRANSCRIPT_CSS = """
.evalui-transcript pre, .evalui-pair pre, .evalui-json { white-space: pre-wrap; overflow-wrap: break-word;
  word-break: normal; margin: 4px 0; font-size: 12.5px; max-height: 480px; overflow: auto; }
.evalui-tabbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 6px; }
.evalui-tabbar button { padding: 2px 12px; border: 1px solid #d0d7de; border-radius: 4px; background: none;
  cursor: pointer; white-space: nowrap; font-size: 13px; font-weight: normal; }
.evalui-tabbar button[aria-selected="true"] { background: rgba(84, 174, 255, 0.2); border-color: #0969da; }
.evalui-tabbar .evalui-copy[data-copied="true"] { border-color: #1a7f37; }
.evalui-sample[data-tab="transcript"] .evalui-tab-json, .evalui-sample[data-tab="json"] .evalui-tab-transcript {
  display: none; }
.evalui-json { max-height: 760px; }
.evalui-hits { color: #6e7781; }
mark.evalui-hit { background: #fff3b0; color: inherit; padding: 0 1px; border-radius: 2px; }
.evalui-pill { padding: 1px 8px; border-radius: 10px; font-weight: 600; }
.evalui-score { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; margin: 6px 0; }
.evalui-score-metadata th { text-align: left; padding-right: 12px; font-weight: 500; }
.evalui-verdict-table td { vertical-align: top; }  /* an attribute beside the top of its values */
.evalui-msg { border-left: 4px solid #d0d7de; padding: 4px 8px; margin: 8px 0; }
.evalui-msg.evalui-role-system { border-color: #8250df; }
.evalui-msg.evalui-role-user { border-color: #0969da; }
.evalui-msg.evalui-role-assistant { border-color: #1a7f37; }
.evalui-msg.evalui-role-tool { border-color: #bc4c00; }
.evalui-msg-head { font-size: 12px; }
.evalui-figures { color: #6e7781; margin-left: 8px; }
details.evalui-fold > summary { cursor: pointer; font-family: monospace; font-size: 12.5px; }
.evalui-aligned-calls td { vertical-align: top; padding: 2px 6px; font-size: 12.5px; overflow-wrap: break-word; word-break: normal; }
.evalui-call-changed { background: rgba(212, 167, 44, 0.2); }
.evalui-call-only_a { background: rgba(207, 34, 46, 0.12); }
.evalui-call-only_b { background: rgba(26, 127, 55, 0.12); }
""" + _VERDICTS
