"""GAIA general-assistant benchmark."""
