"""Stored runs in other tools' formats (Inspect AI's eval log)."""
