"""Operations on stored runs: exports to other tools' formats (inspect_export)."""
