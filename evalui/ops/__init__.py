"""Operations on stored runs of any benchmark: history, rescoring, scanning."""
