"""The scoring core: pure functions shared by the CLI, the run engine and the UI.

Nothing here reads files, opens sockets or imports gradio.
"""
