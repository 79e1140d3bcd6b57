"""AIME-style data generation, its LLM judge, and its win rate against real AIME problems."""
