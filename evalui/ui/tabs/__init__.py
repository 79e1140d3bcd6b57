"""The dashboard's tabs: one per benchmark where it wants one, the generic tab, runs, score and compare."""
