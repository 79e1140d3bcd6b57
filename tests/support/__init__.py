"""A scripted OpenAI-compatible HTTP peer, for tests, benchmarks and offline demos."""
