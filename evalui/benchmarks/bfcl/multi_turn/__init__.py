"""BFCL multi-turn: conversations played against fresh, stateful backends, judged by the official checker."""
