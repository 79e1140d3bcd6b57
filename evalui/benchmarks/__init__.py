"""One package per benchmark or task: load, request, parse, score, metrics, export."""
