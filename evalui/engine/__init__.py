"""The run engine shared by every launcher: model client, run store and concurrent runner."""
