"""Read models of a stored run: its rows, transcripts, pairs, findings and the static bundle."""
