"""The model client: an OpenAI-compatible endpoint, its retries, breaker, limiter, TLS, URL policy and preflight check."""
