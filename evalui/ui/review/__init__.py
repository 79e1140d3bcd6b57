"""The dashboard's human verification panel."""
