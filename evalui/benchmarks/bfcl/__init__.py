"""BFCL single-turn function calling."""
