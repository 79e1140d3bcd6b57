"""Reports (Markdown) and charts (plotly), shared by the CLI exports and the dashboard."""
