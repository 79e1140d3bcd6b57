"""The core vocabulary every layer shares: the benchmark spec and its hooks, the run record's types, the benchmark registry."""
