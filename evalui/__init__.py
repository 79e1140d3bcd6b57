"""evalui: an evaluation dashboard for LLM agents (BFCL, GAIA, AIME generation and judging)."""

__version__ = "0.1.0"
