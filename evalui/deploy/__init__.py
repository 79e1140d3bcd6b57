"""Deployment: what a hosted dashboard (a Hugging Face Space) does around the run core, such as syncing runs to the Hub."""
