"""The dashboard's run viewer: its page, its HTTP API, labels and the comparison of two runs."""
