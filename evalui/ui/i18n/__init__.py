"""The dashboard's strings, in English and Chinese."""
