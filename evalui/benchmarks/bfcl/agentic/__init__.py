"""BFCL v4 agentic categories: memory and web search backends, and their player."""
